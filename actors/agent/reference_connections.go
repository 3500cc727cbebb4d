// This file holds the reference Agent's connection handling: connections
// opening and ending, frames and batches coming in and responses going out,
// the method table with its initialize and auth/login gate, and the
// notifications ($/cancel_request, session/cancel).

package agent

import (
	"sort"

	"github.com/acpsim/acpsim/actors/acp"
)

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

// ReceiveDigest implements DigestReceiver: a request laid out as the
// encoder writes it is read from its digest (acp.Digest.Message), with no
// copy of the frame and no scan of it.
func (a *Agent) ReceiveDigest(conn string, frame []byte, d *acp.Digest) []Output {
	if m, ok := d.Message(frame); ok {
		a.handle(conn, acp.Parsed{Msg: m, Digest: d})
		return a.flush()
	}
	return a.Receive(conn, frame)
}

// Receive implements Machine.
func (a *Agent) Receive(conn string, frame []byte) []Output {
	line := acp.ParseLine(frame)
	if !line.Batch {
		a.handle(conn, line.Entries[0])
		return a.flush()
	}
	// A batch is answered with one array holding a response for each of its
	// requests (and for each invalid entry), sent once the last one is
	// answered and not before every entry was read: a request answered at
	// once must not send the array ahead of the entries after it. A batch of
	// notifications gets nothing back.
	b := &batchReply{conn: conn, waiting: map[acp.ID]int{}, reading: true}
	for _, e := range line.Entries {
		if e.Err == nil && e.Msg.Kind() == acp.KindRequest {
			ref := waiter{conn, e.Msg.ID}
			b.waiting[e.Msg.ID]++
			a.batches[ref] = append(a.batches[ref], b)
		}
	}
	for _, e := range line.Entries {
		if e.Err != nil {
			b.frames = append(b.frames, acp.ErrorResponse(e.ErrID, e.Err))
			continue
		}
		a.handle(conn, e)
	}
	b.reading = false
	a.finishBatch(b)
	return a.flush()
}

// batchReply collects the responses to one batch.
type batchReply struct {
	conn string
	// waiting counts the batch's unanswered requests by id: a Client may
	// reuse an id within a batch, and each request is still answered once.
	waiting map[acp.ID]int
	frames  [][]byte
	reading bool // Receive is still going through the entries
}

func (a *Agent) finishBatch(b *batchReply) {
	if b.reading || len(b.waiting) > 0 || len(b.frames) == 0 {
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
// batch the request came in. When batches on conn wait on the same id (the
// Client reused it) the oldest takes the response, so each waits for as
// many responses as it holds requests of that id. d is what the frame says
// (acp.Digest), which a batch's frame does not keep.
func (a *Agent) respond(conn string, id acp.ID, step string, frame []byte, d acp.Digest) {
	ref := waiter{conn, id}
	queue := a.batches[ref]
	if len(queue) == 0 {
		a.sendDigest(conn, step, frame, d)
		return
	}
	b := queue[0]
	if len(queue) == 1 {
		delete(a.batches, ref)
	} else {
		a.batches[ref] = queue[1:]
	}
	if b.waiting[id]--; b.waiting[id] == 0 {
		delete(b.waiting, id)
	}
	b.frames = append(b.frames, frame)
	a.finishBatch(b)
}

func (a *Agent) reply(conn string, id acp.ID, step string, result any) {
	frame, d := acp.ResultDigest(id, result)
	a.respond(conn, id, step, frame, d)
}

func (a *Agent) fail(conn string, id acp.ID, e *acp.Error) {
	a.failStep(conn, id, "respond-error", e)
}

// failStep is fail at a protocol step of its own.
func (a *Agent) failStep(conn string, id acp.ID, step string, e *acp.Error) {
	frame, d := acp.ErrorDigest(id, e)
	a.respond(conn, id, step, frame, d)
}

func (a *Agent) handle(conn string, p acp.Parsed) {
	if p.Err != nil {
		// Not through respond: an entry the codec refused is no request a
		// batch waits on, whatever id it carried.
		a.send(conn, "respond-error", acp.ErrorResponse(p.ErrID, p.Err))
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
	// The digest goes with the one message it describes, for as long as
	// its handler runs: a message deferred and handled later is read from
	// its bytes.
	a.digest = p.Digest
	h(a, conn, m)
	a.digest = nil
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
