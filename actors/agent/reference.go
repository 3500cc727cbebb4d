package agent

import (
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/sim"
)

// Reference is the name of the reference Agent.
const Reference = "reference"

func init() {
	Register(Reference, "the reference Agent: every rule of the RFD", func(k Knobs, open StoreOpener, env Env) Machine {
		st := open()
		if k.Keys == KeysMemory {
			st = InMemoryBindings(st)
		}
		return New(k, st, env)
	})
}

// Agent is the reference Agent: sessions, one user message inserted per
// prompt, idempotency keys honoured per the RFD, and the session, the message
// and the key binding written to the store in one batch before the response.
type Agent struct {
	knobs Knobs
	st    store.Store
	env   Env

	conns    map[string]*connState
	sessions map[string]*session
	timers   map[int]string // timer id → session id
	batches  map[waiter]*batchReply
	nextTmr  int
	out      []Output
	// strat stores user messages and recognizes keys for a model that
	// reuses this protocol handling (the adapter); nil is the reference's
	// own store batch with a key binding.
	strat strategy
	begun bool // the process has had its first input
}

// strategy is how a model built on the reference Agent's protocol handling
// stores a user message and recognizes a key it was inserted with.
type strategy interface {
	// recognized returns the messageId the key of session s was inserted
	// with and the step that answers it, if the strategy knows it.
	recognized(s *session, key string) (messageID, step string, ok bool)
	// submit stores the user message of h (appending its outputs to a.out)
	// and returns it.
	submit(s *session, h *heldPrompt) store.Message
	// history is what a resume replays and a fork copies.
	history(s *session) []store.Message
	// started is the first input of the process: the strategy may set a
	// timer (it has the next timer id).
	started(timerID int) []Output
	// defer queues a request the strategy is not ready to serve yet; ready
	// returns the queued ones when timer id fires (ok: it was its timer).
	defer_(conn string, m *acp.Message) bool
	ready(id int) (queued []queuedPrompt, ok bool)
}

// queuedPrompt is a prompt request a strategy put aside.
type queuedPrompt struct {
	conn string
	m    acp.Message
}

// historyOf is the stored history of s: the reference's own, or the
// strategy's.
func (a *Agent) historyOf(s *session) []store.Message {
	if a.strat != nil {
		return a.strat.history(s)
	}
	return s.history
}

type session struct {
	rec     store.Session
	conn    string // the connection it is active on, "" if none
	history []store.Message
	state   string
	// work in progress
	chunksLeft int
	agentMsg   string
	agentText  string
	timer      int
	held       []*heldPrompt
	pending    map[string]*heldPrompt // key → held prompt carrying it
	// liveKeys binds the keys of live-only messages while the session stays
	// active on conn; deactivating the session forgets them.
	liveKeys map[string]string
}

// activate makes the session active on conn. Moving it to another
// connection (or to none) ends the life of its live-only keys.
func (s *session) activate(conn string) {
	if s.conn != conn {
		s.liveKeys = nil
	}
	s.conn = conn
}

// heldPrompt is a prompt not inserted yet; reqs are every request waiting
// for its outcome (the original and the keyed retries).
type heldPrompt struct {
	key     string
	hasKey  bool
	text    string
	prompt  []acp.ContentBlock
	waiters []waiter
}

type waiter struct {
	conn string
	id   acp.ID
}

// New starts a reference Agent process over st; sessions, messages and
// bindings that st kept are loaded, every session inactive and idle.
func New(k Knobs, st store.Store, env Env) *Agent {
	a := &Agent{knobs: k, st: st, env: env, conns: map[string]*connState{}, sessions: map[string]*session{}, timers: map[int]string{}, batches: map[waiter]*batchReply{}}
	for _, rec := range st.Sessions() {
		a.sessions[rec.ID] = &session{rec: rec, history: st.Messages(rec.ID), state: acp.StateIdle, pending: map[string]*heldPrompt{}}
	}
	return a
}

func (a *Agent) flush() []Output {
	out := a.out
	a.out = nil
	return out
}

