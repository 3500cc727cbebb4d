// This file holds the wrapper that runs the reference Agent with hooks on
// the frames going in and the outputs coming out, and the helpers the
// mutants' hooks share: decoding prompts and responses, and tracking which
// key each answered prompt carried.

package mutants

import (
	"encoding/json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
)

// wrapper runs the reference Agent with hooks on the frames going in and the
// outputs coming out.
type wrapper struct {
	inner agent.Machine
	env   agent.Env
	// in may rewrite or swallow an incoming single message; it returns the
	// frame to pass on (nil to swallow) and outputs of its own.
	in func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output)
	// out may rewrite one output of the reference into several.
	out func(o agent.Output) []agent.Output
}

func (w *wrapper) Connect(conn string) []agent.Output    { return w.post(w.inner.Connect(conn)) }
func (w *wrapper) Disconnect(conn string) []agent.Output { return w.post(w.inner.Disconnect(conn)) }
func (w *wrapper) Timer(id int) []agent.Output           { return w.post(w.inner.Timer(id)) }

func (w *wrapper) Receive(conn string, frame []byte) []agent.Output {
	var own []agent.Output
	if w.in != nil {
		if line := acp.ParseLine(frame); !line.Batch && line.Entries[0].Err == nil {
			frame, own = w.in(conn, &line.Entries[0].Msg, frame)
		}
	}
	if frame == nil {
		return own
	}
	return append(own, w.post(w.inner.Receive(conn, frame))...)
}

func (w *wrapper) post(outs []agent.Output) []agent.Output {
	if w.out == nil {
		return outs
	}
	var res []agent.Output
	for _, o := range outs {
		res = append(res, w.out(o)...)
	}
	return res
}

func reference(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.New(k, open(), env)
}

// promptOf decodes a session/prompt request's params and key.
func promptOf(m *acp.Message) (p acp.PromptParams, key string, ok bool) {
	if m.Method != acp.MethodSessionPrompt || acp.DecodeParams(m.Params, &p) != nil {
		return p, "", false
	}
	key, present, err := p.Key()
	return p, key, present && err == nil
}

type reqRef struct {
	conn string
	id   acp.ID
}

// responseOf decodes an outgoing response frame.
func responseOf(o agent.Output) (*acp.Message, bool) {
	if o.Kind != agent.OutSend {
		return nil, false
	}
	line := acp.ParseLine(o.Frame)
	if line.Batch || line.Entries[0].Err != nil || line.Entries[0].Msg.Kind() != acp.KindResponse {
		return nil, false
	}
	return &line.Entries[0].Msg, true
}

// keyTracker remembers which key each answered prompt carried.
type keyTracker struct {
	reqs  map[reqRef][2]string // request → (session, key)
	first map[[2]string]string // (session, key) → first messageId answered
	msgs  map[string]string    // messageId → key
}

func newKeyTracker() *keyTracker {
	return &keyTracker{reqs: map[reqRef][2]string{}, first: map[[2]string]string{}, msgs: map[string]string{}}
}

func (t *keyTracker) in(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
	if p, key, ok := promptOf(m); ok {
		t.reqs[reqRef{conn, m.ID}] = [2]string{p.SessionID, key}
	}
	return frame, nil
}

// answered returns the (session, key) of a success response to a keyed
// prompt and its messageId.
func (t *keyTracker) answered(o agent.Output) (sk [2]string, msgID string, r *acp.Message, ok bool) {
	r, isResp := responseOf(o)
	if !isResp || r.Error != nil {
		return sk, "", r, false
	}
	sk, ok = t.reqs[reqRef{o.Conn, r.ID}]
	if !ok {
		return sk, "", r, false
	}
	delete(t.reqs, reqRef{o.Conn, r.ID})
	var res acp.PromptResult
	if json.Unmarshal(r.Result, &res) != nil {
		return sk, "", r, false
	}
	return sk, res.MessageID, r, true
}
