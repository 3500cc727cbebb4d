package store_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/acpsim/acpsim/actors/agent/store"
)

var _ store.Store = (*store.Disk)(nil)

func user(session, id, text string) store.Message {
	return store.Message{Session: session, ID: id, Role: store.RoleUser, Text: text}
}

func bind(session, key, msg string) store.Binding {
	return store.Binding{Session: session, Key: key, MessageID: msg}
}

// prompt is the batch the reference Agent writes for one keyed prompt.
func prompt(session, key, msg, text string) store.Batch {
	return store.Batch{Messages: []store.Message{user(session, msg, text)}, Bindings: []store.Binding{bind(session, key, msg)}}
}

func mustCommit(t *testing.T, d *store.Disk, b store.Batch) {
	t.Helper()
	if err := d.Commit(b); err != nil {
		t.Fatalf("Commit(%+v): %v", b, err)
	}
}

func messageIDs(d *store.Disk, session string) []string {
	var out []string
	for _, m := range d.Messages(session) {
		out = append(out, m.ID)
	}
	return out
}

func sessionIDs(d *store.Disk) []string {
	var out []string
	for _, s := range d.Sessions() {
		out = append(out, s.ID)
	}
	return out
}

func wantBinding(t *testing.T, d *store.Disk, session, key, msg string) {
	t.Helper()
	b, ok := d.Binding(session, key)
	got := b.MessageID
	switch {
	case msg == "" && ok:
		t.Errorf("Binding(%s, %s) = %s, want none", session, key, got)
	case msg != "" && (!ok || got != msg):
		t.Errorf("Binding(%s, %s) = %q, %v; want %s", session, key, got, ok, msg)
	}
}

func TestDiskCommitIsAtomic(t *testing.T) {
	d := store.NewDisk()
	mustCommit(t, d, store.Batch{
		Sessions: []store.Session{{ID: "s1", Cwd: "/w"}},
		Messages: []store.Message{user("s1", "m1", "hello")},
		Bindings: []store.Binding{bind("s1", "k1", "m1")},
	})

	err := d.Commit(store.Batch{
		Sessions: []store.Session{{ID: "s2", Cwd: "/w"}, {ID: "s1", Cwd: "/w", Title: "renamed"}},
		Messages: []store.Message{user("s1", "m2", "hello again")},
		Bindings: []store.Binding{bind("s1", "k2", "m2"), bind("s1", "k1", "m2")},
	})
	if !errors.Is(err, store.ErrKeyBound) {
		t.Fatalf("binding a bound key: err = %v, want one matching ErrKeyBound", err)
	}
	var be *store.BoundError
	if !errors.As(err, &be) {
		t.Fatalf("err %T is not a *BoundError", err)
	}
	if want := bind("s1", "k1", "m1"); be.Existing != want {
		t.Errorf("BoundError.Existing = %+v, want %+v", be.Existing, want)
	}

	// Nothing of the failed batch was written.
	if got := d.Sessions(); !reflect.DeepEqual(got, []store.Session{{ID: "s1", Cwd: "/w"}}) {
		t.Errorf("Sessions = %+v, want s1 unchanged and no s2", got)
	}
	if got := messageIDs(d, "s1"); !reflect.DeepEqual(got, []string{"m1"}) {
		t.Errorf("Messages(s1) = %v, want [m1]", got)
	}
	wantBinding(t, d, "s1", "k1", "m1")
	wantBinding(t, d, "s1", "k2", "")
	if d.Unsynced() != 1 {
		t.Errorf("Unsynced = %d, want 1 (the failed batch is not logged)", d.Unsynced())
	}

	// The failed batch is not in the log either: a crash that replays the
	// synced batches does not bring it back.
	d.Sync()
	mustCommit(t, d, prompt("s1", "k9", "m9", "unsynced"))
	d.Crash(true)
	wantBinding(t, d, "s1", "k2", "")
	wantBinding(t, d, "s1", "k9", "")
	if got := d.Sessions(); !reflect.DeepEqual(got, []store.Session{{ID: "s1", Cwd: "/w"}}) {
		t.Errorf("after crash Sessions = %+v, want s1 unchanged and no s2", got)
	}
	if got := messageIDs(d, "s1"); !reflect.DeepEqual(got, []string{"m1"}) {
		t.Errorf("after crash Messages(s1) = %v, want [m1]", got)
	}
}