func (a *Agent) send(conn, step string, frame []byte) {
	a.out = append(a.out, Output{Kind: OutSend, Step: step, Conn: conn, Frame: frame})
}

func (a *Agent) update(s *session, step string, u acp.Update) {
	if s.conn == "" {
		return // no connection to tell: live updates are lost, replay recovers them
	}
	a.send(s.conn, step, acp.UpdateFrame(s.rec.ID, u))
}

// connState is what the Agent knows of one connection.
type connState struct {
	initialized bool
	loggedIn    bool
}

// Connect implements Machine.
func (a *Agent) Connect(conn string) []Output {
	a.conns[conn] = &connState{}
	if a.strat != nil && !a.begun {
		a.begun = true
		a.nextTmr++
		return a.strat.started(a.nextTmr)
	}
	return nil
}

// Disconnect implements Machine: the connection's sessions stop being active
// (their work continues); its held prompts lose their waiters and a held
// prompt nobody waits for is dropped, leaving its key unused.
func (a *Agent) Disconnect(conn string) []Output {
	delete(a.conns, conn)
	for ref := range a.batches { // deleting only: the order cannot show
		if ref.conn == conn {
			delete(a.batches, ref)
		}
	}
	for _, s := range a.sortedSessions() {
		if s.conn == conn {
			s.activate("")
		}
		kept := s.held[:0]
		for _, h := range s.held {
			h.waiters = dropWaiters(h.waiters, conn)
			if len(h.waiters) > 0 || a.knobs.HeldOnDisconnect == HeldKeep {
				kept = append(kept, h)
			} else if h.hasKey {
				delete(s.pending, h.key) // dropped: the key is unused again
			}
		}
		s.held = kept
	}
	return a.flush()
}

func dropWaiters(ws []waiter, conn string) []waiter {
	out := ws[:0]
	for _, w := range ws {
		if w.conn != conn {
			out = append(out, w)
		}
	}
	return out
}

// sortedSessions lists sessions in creation order, never in map order.
func (a *Agent) sortedSessions() []*session {
	out := make([]*session, 0, len(a.sessions))
	for _, rec := range a.st.Sessions() {
		if s, ok := a.sessions[rec.ID]; ok {
			out = append(out, s)
		}
	}
	return out
}

// Receive implements Machine.
func (a *Agent) Receive(conn string, frame []byte) []Output {
	line := acp.ParseLine(frame)
	if !line.Batch {
		a.handle(conn, line.Entries[0])
		return a.flush()
	}
	// A batch is answered with one array holding a response for each of its
	// requests (and for each invalid entry), sent when the last one is
	// answered; a batch of notifications gets nothing back.
	b := &batchReply{conn: conn, waiting: map[acp.ID]bool{}}
	for _, e := range line.Entries {
		if e.Err == nil && e.Msg.Kind() == acp.KindRequest && !b.waiting[e.Msg.ID] {
			b.waiting[e.Msg.ID] = true
			a.batches[waiter{conn, e.Msg.ID}] = b
		}
	}
	for _, e := range line.Entries {
		if e.Err != nil {
			b.frames = append(b.frames, acp.ErrorResponse(e.ErrID, e.Err))
			continue
		}
		a.handle(conn, e)
	}
	a.finishBatch(b)
	return a.flush()
}

// batchReply collects the responses to one batch.
type batchReply struct {
	conn    string
	waiting map[acp.ID]bool
	frames  [][]byte
}

func (a *Agent) finishBatch(b *batchReply) {
	if len(b.waiting) > 0 || len(b.frames) == 0 {
		return
	}
	out := []byte{'['}
	for i, f := range b.frames {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, f...)
	}
	a.send(b.conn, "respond-batch", append(out, ']'))
}

// respond sends the response to request id on conn, or adds it to the
// batch the request came in.
func (a *Agent) respond(conn string, id acp.ID, step string, frame []byte) {
	ref := waiter{conn, id}
	b := a.batches[ref]
	if b == nil {
		a.send(conn, step, frame)
		return
	}
	delete(a.batches, ref)
	delete(b.waiting, id)
	b.frames = append(b.frames, frame)
	a.finishBatch(b)
}

