package sqlitestore

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/acpsim/acpsim/actors/agent/store"
)

// Two processes' handles on one file: what one commits the other reads, and
// the binding's primary key refuses the second insert for one key.
func TestSharedFileBindsAKeyOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := store.Session{ID: "S", Cwd: "/w"}
	msg := func(id string) store.Message {
		return store.Message{Session: "S", ID: id, Role: store.RoleUser, Text: "hi", Content: []byte(`[{"type":"text","text":"hi"}]`), Key: "K"}
	}
	if err := a.Commit(store.Batch{Sessions: []store.Session{s}, Messages: []store.Message{msg("M1")}, Bindings: []store.Binding{{Session: "S", Key: "K", MessageID: "M1", Prompt: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	err = b.Commit(store.Batch{Messages: []store.Message{msg("M2")}, Bindings: []store.Binding{{Session: "S", Key: "K", MessageID: "M2", Prompt: "hi"}}})
	var be *store.BoundError
	if !errors.As(err, &be) || be.Existing.MessageID != "M1" {
		t.Fatalf("second binding: %v, want BoundError naming M1", err)
	}
	if got := b.Messages("S"); len(got) != 1 || got[0].ID != "M1" || string(got[0].Content) == "" {
		t.Fatalf("messages read by the other handle: %+v (the refused batch must write nothing)", got)
	}
	if ss := b.Sessions(); len(ss) != 1 || ss[0].ID != "S" {
		t.Fatalf("sessions: %+v", ss)
	}
	if err := a.Commit(store.Batch{Forget: []store.Message{{Session: "S", ID: "M1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Binding("S", "K"); ok || len(b.Messages("S")) != 0 {
		t.Fatal("forgetting a message kept it or its binding")
	}
	if err := a.Commit(store.Batch{Delete: []string{"S"}}); err != nil || len(b.Sessions()) != 0 {
		t.Fatalf("delete: %v, sessions %+v", err, b.Sessions())
	}
}

func TestOpenRefusesAFileThatIsNotAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not.db")
	if err := writeFile(path, "this is not sqlite"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("opened a text file as a store")
	}
}

func TestUnbindDropsTheKeyAndKeepsTheMessage(t *testing.T) {
	a, err := Open(filepath.Join(t.TempDir(), "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Commit(store.Batch{Sessions: []store.Session{{ID: "S", Cwd: "/w"}}, Messages: []store.Message{{Session: "S", ID: "M1", Role: store.RoleUser, Text: "hi", Content: []byte(`[]`), Key: "K"}},
		Bindings: []store.Binding{{Session: "S", Key: "K", MessageID: "M1", Prompt: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(store.Batch{Unbind: []store.Binding{{Session: "S", Key: "K"}}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Binding("S", "K"); ok || len(a.Messages("S")) != 1 {
		t.Fatalf("binding kept or message lost: %d messages", len(a.Messages("S")))
	}
}
