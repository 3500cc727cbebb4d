// This file holds the mutants whose answer to a retry names a message that is
// not the one the retried submission inserted, or announces one more: the
// session's newest user message, a copy a fork inherited along with its
// parent's key bindings, a fresh user_message id shown live beside the
// original one in the response.

package mutants

import (
	"encoding/json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
)

// newNewestIDOnRetry answers a retry from the binding with the session's
// newest user message, as an Agent would that takes "the key is bound" to
// mean "the prompt is the last thing the user typed": right as long as
// nothing was inserted in the session since, another submission's message
// once something was.
func newNewestIDOnRetry(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	st := open()
	t := newKeyTracker()
	w := &wrapper{inner: agent.New(k, st, env), env: env, in: t.in}
	w.out = func(o agent.Output) []agent.Output {
		sk, msgID, r, ok := t.answered(o)
		if !ok || o.Step != "respond-from-binding" {
			return []agent.Output{o}
		}
		if id := newestUserMessage(st.Messages(sk[0])); id != "" && id != msgID {
			o.Frame = acp.Result(r.ID, acp.PromptResult{MessageID: id})
		}
		return []agent.Output{o}
	}
	return w
}

func newestUserMessage(history []store.Message) string {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == store.RoleUser {
			return history[i].ID
		}
	}
	return ""
}

// newForkCopiesBindings gives a fork its parent's key bindings, pointing at
// the fork's copies of the parent's messages: a key the parent used, sent
// again in the fork for a new submission, is answered as a retry with a copy
// the fork inherited, and the new prompt is never inserted. The RFD: "The
// same key string in another session, including a fork of this one, names
// an unrelated submission." It does not compare a recorded key's prompt,
// as the RFD allows (and as an adapter cannot): an Agent that compares
// refuses the fork's prompt -32602 and loses nothing.
func newForkCopiesBindings(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	k.Compare = agent.CompareRetry
	st := open()
	w := &wrapper{inner: agent.New(k, st, env), env: env}
	forks := map[reqRef]string{} // session/fork request → parent session
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		var p acp.ForkSessionParams
		if m.Method == acp.MethodSessionFork && acp.DecodeParams(m.Params, &p) == nil {
			forks[reqRef{conn, m.ID}] = p.SessionID
		}
		return frame, nil
	}
	w.out = func(o agent.Output) []agent.Output {
		r, ok := responseOf(o)
		if !ok || o.Step != "respond-fork" {
			return []agent.Output{o}
		}
		parent := forks[reqRef{o.Conn, r.ID}]
		delete(forks, reqRef{o.Conn, r.ID})
		var res acp.NewSessionResult
		if r.Error != nil || parent == "" || json.Unmarshal(r.Result, &res) != nil {
			return []agent.Output{o}
		}
		// The fork copied the parent's history in order: the copies line up.
		from, to := st.Messages(parent), st.Messages(res.SessionID)
		var b store.Batch
		for i := 0; i < len(from) && i < len(to); i++ {
			if from[i].Key != "" {
				b.Bindings = append(b.Bindings, store.Binding{Session: res.SessionID, Key: from[i].Key, MessageID: to[i].ID, Prompt: from[i].Text})
			}
		}
		if len(b.Bindings) > 0 && st.Commit(b) == nil {
			return []agent.Output{{Kind: agent.OutSync, Step: "sync-fork"}, o}
		}
		return []agent.Output{o}
	}
	return w
}

// newFreshLiveIDOnRetry answers a retry from the binding with the original
// messageId, as it must, but also announces the prompt live as a user_message
// under a new id, as an Agent would that echoes every accepted prompt before
// it looks the key up: every Client on the session shows the input twice,
// and the history, which holds it once, never tells them otherwise.
func newFreshLiveIDOnRetry(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	t := newKeyTracker()
	prompts := map[reqRef][]acp.ContentBlock{}
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		if p, _, ok := promptOf(m); ok {
			prompts[reqRef{conn, m.ID}] = p.Prompt
		}
		return t.in(conn, m, frame)
	}
	w.out = func(o agent.Output) []agent.Output {
		var ref reqRef
		if r, ok := responseOf(o); ok {
			ref = reqRef{o.Conn, r.ID}
		}
		blocks := prompts[ref]
		delete(prompts, ref)
		sk, _, _, ok := t.answered(o)
		if !ok || o.Step != "respond-from-binding" {
			return []agent.Output{o}
		}
		u := acp.MessageUpdate(acp.UpdateUserMessage, env.NewID(), acp.PromptText(blocks))
		return []agent.Output{o, {Kind: agent.OutSend, Step: "update-user-message", Conn: o.Conn, Frame: acp.UpdateFrame(sk[0], u)}}
	}
	return w
}
