// This file holds the reference Agent's session/prompt: checking the request,
// answering a retry from its key binding, holding or rejecting a prompt while
// the session is busy, inserting the user message with its binding in one
// batch, live-only commands and message retention.

package agent

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/sim"
)

func (a *Agent) prompt(conn string, m *acp.Message) {
	var p acp.PromptParams
	if e := a.promptParams(m, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	key, hasKey, kerr := p.Key()
	if kerr != nil {
		a.fail(conn, m.ID, kerr)
		return
	}
	if len(p.Prompt) == 0 {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInvalidParams, "invalid params: prompt must not be empty"))
		return
	}
	for _, b := range p.Prompt {
		if b.Type != "text" && b.Type != "resource_link" {
			a.fail(conn, m.ID, acp.Errorf(acp.CodeInvalidParams, "invalid params: unsupported content block type %q", b.Type))
			return
		}
	}
	s := a.active(conn, p.SessionID)
	if s == nil {
		a.fail(conn, m.ID, acp.SessionNotFound(p.SessionID))
		return
	}
	text := acp.PromptText(p.Prompt)
	if hasKey {
		if id, ok := s.liveKeys[key]; ok {
			a.reply(conn, m.ID, "respond-from-binding", acp.PromptResult{MessageID: id})
			return
		}
		for _, b := range s.unbound { // binding=after-turn: known to this process only
			if b.Key == key {
				a.reply(conn, m.ID, "respond-from-binding", acp.PromptResult{MessageID: b.MessageID})
				return
			}
		}
		if a.strat != nil {
			if id, step, ok := a.strat.recognized(s, key); ok {
				a.reply(conn, m.ID, step, acp.PromptResult{MessageID: id})
				return
			}
		}
		if b, ok := a.st.Binding(s.rec.ID, key); ok {
			if b.Prompt != text && a.knobs.Compare != CompareRetry {
				a.fail(conn, m.ID, a.keyReused())
				return
			}
			// A retry gets the original messageId and nothing else.
			a.reply(conn, m.ID, "respond-from-binding", acp.PromptResult{MessageID: b.MessageID})
			return
		}
		if h := s.pending[key]; h != nil {
			if h.text != text && a.knobs.Compare != CompareRetry {
				a.fail(conn, m.ID, a.keyReused())
				return
			}
			if a.knobs.InProgress == InProgressConflict { // the 409 alternative: the Client polls
				a.fail(conn, m.ID, acp.Errorf(acp.CodeInternalError, "internal error: a prompt with this idempotencyKey is in progress; send it again later"))
				return
			}
			h.waiters = append(h.waiters, waiter{conn, m.ID})
			return
		}
	}

	// Asked only of a prompt no binding or pending prompt answers: an
	// error to a retry of a recorded key would tell the Client "not
	// inserted" about a message that is.
	if site := a.env.Name + "/prompt/" + conn + "/" + string(m.ID); a.env.Choose(sim.Decision{Kind: "reject", Site: site, N: 2}) != 0 {
		a.fail(conn, m.ID, a.rejection(site))
		return
	}
	h := &heldPrompt{key: key, hasKey: hasKey, text: text, prompt: p.Prompt, waiters: []waiter{{conn, m.ID}}}
	if a.knobs.LiveOnly != "" && strings.HasPrefix(text, a.knobs.LiveOnly) {
		a.handleLocally(s, h)
		return
	}
	if s.state == acp.StateRunning && a.knobs.Busy == BusyReject {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInternalError, "internal error: the session is busy; send the prompt again when it is idle"))
		return
	}
	if s.state == acp.StateRunning && a.knobs.Busy == BusyHold {
		s.held = append(s.held, h)
		if hasKey {
			s.pending[key] = h
		}
		return
	}
	a.insert(s, h)
}

// keyReused is the answer to a recorded key sent with a different prompt:
// -32602 (the RFD), or under compare=error a dedicated code.
func (a *Agent) keyReused() *acp.Error {
	if a.knobs.Compare == CompareError {
		return &acp.Error{Code: CodeKeyReused, Message: "idempotencyKey already used for a different prompt"}
	}
	return acp.Errorf(acp.CodeInvalidParams, "invalid params: idempotencyKey was used for a different prompt")
}

// rejections are the errors a transient rejection answers, each one the v2
// schema allows for a prompt the Agent did not insert: -32603 and a code of
// the schema's "Other" kind, which a Client cannot know and must read as a
// plain error. The first is the simulator's. Not -32800, which the schema
// also allows ("aborted ... because of resource constraints"): beside a
// user's cancel of another prompt it reads as that cancel landing on the
// wrong one (stray-cancel), and a check must not blame its own Agent.
var rejections = []struct {
	code int
	text string
}{
	{acp.CodeInternalError, "internal error: transient failure before insertion"},
	{429, "too many requests: the prompt was not inserted; send it again later"},
}

func (a *Agent) rejection(site string) *acp.Error {
	i := 0
	if a.env.Draw != nil {
		i = a.env.Draw("reject-error\x00"+site, len(rejections))
	}
	return &acp.Error{Code: rejections[i].code, Message: rejections[i].text}
}