func (a *Agent) reply(conn string, id acp.ID, step string, result any) {
	a.respond(conn, id, step, acp.Result(id, result))
}

func (a *Agent) fail(conn string, id acp.ID, e *acp.Error) {
	a.respond(conn, id, "respond-error", acp.ErrorResponse(id, e))
}

func (a *Agent) handle(conn string, p acp.Parsed) {
	if p.Err != nil {
		a.fail(conn, p.ErrID, p.Err)
		return
	}
	m := &p.Msg
	switch m.Kind() {
	case acp.KindResponse:
		return // the reference Agent sends no requests; stray responses are ignored
	case acp.KindNotification:
		a.notification(conn, m)
		return
	}
	if a.strat != nil && a.strat.defer_(conn, m) {
		return
	}
	h, ok := requestHandlers[m.Method]
	if !ok {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeMethodNotFound, "method not found: %s", m.Method))
		return
	}
	cs := a.conns[conn]
	if cs == nil { // a frame on a connection nobody announced: serve it as a fresh one
		cs = &connState{}
		a.conns[conn] = cs
	}
	if m.Method != acp.MethodInitialize && !cs.initialized {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInvalidRequest, "invalid request: %s before initialize", m.Method))
		return
	}
	if a.knobs.Auth == AuthRequired && !cs.loggedIn && needsAuth[m.Method] {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeAuthRequired, "authentication required"))
		return
	}
	h(a, conn, m)
}

// Methods lists the requests and notifications the reference Agent serves,
// sorted; other methods get -32601.
func Methods() []string {
	out := []string{acp.MethodCancelRequest, acp.MethodSessionCancel}
	for m := range requestHandlers {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// requestHandlers is the method table of the reference Agent.
var requestHandlers = map[string]func(a *Agent, conn string, m *acp.Message){
	acp.MethodInitialize:    (*Agent).initialize,
	acp.MethodAuthLogin:     (*Agent).login,
	acp.MethodAuthLogout:    (*Agent).logout,
	acp.MethodSessionNew:    (*Agent).newSession,
	acp.MethodSessionResume: (*Agent).resume,
	acp.MethodSessionList:   (*Agent).list,
	acp.MethodSessionClose:  (*Agent).closeSession,
	acp.MethodSessionDelete: (*Agent).deleteSession,
	acp.MethodSessionFork:   (*Agent).fork,
	acp.MethodSessionPrompt: (*Agent).prompt,
}

// needsAuth are the methods an Agent with Auth "required" serves only after
// auth/login on the connection.
var needsAuth = map[string]bool{
	acp.MethodSessionNew: true, acp.MethodSessionResume: true, acp.MethodSessionList: true,
	acp.MethodSessionClose: true, acp.MethodSessionDelete: true, acp.MethodSessionFork: true,
	acp.MethodSessionPrompt: true,
}

// authMethod is the one method an Agent with Auth "required" offers.
var authMethod = acp.AuthMethod{Type: "agent", MethodID: "token", Name: "Token"}

func (a *Agent) notification(conn string, m *acp.Message) {
	if cs := a.conns[conn]; a.knobs.Auth == AuthRequired && m.Method == acp.MethodSessionCancel && (cs == nil || !cs.loggedIn) {
		return // logged out: session methods, notifications too, wait for auth/login
	}
	switch m.Method {
	case acp.MethodCancelRequest:
		var p acp.CancelRequestParams
		if acp.DecodeParams(m.Params, &p) == nil {
			a.cancelRequest(conn, p.RequestID)
		}
	case acp.MethodSessionCancel:
		var p acp.SessionParams
		if acp.DecodeParams(m.Params, &p) == nil {
			if s := a.active(conn, p.SessionID); s != nil {
				a.cancelSession(s)
			}
		}
	}
}

func (a *Agent) initialize(conn string, m *acp.Message) {
	var p acp.InitializeParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	if p.ProtocolVersion < acp.ProtocolVersion { // no version at or below the requested one
		a.fail(conn, m.ID, acp.UnsupportedVersion(p.ProtocolVersion))
		return
	}
	a.conns[conn].initialized = true
	res := acp.InitializeResult{
		ProtocolVersion: acp.ProtocolVersion,
		Info:            acp.Implementation{Name: "acpsim-reference", Version: "0"},
		Capabilities:    acp.AgentCapabilities{Session: &acp.SessionCapabilities{Delete: &struct{}{}, Fork: &struct{}{}}},
	}
	if a.knobs.Auth == AuthRequired {
		res.AuthMethods = []acp.AuthMethod{authMethod}
	}
	a.reply(conn, m.ID, "respond-initialize", res)
}

func (a *Agent) login(conn string, m *acp.Message) {
	var p acp.LoginParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	if p.MethodID != authMethod.MethodID {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInvalidParams, "invalid params: unknown auth method %q", p.MethodID))
		return
	}
	a.conns[conn].loggedIn = true
	a.reply(conn, m.ID, "respond-login", struct{}{})
}

