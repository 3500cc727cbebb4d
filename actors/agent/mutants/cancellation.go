// This file holds the mutants that break cancellation: $/cancel_request,
// session/close and session/cancel that do not withdraw the held prompts
// they should, with the tracking of held prompts they share.

package mutants

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
)

// pendingPrompts tracks the prompt requests the reference Agent has not
// answered yet (held ones), per session, for mutants that meddle with them.
type pendingPrompts struct {
	bySession map[string][]reqRef
	session   map[reqRef]string
}

func newPendingPrompts() *pendingPrompts {
	return &pendingPrompts{bySession: map[string][]reqRef{}, session: map[reqRef]string{}}
}

func (p *pendingPrompts) in(conn string, m *acp.Message) {
	if pp, _, _ := promptOf(m); m.Method == acp.MethodSessionPrompt {
		ref := reqRef{conn, m.ID}
		p.session[ref] = pp.SessionID
		p.bySession[pp.SessionID] = append(p.bySession[pp.SessionID], ref)
	}
}

func (p *pendingPrompts) answered(conn string, id acp.ID) {
	ref := reqRef{conn, id}
	sess, ok := p.session[ref]
	if !ok {
		return
	}
	delete(p.session, ref)
	refs := p.bySession[sess]
	for i, r := range refs {
		if r == ref {
			p.bySession[sess] = append(refs[:i:i], refs[i+1:]...)
			break
		}
	}
}

// hider answers requests itself and drops the reference's later answers to
// them.
type hider map[reqRef]bool

func (h hider) fail(ref reqRef, why string) agent.Output {
	h[ref] = true
	return agent.Output{Kind: agent.OutSend, Step: "respond-cancelled", Conn: ref.conn,
		Frame: acp.ErrorResponse(ref.id, acp.Errorf(acp.CodeRequestCancelled, "request cancelled: %s", why))}
}

// out is the output hook of a mutant that hides requests: it keeps pend up
// to date and drops the reference's answers to hidden requests.
func (h hider) out(pend *pendingPrompts) func(agent.Output) []agent.Output {
	return func(o agent.Output) []agent.Output {
		if r, ok := responseOf(o); ok {
			pend.answered(o.Conn, r.ID)
		}
		if !h.filter(o) {
			return nil
		}
		return []agent.Output{o}
	}
}

// filter drops a reference output that answers a hidden request.
func (h hider) filter(o agent.Output) bool {
	if r, ok := responseOf(o); ok && h[reqRef{o.Conn, r.ID}] {
		delete(h, reqRef{o.Conn, r.ID})
		return false
	}
	return true
}

func newCancelOnlyNamed(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	pend, hidden := newPendingPrompts(), hider{}
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		pend.in(conn, m)
		if m.Method != acp.MethodCancelRequest {
			return frame, nil
		}
		var p acp.CancelRequestParams
		if acp.DecodeParams(m.Params, &p) != nil {
			return frame, nil
		}
		ref := reqRef{conn, p.RequestID}
		if _, held := pend.session[ref]; !held {
			return frame, nil
		}
		pend.answered(conn, p.RequestID)
		return nil, []agent.Output{hidden.fail(ref, "cancelled by $/cancel_request")}
	}
	w.out = hidden.out(pend)
	return w
}

func newInsertAfterClose(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	pend, hidden := newPendingPrompts(), hider{}
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		pend.in(conn, m)
		if m.Method != acp.MethodSessionClose {
			return frame, nil
		}
		var p acp.SessionParams
		if acp.DecodeParams(m.Params, &p) != nil {
			return frame, nil
		}
		// The close is answered here; the reference never hears of it and
		// keeps the held prompts, which it inserts in their turn.
		var out []agent.Output
		for _, ref := range append([]reqRef(nil), pend.bySession[p.SessionID]...) {
			pend.answered(ref.conn, ref.id)
			out = append(out, hidden.fail(ref, "session closed"))
		}
		return nil, append(out, agent.Output{Kind: agent.OutSend, Step: "respond-close", Conn: conn, Frame: acp.Result(m.ID, struct{}{})})
	}
	w.out = hidden.out(pend)
	return w
}

