// This file holds the reference Agent's session methods: session/new,
// session/resume (with replay), session/list, session/close, session/delete
// and session/fork.

package agent

import (
	"slices"
	"strconv"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent/store"
)

func (a *Agent) newSession(conn string, m *acp.Message) {
	var p acp.NewSessionParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	if s := a.createdFor(p.IdempotencyKey); s != nil {
		s.activate(conn)
		a.reply(conn, m.ID, "respond-session-new", acp.NewSessionResult{SessionID: s.rec.ID})
		return
	}
	rec := store.Session{ID: a.env.NewID(), Cwd: p.Cwd}
	b := store.Batch{Sessions: []store.Session{rec}}
	if p.IdempotencyKey != "" && a.knobs.CreateKeys == CreateKeysStore {
		b.Bindings = []store.Binding{{Session: createScope, Key: p.IdempotencyKey, MessageID: rec.ID, Prompt: acp.MethodSessionNew}}
	}
	if err := a.st.Commit(b); err != nil {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInternalError, "store: %v", err))
		return
	}
	if p.IdempotencyKey != "" && a.knobs.CreateKeys == CreateKeysMemory {
		if a.createKeys == nil {
			a.createKeys = map[string]string{}
		}
		a.createKeys[p.IdempotencyKey] = rec.ID
	}
	a.sessions[rec.ID] = &session{rec: rec, conn: conn, state: acp.StateIdle, pending: map[string]*heldPrompt{}}
	a.out = append(a.out, Output{Kind: OutSync, Step: "sync-session"})
	a.reply(conn, m.ID, "respond-session-new", acp.NewSessionResult{SessionID: rec.ID})
}

// createScope is the store's session of session/new's key bindings: no
// session's id, so that a creation key and a prompt key never meet.
const createScope = ""

// createdFor is the session a session/new with key made before, under the
// create-keys knob, if this process still has it (a session kept in the
// memory of a process that ended is gone with its key's promise).
func (a *Agent) createdFor(key string) *session {
	if key == "" {
		return nil
	}
	var id string
	switch a.knobs.CreateKeys {
	case CreateKeysStore:
		if b, ok := a.st.Binding(createScope, key); ok {
			id = b.MessageID
		}
	case CreateKeysMemory:
		id = a.createKeys[key]
	}
	if id == "" {
		return nil
	}
	return a.session(id)
}

func (a *Agent) resume(conn string, m *acp.Message) {
	var p acp.ResumeSessionParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	if p.ReplayFrom != nil && p.ReplayFrom.Type != acp.ReplayStart {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInvalidParams, "invalid params: unknown replayFrom type %q", p.ReplayFrom.Type))
		return
	}
	s := a.session(p.SessionID)
	if s == nil {
		a.fail(conn, m.ID, acp.SessionNotFound(p.SessionID))
		return
	}
	s.activate(conn)
	if s.state == acp.StateIdle {
		// Another node sharing the store may have added to it since this
		// process read it; idle, nothing of ours is unwritten.
		if !a.current(s) {
			if fresh := a.st.Messages(s.rec.ID); !sameHistory(fresh, s.history) {
				s.history = fresh
			}
			s.stamp, s.stamped = a.version(s.rec.ID)
		}
	}
	if p.ReplayFrom != nil {
		for _, msg := range a.historyOf(s) {
			a.update(s, "replay", messageUpdate(msg))
		}
	}
	a.update(s, "resume-snapshot", acp.StateUpdate(s.state, ""))
	a.reply(conn, m.ID, "respond-resume", struct{}{})
}

// listPage is how many sessions one session/list page holds.
const listPage = 50

func (a *Agent) list(conn string, m *acp.Message) {
	var p acp.ListSessionsParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			a.fail(conn, m.ID, acp.Errorf(acp.CodeInvalidParams, "invalid params: unknown cursor %q", *p.Cursor))
			return
		}
		start = n
	}
	res := acp.ListSessionsResult{Sessions: []acp.SessionInfo{}}
	all := a.st.Sessions()
	for i := start; i < len(all) && len(res.Sessions) < listPage; i++ {
		if p.Cwd != nil && *p.Cwd != all[i].Cwd {
			continue
		}
		res.Sessions = append(res.Sessions, acp.SessionInfo{SessionID: all[i].ID, Cwd: all[i].Cwd})
		if len(res.Sessions) == listPage && i+1 < len(all) {
			next := strconv.Itoa(i + 1)
			res.NextCursor = &next
		}
	}
	a.reply(conn, m.ID, "respond-list", res)
}

