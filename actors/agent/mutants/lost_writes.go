// This file holds the mutant whose processes lose each other's writes: two
// processes sharing one store (nodes behind an endpoint, or a Client's
// process and another Client's) each write back the session list they
// loaded, and a session the other created meanwhile is gone.

package mutants

import (
	"slices"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
)

// snapshotStore is a process's view of a shared store that it treats as a
// file it owns: it loads the sessions at start and, on every write, writes
// its whole session list back, deleting whatever sessions it never knew.
// A read-modify-write without a lock: the lost update.
type snapshotStore struct {
	store.Store
	known map[string]bool // the sessions this process loaded or wrote
}

func newSnapshotStore(shared store.Store) *snapshotStore {
	s := &snapshotStore{Store: shared, known: map[string]bool{}}
	for _, rec := range shared.Sessions() {
		s.known[rec.ID] = true
	}
	return s
}

func (s *snapshotStore) Commit(b store.Batch) error {
	for _, rec := range b.Sessions {
		s.known[rec.ID] = true
	}
	for _, m := range b.Messages {
		s.known[m.Session] = true
	}
	b.Delete = slices.Clone(b.Delete)
	for _, rec := range s.Store.Sessions() {
		if !s.known[rec.ID] {
			b.Delete = append(b.Delete, rec.ID) // another process's session, clobbered
		}
	}
	return s.Store.Commit(b)
}

func newLostWrites(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	st := open()
	if k.Keys == agent.KeysMemory {
		st = agent.InMemoryBindings(st)
	}
	return agent.New(k, newSnapshotStore(st), env)
}
