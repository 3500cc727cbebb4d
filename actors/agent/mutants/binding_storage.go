// This file holds the mutants that keep a key binding at the wrong time or
// in the wrong place: bound on arrival instead of with the insertion, kept
// only in process memory, lost for a forked parent, or (in an adapter) not
// rebuilt from the runtime's history after a restart.

package mutants

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
)

func newBindOnArrival(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	arrived := map[reqRef][2]string{} // request → (session, key)
	bound := map[[2]string]string{}   // (session, key) → messageId bound at arrival
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		p, key, ok := promptOf(m)
		if !ok {
			return frame, nil
		}
		sk := [2]string{p.SessionID, key}
		if id, ok := bound[sk]; ok {
			return nil, []agent.Output{{Kind: agent.OutSend, Step: "respond-from-binding", Conn: conn,
				Frame: acp.Result(m.ID, acp.PromptResult{MessageID: id})}}
		}
		arrived[reqRef{conn, m.ID}] = sk
		return frame, nil
	}
	w.out = func(o agent.Output) []agent.Output {
		if r, ok := responseOf(o); ok {
			ref := reqRef{o.Conn, r.ID}
			if sk, ok := arrived[ref]; ok {
				delete(arrived, ref)
				if r.Error != nil { // the key was bound on arrival: the error leaves it used
					bound[sk] = env.NewID()
				}
			}
		}
		return []agent.Output{o}
	}
	return w
}

func newMemoryKeys(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.New(k, agent.InMemoryBindings(open()), env)
}

// forkForgets keeps a forked parent's bindings in process memory from the
// fork on, and looks only there: the bindings made before the fork are gone.
type forkForgets struct {
	store.Store
	forgot map[string]map[string]store.Binding // parent session → its bindings since the fork
}

func (s *forkForgets) Binding(session, key string) (store.Binding, bool) {
	if m, ok := s.forgot[session]; ok {
		b, ok := m[key]
		return b, ok
	}
	return s.Store.Binding(session, key)
}

func (s *forkForgets) Commit(b store.Batch) error {
	var mine []store.Binding
	kept := b.Bindings[:0:0]
	for _, k := range b.Bindings {
		if m, ok := s.forgot[k.Session]; ok {
			if old, bound := m[k.Key]; bound {
				return &store.BoundError{Existing: old}
			}
			mine = append(mine, k)
			continue
		}
		kept = append(kept, k)
	}
	b.Bindings = kept
	if err := s.Store.Commit(b); err != nil {
		return err
	}
	for _, k := range mine {
		s.forgot[k.Session][k.Key] = k
	}
	return nil
}

func newForkForgetsParent(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	st := &forkForgets{Store: open(), forgot: map[string]map[string]store.Binding{}}
	w := &wrapper{inner: agent.New(k, st, env), env: env}
	w.in = func(_ string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		var p acp.ForkSessionParams
		if m.Method == acp.MethodSessionFork && acp.DecodeParams(m.Params, &p) == nil {
			if _, ok := st.forgot[p.SessionID]; !ok {
				st.forgot[p.SessionID] = map[string]store.Binding{}
			}
		}
		return frame, nil
	}
	return w
}

// newAdapterNoRebuild is the adapter whose id set starts empty after a
// restart: it only knows the ids this process submitted. Its real anomaly
// is a duplicate (with runtime-dedupe=append the history holds the derived
// id twice), but the checker's transcript is keyed by messageId and folds
// two user messages with one id into one, so what it reports is the second
// round of work: "rework".
func newAdapterNoRebuild(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.NewAdapter(k, open(), env, func(store.Store, string) []string { return nil })
}