func newCancelKeepsHeld(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(_ string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		if m.Method == acp.MethodSessionCancel {
			return nil, nil // neither the held prompts nor the work notice
		}
		return frame, nil
	}
	return w
}

// newCancelSparesOthers withdraws only the request a $/cancel_request names,
// where the RFD withdraws the prompt and answers "every pending request for
// that key with -32800". The reference withdraws the key's held prompt with
// all its waiting requests; this one keeps back the -32800 of the others and
// hands their frames to the reference again, so they are held anew and
// inserted in their turn. Unlike cancel-only-named, the named request
// itself is withdrawn for good: only a Client that leaves the other
// attempts to the Agent sees the bug.
func newCancelSparesOthers(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	pending := map[reqRef][]byte{} // prompt request → its frame, until answered
	answered := func(outs []agent.Output) {
		for _, o := range outs {
			if r, ok := responseOf(o); ok {
				delete(pending, reqRef{o.Conn, r.ID})
			}
		}
	}
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		var p acp.CancelRequestParams
		switch {
		case m.Method == acp.MethodSessionPrompt:
			pending[reqRef{conn, m.ID}] = append([]byte(nil), frame...)
			return frame, nil
		case m.Method != acp.MethodCancelRequest || acp.DecodeParams(m.Params, &p) != nil:
			return frame, nil
		}
		named := reqRef{conn, p.RequestID}
		var out []agent.Output
		var spared []reqRef
		for _, o := range w.inner.Receive(conn, frame) {
			if r, ok := responseOf(o); ok && r.Error != nil && r.Error.Code == acp.CodeRequestCancelled {
				if ref := (reqRef{o.Conn, r.ID}); ref != named && pending[ref] != nil {
					spared = append(spared, ref) // the bug: it stays pending
					continue
				}
			}
			out = append(out, o)
		}
		answered(out)
		for _, ref := range spared {
			again := w.inner.Receive(ref.conn, pending[ref])
			answered(again)
			out = append(out, again...)
		}
		return nil, out
	}
	w.out = func(o agent.Output) []agent.Output {
		answered([]agent.Output{o})
		return []agent.Output{o}
	}
	return w
}

// newWithdrawnKeyStaysCancelled remembers the key of every prompt it
// withdrew (-32800) and answers each later prompt with that key in that
// session -32800 at once. The RFD: errors leave the key unused, "the
// Client can send the same prompt with the same key again"; here a user
// who cancelled and then sent the input again never gets it in, told it
// was cancelled though nobody cancelled the new attempt.
func newWithdrawnKeyStaysCancelled(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	type sessKey struct{ session, key string }
	prompts := map[reqRef]sessKey{} // keyed prompt request → its session and key, until answered
	withdrawn := map[sessKey]bool{}
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		p, key, ok := promptOf(m)
		if !ok || key == "" {
			return frame, nil
		}
		sk := sessKey{p.SessionID, key}
		if withdrawn[sk] {
			return nil, []agent.Output{{Kind: agent.OutSend, Step: "respond-cancelled", Conn: conn,
				Frame: acp.ErrorResponse(m.ID, acp.Errorf(acp.CodeRequestCancelled, "request cancelled: its key was withdrawn"))}}
		}
		prompts[reqRef{conn, m.ID}] = sk
		return frame, nil
	}
	w.out = func(o agent.Output) []agent.Output {
		if r, ok := responseOf(o); ok {
			ref := reqRef{o.Conn, r.ID}
			if sk, keyed := prompts[ref]; keyed {
				delete(prompts, ref)
				if r.Error != nil && r.Error.Code == acp.CodeRequestCancelled {
					withdrawn[sk] = true // the bug: the key stays spent
				}
			}
		}
		return []agent.Output{o}
	}
	return w
}