func TestDiskKeysAreScopedPerSessionAndCaseSensitive(t *testing.T) {
	d := store.NewDisk()
	mustCommit(t, d, prompt("s1", "key", "m1", "a"))
	mustCommit(t, d, prompt("s2", "key", "m2", "a")) // same key, another session
	mustCommit(t, d, prompt("s1", "KEY", "m3", "b")) // other case, same session
	wantBinding(t, d, "s1", "key", "m1")
	wantBinding(t, d, "s2", "key", "m2")
	wantBinding(t, d, "s1", "KEY", "m3")
	if err := d.Commit(prompt("s2", "key", "m4", "a")); !errors.Is(err, store.ErrKeyBound) {
		t.Errorf("rebinding s2/key: err = %v, want ErrKeyBound", err)
	}
}

func TestDiskBoundErrorMessage(t *testing.T) {
	d := store.NewDisk()
	mustCommit(t, d, prompt("s1", "k", "m1", "x"))
	err := d.Commit(prompt("s1", "k", "m2", "x"))
	want := "idempotency key already bound: session s1 key bound to message m1"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestDiskSessionsInCreationOrderUpdatedInPlace(t *testing.T) {
	d := store.NewDisk()
	mustCommit(t, d, store.Batch{Sessions: []store.Session{{ID: "b", Cwd: "/1"}}})
	mustCommit(t, d, store.Batch{Sessions: []store.Session{{ID: "a", Cwd: "/2"}, {ID: "c", Cwd: "/3"}}})
	mustCommit(t, d, store.Batch{Sessions: []store.Session{{ID: "a", Cwd: "/2", Title: "titled"}}})
	want := []store.Session{{ID: "b", Cwd: "/1"}, {ID: "a", Cwd: "/2", Title: "titled"}, {ID: "c", Cwd: "/3"}}
	got := d.Sessions()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sessions = %+v, want %+v", got, want)
	}
	got[0].Title = "scribbled"
	if d.Sessions()[0].Title != "" {
		t.Error("changing the slice Sessions returned changed the disk")
	}
}

func TestDiskMessagesInInsertionOrderPerSession(t *testing.T) {
	d := store.NewDisk()
	mustCommit(t, d, store.Batch{Messages: []store.Message{user("s1", "m1", "a"), user("s2", "m2", "b")}})
	mustCommit(t, d, store.Batch{Messages: []store.Message{
		{Session: "s1", ID: "r1", Role: store.RoleAgent, Text: "reply"},
		user("s1", "m3", "c"),
	}})
	if got := messageIDs(d, "s1"); !reflect.DeepEqual(got, []string{"m1", "r1", "m3"}) {
		t.Errorf("Messages(s1) = %v, want [m1 r1 m3]", got)
	}
	if got := messageIDs(d, "s2"); !reflect.DeepEqual(got, []string{"m2"}) {
		t.Errorf("Messages(s2) = %v, want [m2]", got)
	}
	if got := d.Messages("nope"); len(got) != 0 {
		t.Errorf("Messages of an unknown session = %v", got)
	}
	// The slice is the disk's (Store.Messages): appending to it must not
	// reach the disk, nor the disk's next commit reach it.
	ms := append(d.Messages("s1"), user("s1", "x1", "appended"))
	mustCommit(t, d, store.Batch{Messages: []store.Message{user("s1", "m4", "d")}})
	if got := messageIDs(d, "s1"); !reflect.DeepEqual(got, []string{"m1", "r1", "m3", "m4"}) {
		t.Errorf("after appending to a returned slice, Messages(s1) = %v, want [m1 r1 m3 m4]", got)
	}
	if ms[3].ID != "x1" {
		t.Errorf("the disk's commit rewrote a slice Messages returned: %v", ms[3])
	}
}

