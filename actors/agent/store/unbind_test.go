package store_test

import (
	"testing"

	"github.com/acpsim/acpsim/actors/agent/store"
)

// Unbind (a key whose window ran out) drops the binding and keeps the
// message, and a crash that replays the log keeps it dropped.
func TestUnbindDropsTheKeyAndKeepsTheMessage(t *testing.T) {
	d := store.NewDisk()
	bind := store.Binding{Session: "S", Key: "K", MessageID: "M1", Prompt: "hi"}
	if err := d.Commit(store.Batch{Sessions: []store.Session{{ID: "S"}}, Messages: []store.Message{{Session: "S", ID: "M1", Role: store.RoleUser, Text: "hi", Key: "K"}}, Bindings: []store.Binding{bind}}); err != nil {
		t.Fatal(err)
	}
	d.Sync()
	if err := d.Commit(store.Batch{Unbind: []store.Binding{{Session: "S", Key: "K"}}}); err != nil {
		t.Fatal(err)
	}
	d.Sync()
	check := func(when string) {
		if _, ok := d.Binding("S", "K"); ok || len(d.Messages("S")) != 1 {
			t.Fatalf("%s: binding kept or message lost: %d messages", when, len(d.Messages("S")))
		}
	}
	check("after Unbind")
	d.Crash(false)
	check("after a crash")
	if err := d.Commit(store.Batch{Bindings: []store.Binding{bind}}); err != nil {
		t.Fatalf("the key, unbound, cannot be bound again: %v", err)
	}
}