// logout ends the connection's login; its sessions stay active but every
// session method answers -32000 until the next auth/login.
func (a *Agent) logout(conn string, m *acp.Message) {
	a.conns[conn].loggedIn = false
	a.reply(conn, m.ID, "respond-logout", struct{}{})
}

func (a *Agent) newSession(conn string, m *acp.Message) {
	var p acp.NewSessionParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
		a.fail(conn, m.ID, e)
		return
	}
	rec := store.Session{ID: a.env.NewID(), Cwd: p.Cwd}
	if err := a.st.Commit(store.Batch{Sessions: []store.Session{rec}}); err != nil {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInternalError, "store: %v", err))
		return
	}
	a.sessions[rec.ID] = &session{rec: rec, conn: conn, state: acp.StateIdle, pending: map[string]*heldPrompt{}}
	a.out = append(a.out, Output{Kind: OutSync, Step: "sync-session"})
	a.reply(conn, m.ID, "respond-session-new", acp.NewSessionResult{SessionID: rec.ID})
}

// session returns the session, reading it from the store when this process
// has not seen it: another node sharing the store may have created it.
func (a *Agent) session(id string) *session {
	if s := a.sessions[id]; s != nil {
		return s
	}
	for _, rec := range a.st.Sessions() {
		if rec.ID == id {
			s := &session{rec: rec, history: a.st.Messages(id), state: acp.StateIdle, pending: map[string]*heldPrompt{}}
			a.sessions[id] = s
			return s
		}
	}
	return nil
}

