// This file holds the mutants that match an idempotencyKey wrongly: they
// ignore it, accept a malformed one, look it up in every session instead of
// its own, or fold its case.

package mutants

import (
	"encoding/json"
	"strings"
	"unicode/utf16"

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

// keyLengthIn is an Agent that counts a key's length with count, where the
// RFD counts code points (JSON Schema's maxLength): a legal key that is
// longer than 255 in that unit is refused with -32602.
func keyLengthIn(count func(string) int) agent.Factory {
	return func(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
		w := &wrapper{inner: reference(k, open, env), env: env}
		w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
			_, key, ok := promptOf(m)
			if n := count(key); !ok || n <= acp.MaxKeyLength {
				return frame, nil
			}
			return nil, []agent.Output{{Kind: agent.OutSend, Step: "respond-error", Conn: conn,
				Frame: acp.ErrorResponse(m.ID, acp.Errorf(acp.CodeInvalidParams, "invalid params: idempotencyKey must be 1 to %d characters, got %d", acp.MaxKeyLength, count(key)))}}
		}
		return w
	}
}

// utf8Bytes is what len counts: 1,020 for 255 four-byte code points.
func utf8Bytes(s string) int { return len(s) }

// utf16Units is what a JavaScript string's length counts: 510 for 255
// code points outside the Basic Multilingual Plane.
func utf16Units(s string) int { return len(utf16.Encode([]rune(s))) }