// insert writes the session, the message and the key binding in one batch,
// syncs, answers every waiter with the messageId, echoes the user message and
// starts (or, at a breakpoint, extends) the work.
func (a *Agent) insert(s *session, h *heldPrompt) {
	if a.strat != nil {
		if h.hasKey {
			delete(s.pending, h.key)
		}
		a.started(s, h, a.strat.submit(s, h))
		return
	}
	content, _ := json.Marshal(h.prompt)
	id := a.env.NewID()
	if h.hasKey && a.knobs.MessageIDs == MessageIDsKey {
		id = h.key // the Client-chosen messageId alternative
	}
	msg := store.Message{Session: s.rec.ID, ID: id, Role: store.RoleUser, Text: h.text, Content: content, Key: h.key}
	b := store.Batch{Sessions: []store.Session{s.rec}, Messages: []store.Message{msg}}
	if h.hasKey {
		bind := store.Binding{Session: s.rec.ID, Key: h.key, MessageID: msg.ID, Prompt: h.text}
		if a.knobs.Binding == BindingAfterTurn {
			s.unbound = append(s.unbound, bind) // written when the turn ends
		} else {
			b.Bindings = []store.Binding{bind}
		}
		delete(s.pending, h.key)
	}
	current := a.current(s)
	if err := a.st.Commit(b); err != nil {
		var be *store.BoundError
		if errors.As(err, &be) { // another process bound the key first: this is a retry
			for _, w := range h.waiters {
				a.reply(w.conn, w.id, "respond-from-binding", acp.PromptResult{MessageID: be.Existing.MessageID})
			}
			return
		}
		for _, w := range h.waiters {
			a.fail(w.conn, w.id, acp.Errorf(acp.CodeInternalError, "store: %v", err))
		}
		return
	}
	a.appendHistory(s, msg, current)
	a.out = append(a.out,
		Output{Kind: OutInsert, Step: "inserted", Session: s.rec.ID, MessageID: msg.ID, Text: msg.Text},
		Output{Kind: OutSync, Step: "sync-insert"})
	if h.hasKey && a.knobs.KeyWindow > 0 {
		if a.windows == nil {
			a.windows = map[int]store.Binding{}
		}
		a.nextTmr++
		a.windows[a.nextTmr] = store.Binding{Session: s.rec.ID, Key: h.key}
		a.out = append(a.out, Output{Kind: OutTimer, Step: "key-window", After: a.knobs.KeyWindow, ID: a.nextTmr})
	}
	a.applyRetention(s)
	a.started(s, h, msg)
}

// started answers every waiter of h with the messageId of msg, echoes the
// user message and starts (or, at a breakpoint, extends) the work.
func (a *Agent) started(s *session, h *heldPrompt, msg store.Message) {
	for _, w := range h.waiters {
		a.reply(w.conn, w.id, "respond-prompt", acp.PromptResult{MessageID: msg.ID})
	}
	a.update(s, "update-user-message", messageUpdate(msg))
	if s.state == acp.StateRunning { // breakpoint: the running work takes the message in
		s.chunksLeft += a.knobs.Chunks
		return
	}
	s.state = acp.StateRunning
	s.chunksLeft = a.knobs.Chunks
	s.agentMsg = a.env.NewID()
	s.agentText = ""
	a.update(s, "update-running", acp.StateUpdate(acp.StateRunning, ""))
	a.setTimer(s)
}

// handleLocally answers a live-only command at once, busy or not: the user
// message is echoed with a messageId but never stored, so it is not replayed
// and its key lives only while the session stays active on this connection.
func (a *Agent) handleLocally(s *session, h *heldPrompt) {
	content, _ := json.Marshal(h.prompt)
	msg := store.Message{Session: s.rec.ID, ID: a.env.NewID(), Role: store.RoleUser, Text: h.text, Content: content}
	if h.hasKey {
		if s.liveKeys == nil {
			s.liveKeys = map[string]string{}
		}
		s.liveKeys[h.key] = msg.ID
	}
	a.out = append(a.out, Output{Kind: OutInsert, Step: "inserted-live", Session: s.rec.ID, MessageID: msg.ID, Text: msg.Text})
	for _, w := range h.waiters {
		a.reply(w.conn, w.id, "respond-prompt", acp.PromptResult{MessageID: msg.ID})
	}
	a.update(s, "update-user-message", messageUpdate(msg))
}

// applyRetention discards the oldest user messages beyond the Retain
// newest, with their key bindings: a resend of such a key is a new
// submission, as the RFD allows once the Agent no longer has the message.
func (a *Agent) applyRetention(s *session) {
	if a.knobs.Retain == 0 {
		return
	}
	users := 0
	for _, m := range s.history {
		if m.Role == store.RoleUser {
			users++
		}
	}
	// A discarded user message takes the agent's replies to it along.
	var forget []store.Message
	kept := make([]store.Message, 0, len(s.history)) // the history may be the store's (Store.Messages)
	dropping := false
	for _, m := range s.history {
		if m.Role == store.RoleUser {
			dropping = users > a.knobs.Retain
			if dropping {
				users--
			}
		}
		if dropping {
			forget = append(forget, m)
			continue
		}
		kept = append(kept, m)
	}
	s.history, s.stamped = kept, false // the next resume compares it with the store
	if len(forget) > 0 && a.st.Commit(store.Batch{Forget: forget}) == nil {
		a.out = append(a.out, Output{Kind: OutSync, Step: "sync-forget"})
	}
}

// promptParams reads m's params into p: from the digest of its frame when
// it came with one (ReceiveDigest) that gives them, else from the bytes.
func (a *Agent) promptParams(m *acp.Message, p *acp.PromptParams) *acp.Error {
	if a.digest != nil && a.digest.PromptParams(p) {
		return nil
	}
	return acp.DecodePromptParams(m.Params, p)
}

// messageUpdate is the whole-message update of a stored message: the user's
// content blocks as sent, or the agent's text.
func messageUpdate(m store.Message) acp.Update {
	if m.Role == store.RoleAgent {
		return acp.MessageUpdate(acp.UpdateAgentMessage, m.ID, m.Text)
	}
	if m.Content != nil {
		return acp.ContentUpdate(acp.UpdateUserMessage, m.ID, m.Content, m.Text)
	}
	return acp.MessageUpdate(acp.UpdateUserMessage, m.ID, m.Text)
}