func TestDiskUnsynced(t *testing.T) {
	d := store.NewDisk()
	if d.Unsynced() != 0 {
		t.Fatalf("new disk: Unsynced = %d", d.Unsynced())
	}
	mustCommit(t, d, prompt("s", "k1", "m1", "a"))
	mustCommit(t, d, prompt("s", "k2", "m2", "b"))
	if d.Unsynced() != 2 {
		t.Errorf("Unsynced = %d after two commits, want 2", d.Unsynced())
	}
	d.Sync()
	if d.Unsynced() != 0 {
		t.Errorf("Unsynced = %d after Sync, want 0", d.Unsynced())
	}
	mustCommit(t, d, prompt("s", "k3", "m3", "c"))
	if d.Unsynced() != 1 {
		t.Errorf("Unsynced = %d, want 1", d.Unsynced())
	}
	d.Sync()
	d.Sync()
	if d.Unsynced() != 0 {
		t.Errorf("Unsynced = %d after a second Sync, want 0", d.Unsynced())
	}
}

func TestDiskCrashKeepingUnsynced(t *testing.T) {
	d := store.NewDisk()
	mustCommit(t, d, store.Batch{Sessions: []store.Session{{ID: "s"}}})
	d.Sync()
	mustCommit(t, d, prompt("s", "k1", "m1", "a"))
	mustCommit(t, d, prompt("s", "k2", "m2", "b"))
	d.Crash(false)
	if d.Unsynced() != 0 {
		t.Errorf("Unsynced = %d after Crash(false), want 0: the OS flushed them", d.Unsynced())
	}
	if got := messageIDs(d, "s"); !reflect.DeepEqual(got, []string{"m1", "m2"}) {
		t.Errorf("Messages = %v, want [m1 m2]", got)
	}
	// What the OS flushed is durable: a later crash that loses unsynced
	// writes does not take it.
	d.Crash(true)
	if got := messageIDs(d, "s"); !reflect.DeepEqual(got, []string{"m1", "m2"}) {
		t.Errorf("after a second crash Messages = %v, want [m1 m2]", got)
	}
	wantBinding(t, d, "s", "k2", "m2")
}

func TestDiskCrashLosingUnsynced(t *testing.T) {
	d := store.NewDisk()
	// Synced: session s1, m1 (k1), m2 (k2).
	mustCommit(t, d, store.Batch{
		Sessions: []store.Session{{ID: "s1", Cwd: "/w"}},
		Messages: []store.Message{user("s1", "m1", "one")},
		Bindings: []store.Binding{bind("s1", "k1", "m1")},
	})
	mustCommit(t, d, prompt("s1", "k2", "m2", "two"))
	d.Sync()
	// Unsynced: a new session, a message in each, s1 retitled.
	mustCommit(t, d, store.Batch{
		Sessions: []store.Session{{ID: "s2", Cwd: "/w"}},
		Messages: []store.Message{user("s1", "m3", "three"), user("s2", "m4", "four")},
		Bindings: []store.Binding{bind("s1", "k3", "m3"), bind("s2", "k4", "m4")},
	})
	mustCommit(t, d, store.Batch{Sessions: []store.Session{{ID: "s1", Cwd: "/w", Title: "new title"}}})
	if d.Unsynced() != 2 {
		t.Fatalf("Unsynced = %d, want 2", d.Unsynced())
	}

	d.Crash(true)

	if d.Unsynced() != 0 {
		t.Errorf("Unsynced = %d after the crash, want 0", d.Unsynced())
	}
	if got := d.Sessions(); !reflect.DeepEqual(got, []store.Session{{ID: "s1", Cwd: "/w"}}) {
		t.Errorf("Sessions = %+v, want s1 with its synced (untitled) state", got)
	}
	if got := messageIDs(d, "s1"); !reflect.DeepEqual(got, []string{"m1", "m2"}) {
		t.Errorf("Messages(s1) = %v, want [m1 m2]", got)
	}
	if got := d.Messages("s2"); len(got) != 0 {
		t.Errorf("Messages(s2) = %v, want none", got)
	}
	wantBinding(t, d, "s1", "k1", "m1")
	wantBinding(t, d, "s1", "k2", "m2")
	wantBinding(t, d, "s1", "k3", "")
	wantBinding(t, d, "s2", "k4", "")

	// A binding lost in the crash can be bound again, to another message.
	mustCommit(t, d, prompt("s1", "k3", "m5", "three again"))
	wantBinding(t, d, "s1", "k3", "m5")
	if got := messageIDs(d, "s1"); !reflect.DeepEqual(got, []string{"m1", "m2", "m5"}) {
		t.Errorf("Messages(s1) = %v, want [m1 m2 m5]", got)
	}
	// A synced binding still cannot.
	if err := d.Commit(prompt("s1", "k2", "m6", "x")); !errors.Is(err, store.ErrKeyBound) {
		t.Errorf("rebinding synced k2: err = %v, want ErrKeyBound", err)
	}

	// Sync, one more batch, crash again: only that batch goes.
	d.Sync()
	mustCommit(t, d, prompt("s1", "k7", "m7", "seven"))
	d.Crash(true)
	if got := messageIDs(d, "s1"); !reflect.DeepEqual(got, []string{"m1", "m2", "m5"}) {
		t.Errorf("after the second crash Messages(s1) = %v, want [m1 m2 m5]", got)
	}
	wantBinding(t, d, "s1", "k3", "m5")
	wantBinding(t, d, "s1", "k7", "")
}

