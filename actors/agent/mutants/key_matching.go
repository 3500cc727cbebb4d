// This file holds the mutants that match an idempotencyKey wrongly: they
// ignore it, accept a malformed one, look it up in every session instead of
// its own, or fold its case.

package mutants

import (
	"encoding/json"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
)

func newIgnoreKey(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(_ string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		p, _, ok := promptOf(m)
		if !ok {
			return frame, nil
		}
		p.IdempotencyKey = nil
		m.Params, _ = json.Marshal(p)
		return acp.Encode(m), nil
	}
	return w
}

func newLenientKey(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(_ string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		var p acp.PromptParams
		if m.Method != acp.MethodSessionPrompt || acp.DecodeParams(m.Params, &p) != nil {
			return frame, nil
		}
		if _, _, err := p.Key(); err == nil {
			return frame, nil
		}
		p.IdempotencyKey = nil
		m.Params, _ = json.Marshal(p)
		return acp.Encode(m), nil
	}
	return w
}

// agentScopedKeys looks a key up in every session: one key, one submission
// per Agent, which the RFD scopes per session.
type agentScopedKeys struct{ store.Store }

func (s agentScopedKeys) Binding(_, key string) (store.Binding, bool) {
	for _, sess := range s.Store.Sessions() {
		if b, ok := s.Store.Binding(sess.ID, key); ok {
			return b, true
		}
	}
	return store.Binding{}, false
}

func (s agentScopedKeys) Commit(b store.Batch) error {
	for _, k := range b.Bindings {
		if old, ok := s.Binding(k.Session, k.Key); ok {
			return &store.BoundError{Existing: old}
		}
	}
	return s.Store.Commit(b)
}

func newAgentScopedKeys(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.New(k, agentScopedKeys{open()}, env)
}

// foldKeyCase stores and looks up keys in lower case.
type foldKeyCase struct{ store.Store }

func (s foldKeyCase) Binding(session, key string) (store.Binding, bool) {
	return s.Store.Binding(session, strings.ToLower(key))
}

func (s foldKeyCase) Commit(b store.Batch) error {
	b.Bindings = append([]store.Binding(nil), b.Bindings...)
	for i := range b.Bindings {
		b.Bindings[i].Key = strings.ToLower(b.Bindings[i].Key)
	}
	return s.Store.Commit(b)
}

func newFoldKeyCase(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.New(k, foldKeyCase{open()}, env)
}
