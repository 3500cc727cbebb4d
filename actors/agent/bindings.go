package agent

import "github.com/acpsim/acpsim/actors/agent/store"

// InMemoryBindings wraps a store so that key bindings live in this process's
// memory and everything else on the store: the Agent knob keys=memory. On
// stdio that lasts as long as the process; behind a remote endpoint whose
// nodes share the store it does not even last a failover (the RFD: "The
// record belongs in the storage the session is loaded from, not in
// per-connection or per-node memory").
func InMemoryBindings(st store.Store) store.Store {
	return &memoryBindings{Store: st, keys: map[[2]string]store.Binding{}}
}

type memoryBindings struct {
	store.Store
	keys map[[2]string]store.Binding
}

func (s *memoryBindings) Commit(b store.Batch) error {
	for _, k := range b.Bindings {
		if old, ok := s.keys[[2]string{k.Session, k.Key}]; ok {
			return &store.BoundError{Existing: old}
		}
	}
	bindings := b.Bindings
	b.Bindings = nil
	if err := s.Store.Commit(b); err != nil {
		return err
	}
	for _, k := range bindings {
		s.keys[[2]string{k.Session, k.Key}] = k
	}
	return nil
}

func (s *memoryBindings) Binding(session, key string) (store.Binding, bool) {
	b, ok := s.keys[[2]string{session, key}]
	return b, ok
}