func TestDiskCrashWithNothingSynced(t *testing.T) {
	d := store.NewDisk()
	mustCommit(t, d, store.Batch{Sessions: []store.Session{{ID: "s"}}, Messages: []store.Message{user("s", "m", "x")}})
	d.Crash(true)
	if len(d.Sessions()) != 0 || len(d.Messages("s")) != 0 {
		t.Errorf("after losing the only batch: Sessions %v, Messages %v; want empty", d.Sessions(), d.Messages("s"))
	}
	mustCommit(t, d, store.Batch{Sessions: []store.Session{{ID: "t"}}})
	if got := sessionIDs(d); !reflect.DeepEqual(got, []string{"t"}) {
		t.Errorf("Sessions = %v, want [t]", got)
	}
}

func ExampleDisk() {
	d := store.NewDisk()
	d.Commit(store.Batch{
		Sessions: []store.Session{{ID: "s1", Cwd: "/repo"}},
		Messages: []store.Message{{Session: "s1", ID: "m1", Role: store.RoleUser, Text: "hello"}},
		Bindings: []store.Binding{{Session: "s1", Key: "k1", MessageID: "m1"}},
	})
	d.Sync()

	// A retry with the same key inserts nothing and names the first message.
	err := d.Commit(store.Batch{
		Messages: []store.Message{{Session: "s1", ID: "m2", Role: store.RoleUser, Text: "hello"}},
		Bindings: []store.Binding{{Session: "s1", Key: "k1", MessageID: "m2"}},
	})
	var bound *store.BoundError
	if errors.As(err, &bound) {
		fmt.Println("already bound to", bound.Existing.MessageID)
	}

	// A write that was not synced is lost when its process dies.
	d.Commit(store.Batch{
		Messages: []store.Message{{Session: "s1", ID: "m3", Role: store.RoleUser, Text: "bye"}},
		Bindings: []store.Binding{{Session: "s1", Key: "k3", MessageID: "m3"}},
	})
	fmt.Println("unsynced:", d.Unsynced())
	d.Crash(true)
	for _, m := range d.Messages("s1") {
		fmt.Println(m.ID, m.Text)
	}
	_, ok := d.Binding("s1", "k3")
	fmt.Println("k3 bound:", ok)
	// Output:
	// already bound to m1
	// unsynced: 1
	// m1 hello
	// k3 bound: false
}

// A batch with UniqueIDs is refused whole when a message id is already in
// its session; without it the same id is appended again (a runtime that
// does not refuse a repeated id).
func TestUniqueIDs(t *testing.T) {
	d := store.NewDisk()
	mustCommit(t, d, store.Batch{Messages: []store.Message{user("S", "M1", "hi")}})
	err := d.Commit(store.Batch{Messages: []store.Message{user("S", "M1", "hi")}, UniqueIDs: true})
	if !errors.Is(err, store.ErrMessageExists) {
		t.Fatalf("UniqueIDs commit of a stored id: err %v, want ErrMessageExists", err)
	}
	if got := messageIDs(d, "S"); !reflect.DeepEqual(got, []string{"M1"}) {
		t.Fatalf("after a refused batch: %v", got)
	}
	mustCommit(t, d, store.Batch{Messages: []store.Message{user("T", "M1", "hi")}, UniqueIDs: true}) // another session
	mustCommit(t, d, store.Batch{Messages: []store.Message{user("S", "M1", "hi")}})
	if got := messageIDs(d, "S"); !reflect.DeepEqual(got, []string{"M1", "M1"}) {
		t.Fatalf("append of a stored id: %v", got)
	}
}
