// This file holds the mutants that let an idempotencyKey leave the Agent:
// in the user_message update's _meta, or in session/list's _meta.

package mutants

import (
	"encoding/json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
)

func newEchoKey(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	t := newKeyTracker()
	w := &wrapper{inner: reference(k, open, env), env: env, in: t.in}
	w.out = func(o agent.Output) []agent.Output {
		if sk, msgID, _, ok := t.answered(o); ok {
			t.msgs[msgID] = sk[1]
			return []agent.Output{o}
		}
		if o.Kind != agent.OutSend || o.Step != "update-user-message" {
			return []agent.Output{o}
		}
		var n struct {
			Params acp.SessionUpdateParams `json:"params"`
		}
		if json.Unmarshal(o.Frame, &n) != nil {
			return []agent.Output{o}
		}
		if key, ok := t.msgs[n.Params.Update.MessageID]; ok {
			n.Params.Update.Meta, _ = json.Marshal(map[string]string{"idempotencyKey": key})
			o.Frame = acp.Notification(acp.MethodSessionUpdate, n.Params)
		}
		return []agent.Output{o}
	}
	return w
}

// keyInSession stores each session's last key with the session record, as
// an Agent that saves "the last request's metadata" with a session would.
type keyInSession struct{ store.Store }

func (s keyInSession) Commit(b store.Batch) error {
	if len(b.Bindings) > 0 && len(b.Sessions) > 0 {
		b.Sessions = append([]store.Session(nil), b.Sessions...)
		b.Sessions[0].Title = b.Bindings[0].Key
	}
	return s.Store.Commit(b)
}

func newKeyInListMeta(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	st := keyInSession{open()}
	lists := map[reqRef]bool{}
	w := &wrapper{inner: agent.New(k, st, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		if m.Method == acp.MethodSessionList {
			lists[reqRef{conn, m.ID}] = true
		}
		return frame, nil
	}
	w.out = func(o agent.Output) []agent.Output {
		r, ok := responseOf(o)
		if !ok || !lists[reqRef{o.Conn, r.ID}] || r.Error != nil {
			return []agent.Output{o}
		}
		var res acp.ListSessionsResult
		if json.Unmarshal(r.Result, &res) != nil {
			return []agent.Output{o}
		}
		for i, info := range res.Sessions {
			for _, rec := range st.Sessions() {
				if rec.ID == info.SessionID && rec.Title != "" {
					res.Sessions[i].Meta, _ = json.Marshal(map[string]string{"lastRequest": rec.Title})
				}
			}
		}
		o.Frame = acp.Result(r.ID, res)
		return []agent.Output{o}
	}
	return w
}
