// This file holds the reference Agent's running work: the timer that
// streams the agent message chunk by chunk, the end of a turn (which inserts
// the next held prompt), and cancelling held prompts and work.

package agent

import (
	"strconv"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent/store"
)

// cancelSession answers every held prompt with -32800 (their keys stay
// unused) and stops the running work with stopReason cancelled.
func (a *Agent) cancelSession(s *session) {
	for _, h := range s.held {
		a.withdraw(s, h, "cancelled by session/cancel")
	}
	s.held = nil
	if s.state == acp.StateRunning {
		a.finishWork(s, "cancelled")
	}
}

func (a *Agent) withdraw(s *session, h *heldPrompt, why string) {
	for _, w := range h.waiters {
		a.failStep(w.conn, w.id, "respond-cancelled", acp.Errorf(acp.CodeRequestCancelled, "request cancelled: %s", why))
	}
	if h.hasKey {
		delete(s.pending, h.key)
	}
}

func (a *Agent) cancelRequest(conn string, id acp.ID) {
	for _, s := range a.sortedSessions() {
		for i, h := range s.held {
			for _, w := range h.waiters {
				if w.conn == conn && w.id == id {
					a.withdraw(s, h, "cancelled by $/cancel_request")
					s.held = append(s.held[:i], s.held[i+1:]...)
					return
				}
			}
		}
	}
	// Not pending (already answered or unknown): a late cancel is ignored.
}

func (a *Agent) setTimer(s *session) {
	a.nextTmr++
	s.timer = a.nextTmr
	a.timers[s.timer] = s.rec.ID
	a.out = append(a.out, Output{Kind: OutTimer, Step: "work", After: a.knobs.ChunkEvery, ID: s.timer})
}

// Timer implements Machine: one chunk of work.
func (a *Agent) Timer(id int) []Output {
	if a.strat != nil {
		if queued, ok := a.strat.ready(id); ok {
			for _, q := range queued {
				if a.conns[q.conn] != nil { // the connection is still there
					a.handle(q.conn, acp.Parsed{Msg: q.m})
				}
			}
			return a.flush()
		}
	}
	if b, ok := a.windows[id]; ok { // key-window: the key's time is up
		delete(a.windows, id)
		if a.st.Commit(store.Batch{Unbind: []store.Binding{b}}) == nil {
			a.out = append(a.out, Output{Kind: OutSync, Step: "sync-unbind"})
		}
		return a.flush()
	}
	sid, ok := a.timers[id]
	delete(a.timers, id)
	s := a.sessions[sid]
	if !ok || s == nil || s.timer != id || s.state != acp.StateRunning {
		return nil
	}
	s.chunksLeft--
	chunk := "chunk " + strconv.Itoa(len(s.agentText)/8) + ". "
	s.agentText += chunk
	a.update(s, "update-chunk", acp.ChunkUpdate(acp.UpdateAgentMessageChunk, s.agentMsg, chunk))
	if s.chunksLeft > 0 {
		a.setTimer(s)
		return a.flush()
	}
	a.finishWork(s, "end_turn")
	return a.flush()
}

// finishWork stores the agent message, reports idle and inserts the next
// held prompt, if any.
func (a *Agent) finishWork(s *session, stop string) {
	s.timer = 0
	if s.agentText != "" {
		msg := store.Message{Session: s.rec.ID, ID: s.agentMsg, Role: store.RoleAgent, Text: s.agentText}
		current := a.current(s)
		if a.st.Commit(store.Batch{Messages: []store.Message{msg}}) == nil {
			a.appendHistory(s, msg, current)
			a.out = append(a.out, Output{Kind: OutSync, Step: "sync-agent-message"})
		}
		s.agentText = ""
	}
	if len(s.unbound) > 0 { // binding=after-turn: the keys, at last
		if a.st.Commit(store.Batch{Bindings: s.unbound}) == nil {
			a.out = append(a.out, Output{Kind: OutSync, Step: "sync-bindings"})
		}
		s.unbound = nil
	}
	s.state = acp.StateIdle
	a.update(s, "update-idle", acp.StateUpdate(acp.StateIdle, stop))
	if a.knobs.Protocol != ProtocolV2 {
		// Whether or not a connection hears the idle update: a v1
		// prompt is answered when its turn ends.
		a.out = append(a.out, Output{Kind: OutTurnEnd, Step: "turn-end", Session: s.rec.ID, Text: stop})
	}
	// Insert held prompts until one starts work: one answered from another
	// process's binding, or failed, must not leave the rest waiting.
	for len(s.held) > 0 && s.state == acp.StateIdle {
		h := s.held[0]
		s.held = s.held[1:]
		a.insert(s, h)
	}
}