func (a *Agent) closeSession(conn string, m *acp.Message) {
	var p acp.SessionParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	s := a.active(conn, p.SessionID)
	if s == nil {
		if a.knobs.CloseMissing == CloseError {
			a.fail(conn, m.ID, acp.SessionNotFound(p.SessionID))
			return
		}
		a.reply(conn, m.ID, "respond-close", struct{}{})
		return
	}
	a.cancelSession(s)
	s.activate("")
	a.reply(conn, m.ID, "respond-close", struct{}{})
}

// deleteSession removes a session with its messages and key bindings; held
// prompts are answered -32800. Deleting an unknown session succeeds.
func (a *Agent) deleteSession(conn string, m *acp.Message) {
	var p acp.SessionParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	if s := a.session(p.SessionID); s != nil {
		a.cancelSession(s)
		if err := a.st.Commit(store.Batch{Delete: []string{p.SessionID}}); err != nil {
			a.fail(conn, m.ID, acp.Errorf(acp.CodeInternalError, "store: %v", err))
			return
		}
		delete(a.sessions, p.SessionID)
		a.out = append(a.out, Output{Kind: OutSync, Step: "sync-delete"})
	}
	a.reply(conn, m.ID, "respond-delete", struct{}{})
}

// fork makes a new session holding a copy of the parent's history under new
// message ids. The copy inherits no key bindings: a key names a submission
// of one session only.
func (a *Agent) fork(conn string, m *acp.Message) {
	var p acp.ForkSessionParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	parent := a.session(p.SessionID)
	if parent == nil {
		a.fail(conn, m.ID, acp.SessionNotFound(p.SessionID))
		return
	}
	rec := store.Session{ID: a.env.NewID(), Cwd: p.Cwd}
	b := store.Batch{Sessions: []store.Session{rec}}
	for _, msg := range a.historyOf(parent) {
		// The copy keeps no key: a fork inherits no bindings, and forgetting
		// a copy must not drop a binding the fork made itself.
		msg.Session, msg.ID, msg.Key = rec.ID, a.env.NewID(), ""
		b.Messages = append(b.Messages, msg)
	}
	if err := a.st.Commit(b); err != nil {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInternalError, "store: %v", err))
		return
	}
	a.sessions[rec.ID] = &session{rec: rec, conn: conn, history: slices.Clone(b.Messages), state: acp.StateIdle, pending: map[string]*heldPrompt{}}
	a.out = append(a.out, Output{Kind: OutSync, Step: "sync-fork"})
	a.reply(conn, m.ID, "respond-fork", acp.NewSessionResult{SessionID: rec.ID})
}

// sameHistory reports whether a session's stored messages are still the
// ones a process holds. Stored messages have unique ids and are never
// changed in place, so equal id lists mean equal histories. A length and a
// last id are not enough: another process's retention, or a session deleted
// and written again (the lost-writes mutant), leaves both as they were with
// other messages before them. Keeping the process's own slice spares copying
// the whole history at the next insertion (the store's comes clipped), which
// every resume of a long session did.
// versioned is a store that stamps each session's messages (store.Disk).
type versioned interface{ Version(session string) uint64 }

// version is the store's stamp of a session's messages, if it has stamps.
func (a *Agent) version(id string) (uint64, bool) {
	if v, ok := a.st.(versioned); ok {
		return v.Version(id), true
	}
	return 0, false
}

// loadHistory reads s's history from the store and notes its stamp.
func (a *Agent) loadHistory(s *session) {
	s.history = a.st.Messages(s.rec.ID)
	s.stamp, s.stamped = a.version(s.rec.ID)
}

// current reports whether s.history is known to equal the stored messages
// without reading them: a resume of a long session compared all of them,
// and the first append after loading copied all of them, on every restart.
func (a *Agent) current(s *session) bool {
	v, ok := a.version(s.rec.ID)
	return ok && s.stamped && v == s.stamp
}

// appendHistory adds msg, just committed to the store, to s.history. If the
// history was current before the commit, the store now holds exactly it and
// msg, so the store's slice is taken as is rather than copied.
func (a *Agent) appendHistory(s *session, msg store.Message, wasCurrent bool) {
	if wasCurrent {
		a.loadHistory(s)
		return
	}
	s.history = append(s.history, msg)
}

func sameHistory(stored, held []store.Message) bool {
	return slices.EqualFunc(stored, held, func(a, b store.Message) bool { return a.ID == b.ID })
}