// active returns the session if it is active on conn.
func (a *Agent) active(conn, id string) *session {
	s := a.sessions[id]
	if s == nil || s.conn != conn {
		return nil
	}
	return s
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
		s.history = a.st.Messages(s.rec.ID)
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
		a.respond(w.conn, w.id, "respond-cancelled", acp.ErrorResponse(w.id, acp.Errorf(acp.CodeRequestCancelled, "request cancelled: %s", why)))
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

func (a *Agent) prompt(conn string, m *acp.Message) {
	var p acp.PromptParams
	if e := acp.DecodeParams(m.Params, &p); e != nil {
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
		if a.strat != nil {
			if id, step, ok := a.strat.recognized(s, key); ok {
				a.reply(conn, m.ID, step, acp.PromptResult{MessageID: id})
				return
			}
		}
		if b, ok := a.st.Binding(s.rec.ID, key); ok {
			if a.knobs.Compare == CompareReject && b.Prompt != text {
				a.fail(conn, m.ID, acp.Errorf(acp.CodeInvalidParams, "invalid params: idempotencyKey was used for a different prompt"))
				return
			}
			// A retry gets the original messageId and nothing else.
			a.reply(conn, m.ID, "respond-from-binding", acp.PromptResult{MessageID: b.MessageID})
			return
		}
		if h := s.pending[key]; h != nil {
			if a.knobs.Compare == CompareReject && h.text != text {
				a.fail(conn, m.ID, acp.Errorf(acp.CodeInvalidParams, "invalid params: idempotencyKey was used for a different prompt"))
				return
			}
			h.waiters = append(h.waiters, waiter{conn, m.ID})
			return
		}
	}

	if a.env.Choose(sim.Decision{Kind: "reject", Site: a.env.Name + "/prompt/" + conn + "/" + string(m.ID), N: 2}) != 0 {
		a.fail(conn, m.ID, acp.Errorf(acp.CodeInternalError, "internal error: transient failure before insertion"))
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
	msg := store.Message{Session: s.rec.ID, ID: a.env.NewID(), Role: store.RoleUser, Text: h.text, Content: content, Key: h.key}
	b := store.Batch{Sessions: []store.Session{s.rec}, Messages: []store.Message{msg}}
	if h.hasKey {
		b.Bindings = []store.Binding{{Session: s.rec.ID, Key: h.key, MessageID: msg.ID, Prompt: h.text}}
		delete(s.pending, h.key)
	}
	if err := a.st.Commit(b); err != nil {
		var be *store.BoundError
		if errors.As(err, &be) { // another process bound the key first: this is a retry
			for _, w := range h.waiters {
				a.respond(w.conn, w.id, "respond-from-binding", acp.Result(w.id, acp.PromptResult{MessageID: be.Existing.MessageID}))
			}
			return
		}
		for _, w := range h.waiters {
			a.respond(w.conn, w.id, "respond-error", acp.ErrorResponse(w.id, acp.Errorf(acp.CodeInternalError, "store: %v", err)))
		}
		return
	}
	s.history = append(s.history, msg)
	a.out = append(a.out,
		Output{Kind: OutInsert, Step: "inserted", Session: s.rec.ID, MessageID: msg.ID, Text: msg.Text},
		Output{Kind: OutSync, Step: "sync-insert"})
	a.applyRetention(s)
	a.started(s, h, msg)
}

// started answers every waiter of h with the messageId of msg, echoes the
// user message and starts (or, at a breakpoint, extends) the work.
func (a *Agent) started(s *session, h *heldPrompt, msg store.Message) {
	for _, w := range h.waiters {
		a.respond(w.conn, w.id, "respond-prompt", acp.Result(w.id, acp.PromptResult{MessageID: msg.ID}))
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
		a.respond(w.conn, w.id, "respond-prompt", acp.Result(w.id, acp.PromptResult{MessageID: msg.ID}))
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
	kept := s.history[:0]
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
	s.history = kept
	if len(forget) > 0 && a.st.Commit(store.Batch{Forget: forget}) == nil {
		a.out = append(a.out, Output{Kind: OutSync, Step: "sync-forget"})
	}
}

// messageUpdate is the whole-message update of a stored message: the user's
// content blocks as sent, or the agent's text.
func messageUpdate(m store.Message) acp.Update {
	if m.Role == store.RoleAgent {
		return acp.MessageUpdate(acp.UpdateAgentMessage, m.ID, m.Text)
	}
	if m.Content != nil {
		return acp.Update{Kind: acp.UpdateUserMessage, MessageID: m.ID, Content: m.Content}
	}
	return acp.MessageUpdate(acp.UpdateUserMessage, m.ID, m.Text)
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
		if a.st.Commit(store.Batch{Messages: []store.Message{msg}}) == nil {
			s.history = append(s.history, msg)
			a.out = append(a.out, Output{Kind: OutSync, Step: "sync-agent-message"})
		}
		s.agentText = ""
	}
	s.state = acp.StateIdle
	a.update(s, "update-idle", acp.StateUpdate(acp.StateIdle, stop))
	// Insert held prompts until one starts work: one answered from another
	// process's binding, or failed, must not leave the rest waiting.
	for len(s.held) > 0 && s.state == acp.StateIdle {
		h := s.held[0]
		s.held = s.held[1:]
		a.insert(s, h)
	}
}
