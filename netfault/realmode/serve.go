package realmode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault"
)

// Path is the one endpoint of an Agent that serves remote Clients: Streamable
// HTTP (POST, GET with SSE, DELETE) and WebSocket (GET with Upgrade).
const Path = "/acp"

// Headers of the remote transport.
const (
	HeaderConnection = "Acp-Connection-Id"
	HeaderSession    = "Acp-Session-Id"
)

// URL is the endpoint of an Agent serving on addr, e.g.
// http://127.0.0.1:7070/acp; a WebSocket Client dials the same with ws://.
func URL(addr net.Addr) string { return "http://" + addr.String() + Path }

// Limits and timeouts of the server. They bound what a Client that stops
// reading can cost: a stream whose Client does not keep up breaks (its
// events are lost, as the model's stream-break), it never blocks the Agent.
const (
	maxBody       = 16 << 20         // a POST body or a WebSocket message
	maxQueued     = 4096             // frames waiting on one stream or WebSocket
	writeTimeout  = 10 * time.Second // one write to a stream or a WebSocket
	initTimeout   = 30 * time.Second // initialize's answer, the body of its 200
	shutdownGrace = 5 * time.Second  // in-flight requests at a stop
)

// Serve runs m as an Agent process serving ACP v2 on l, at Path, over
// Streamable HTTP and WebSocket (plain HTTP/1.1: no TLS, no h2c). Every
// connection of either kind feeds the one loop that owns m, exactly as
// ServeStdio's pipe does, and the failpoints of FailpointPrefix apply.
//
// Serve returns nil when ctx is done (an orderly stop: SSE streams and
// WebSockets end after writing what was queued, in-flight requests finish),
// a *FailpointError when the Agent stopped at an enabled failpoint (what was
// queued before the point is written; requests waiting on the Agent are cut
// off without an answer, as by a kill), or the listener's error. l is
// closed when Serve returns.
//
// The HTTP side behaves as netfault.HTTPLink models it: initialize (no
// Acp-Connection-Id) is answered 200 with the Agent's response as the body
// and the new connection's id in the header; every other POST is answered
// 202 once the Agent has read it, and the Agent's frames go on SSE streams:
// a response to a session-scoped request (params.sessionId, method not in
// netfault.ConnectionStreamMethods) on that session's stream, other
// responses on the connection stream, other frames on the stream of their
// params.sessionId. A frame whose stream is not open is lost.
func Serve(ctx context.Context, m agent.Machine, st store.Store, l net.Listener) error {
	h := newHost(m, st)
	sctx, stopStreams := context.WithCancel(context.Background())
	defer stopStreams()
	s := &server{h: h, ctx: sctx, conns: map[string]peer{}}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(l) }()
	ran := make(chan error, 1)
	go func() { ran <- h.run(s) }()

	var err error
	loopDone, serveDone := false, false
	select {
	case err = <-ran:
		loopDone = true
	case e := <-served:
		serveDone = true
		err = fmt.Errorf("serving on %s: %w", l.Addr(), e)
	case <-ctx.Done():
	}
	// Streams and WebSockets end first (each writes what it has queued);
	// then the listener closes and in-flight requests finish, with the loop
	// still running when the stop is orderly.
	stopStreams()
	if !serveDone {
		grace, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		if hs.Shutdown(grace) != nil {
			_ = hs.Close()
		}
		cancel()
		<-served
	}
	s.closeAndWait() // handlers http.Server no longer tracks: WebSockets, or after Close
	if !loopDone {
		h.feed(input{kind: inStop})
		if e := <-ran; err == nil {
			err = e
		}
	}
	return err
}

// server is the /acp endpoint of one Agent process.
type server struct {
	h   *host
	ctx context.Context // done when the server stops: streams and WebSockets end

	mu       sync.Mutex
	conns    map[string]peer // live connections by Acp-Connection-Id
	closed   bool            // no handler may start any more
	handlers sync.WaitGroup
}

// peer is the Agent's end of one live connection.
type peer interface {
	// deliver takes a frame the Agent wrote to the connection. Called from
	// the loop: it must not block.
	deliver(frame []byte)
}

// send implements sink: a frame for a connection that is gone is lost.
func (s *server) send(conn string, frame []byte) error {
	if p := s.peer(conn); p != nil {
		p.deliver(frame)
	}
	return nil
}

// flush implements sink: frames are queued per stream, written by the
// stream's own goroutine.
func (s *server) flush() error { return nil }

func (s *server) peer(id string) peer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[id]
}

func (s *server) add(id string, p peer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns[id] = p
}

// remove forgets p; false if it was already gone.
func (s *server) remove(id string, p peer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns[id] != p {
		return false
	}
	delete(s.conns, id)
	return true
}

// closeAndWait waits for every handler to return; none starts after.
func (s *server) closeAndWait() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.handlers.Wait()
}

func (s *server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// ServeHTTP serves Path.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "the Agent is stopping", http.StatusServiceUnavailable)
		return
	}
	defer s.handlers.Done()
	if r.URL.Path != Path {
		http.NotFound(w, r)
		return
	}
	switch {
	case r.Method == http.MethodGet && websocket.IsWebSocketUpgrade(r):
		s.serveWS(w, r)
	case r.Method == http.MethodPost:
		s.post(w, r)
	case r.Method == http.MethodGet:
		s.get(w, r)
	case r.Method == http.MethodDelete:
		s.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// killed is the answer to a request the Agent stopped before answering: no
// answer at all, the connection cut, as when the process is killed.
func killed() { panic(http.ErrAbortHandler) }

// httpConn looks up the connection a request names: 400 without the
// header, 404 when it is not a live HTTP connection.
func (s *server) httpConn(w http.ResponseWriter, r *http.Request) *httpPeer {
	id := r.Header.Get(HeaderConnection)
	if id == "" {
		http.Error(w, "missing "+HeaderConnection, http.StatusBadRequest)
		return nil
	}
	p, _ := s.peer(id).(*httpPeer)
	if p == nil {
		http.Error(w, "unknown connection "+id, http.StatusNotFound)
		return nil
	}
	return p
}

// post is POST /acp: one Client frame.
func (s *server) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		}
		return // otherwise the Client went away mid-body
	}
	batch, msg, session := netfault.Peek(body)
	switch {
	case batch:
		http.Error(w, "JSON-RPC batches are not supported over Streamable HTTP", http.StatusNotImplemented)
		return
	case msg.Method == acp.MethodInitialize:
		s.initialize(w, r, body, msg)
		return
	}
	p := s.httpConn(w, r)
	if p == nil {
		return
	}
	switch hdr := r.Header.Get(HeaderSession); {
	case hdr != "" && session != "" && hdr != session:
		http.Error(w, HeaderSession+" "+hdr+" does not match params.sessionId "+session, http.StatusBadRequest)
		return
	case hdr == "" && sessionScoped(msg, session):
		http.Error(w, "a session-scoped message needs "+HeaderSession, http.StatusBadRequest)
		return
	}
	if msg.Kind() == acp.KindRequest {
		p.expect(msg.ID, session, msg.Method)
	}
	done := make(chan struct{})
	if !s.h.feed(input{kind: inFrame, conn: p.id, frame: body, done: done}) {
		killed()
	}
	select {
	case <-done: // the Agent has read it
		w.WriteHeader(http.StatusAccepted)
	case <-s.h.done:
		killed()
	case <-r.Context().Done():
	}
}

// sessionScoped reports whether a Client message belongs to a session's
// stream: it names a session and its response is not one of those the
// connection stream carries.
func sessionScoped(msg acp.Message, session string) bool {
	return session != "" && msg.Method != "" && !netfault.ConnectionStreamMethods[msg.Method]
}

// initialize is POST /acp of an initialize: it creates a connection, and
// its 200 carries the Agent's response. A connection header is ignored: an
// initialize always starts a new connection.
func (s *server) initialize(w http.ResponseWriter, r *http.Request, body []byte, msg acp.Message) {
	if msg.Kind() != acp.KindRequest {
		http.Error(w, "initialize must be a request", http.StatusBadRequest)
		return
	}
	p := &httpPeer{s: s, id: uuid.NewString(), reqs: map[acp.ID]route{}, streams: map[string]*outbox{}, initID: msg.ID, init: make(chan []byte, 1)}
	s.add(p.id, p)
	if !s.h.feed(input{kind: inConnect, conn: p.id}) || !s.h.feed(input{kind: inFrame, conn: p.id, frame: body}) {
		killed()
	}
	timeout := time.NewTimer(initTimeout)
	defer timeout.Stop()
	select {
	case resp := <-p.init:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(HeaderConnection, p.id)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(resp)
	case <-s.h.done:
		killed()
	case <-timeout.C:
		p.end()
		http.Error(w, "the Agent did not answer initialize", http.StatusGatewayTimeout)
	case <-r.Context().Done():
		p.end() // nobody will learn the connection's id
	}
}

// get is GET /acp without Upgrade: an SSE stream, of the connection or,
// with Acp-Session-Id, of that session. Any session may be named: a
// session/resume's replay travels on the session's stream, so the Client
// opens it before the session is active on the connection. Opening a stream
// that is open replaces it (the Client believes the old one broken).
func (s *server) get(w http.ResponseWriter, r *http.Request) {
	if !acceptsEventStream(r.Header.Values("Accept")) {
		http.Error(w, "Accept must include text/event-stream", http.StatusNotAcceptable)
		return
	}
	p := s.httpConn(w, r)
	if p == nil {
		return
	}
	session := r.Header.Get(HeaderSession)
	box := p.openStream(session)
	if box == nil {
		http.Error(w, "unknown connection "+p.id, http.StatusNotFound)
		return
	}
	defer p.closeStream(session, box)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set(HeaderConnection, p.id)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	stopping := s.ctx.Done()
	for {
		frames, open := box.take()
		if len(frames) > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			for _, f := range frames {
				if _, err := fmt.Fprintf(w, "data: %s\n\n", f); err != nil {
					return
				}
			}
			if rc.Flush() != nil {
				return
			}
		}
		if !open {
			return
		}
		select {
		case <-box.wake:
		case <-r.Context().Done():
			return // the Client went away
		case <-stopping:
			box.close() // write what is queued, then end
			stopping = nil
		}
	}
}

func acceptsEventStream(accept []string) bool {
	for _, a := range accept {
		for _, part := range strings.Split(a, ",") {
			if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && (mt == "text/event-stream" || mt == "*/*" || mt == "text/*") {
				return true
			}
		}
	}
	return false
}

// delete is DELETE /acp: the connection and its streams end, and the Agent
// hears it disconnect.
func (s *server) delete(w http.ResponseWriter, r *http.Request) {
	p := s.httpConn(w, r)
	if p == nil {
		return
	}
	p.end()
	w.WriteHeader(http.StatusAccepted)
}

// httpPeer is one Streamable HTTP connection.
type httpPeer struct {
	s  *server
	id string

	mu      sync.Mutex
	reqs    map[acp.ID]route   // Client requests awaiting a response
	streams map[string]*outbox // open SSE streams; "" is the connection stream
	initID  acp.ID             // the initialize whose response is the 200's body
	init    chan []byte
	gone    bool
}

// route is where the response to a Client request goes.
type route struct{ session, method string }

func (p *httpPeer) expect(id acp.ID, session, method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs[id] = route{session, method}
}

// deliver puts an Agent frame on its stream, as netfault.HTTPLink.FromAgent
// chooses it.
func (p *httpPeer) deliver(frame []byte) {
	batch, msg, key := netfault.Peek(frame)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !batch && msg.Kind() == acp.KindResponse {
		if p.initID != "" && msg.ID == p.initID {
			p.initID = ""
			p.init <- frame
			return
		}
		r, ok := p.reqs[msg.ID]
		delete(p.reqs, msg.ID)
		key = ""
		if ok && !netfault.ConnectionStreamMethods[r.method] {
			key = r.session
		}
	}
	if box := p.streams[key]; box != nil {
		if !box.put(frame) {
			delete(p.streams, key) // it broke: the Client reopens it
		}
	}
}

// openStream registers a new SSE stream, ending the one it replaces; nil
// when the connection has ended meanwhile.
func (p *httpPeer) openStream(session string) *outbox {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		return nil
	}
	if old := p.streams[session]; old != nil {
		old.close()
	}
	box := newOutbox()
	p.streams[session] = box
	return box
}

func (p *httpPeer) closeStream(session string, box *outbox) {
	p.mu.Lock()
	defer p.mu.Unlock()
	box.close()
	if p.streams[session] == box {
		delete(p.streams, session)
	}
}

// end ends the connection: its streams close (events queued on them are
// lost) and the Agent hears it disconnect.
func (p *httpPeer) end() {
	if !p.s.remove(p.id, p) {
		return
	}
	p.mu.Lock()
	p.gone = true
	for _, box := range p.streams {
		box.discard()
	}
	p.streams = nil
	p.mu.Unlock()
	p.s.h.feed(input{kind: inDisconnect, conn: p.id})
}

// outbox is the frames waiting for one stream's writer goroutine: the loop
// queues without waiting on the network.
type outbox struct {
	mu     sync.Mutex
	q      [][]byte
	closed bool
	wake   chan struct{} // a put or a close happened
}

func newOutbox() *outbox { return &outbox{wake: make(chan struct{}, 1)} }

func (b *outbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// put queues f; false when the outbox is closed, or has just been closed
// because its reader does not keep up (what it held is lost).
func (b *outbox) put(f []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	if len(b.q) >= maxQueued {
		b.closed, b.q = true, nil
		b.signal()
		return false
	}
	b.q = append(b.q, f)
	b.signal()
	return true
}

// close stops the outbox; what it holds is still taken.
func (b *outbox) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.signal()
}

// discard closes the outbox and drops what it holds.
func (b *outbox) discard() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed, b.q = true, nil
	b.signal()
}

// take returns what is queued, and false once the outbox is closed.
func (b *outbox) take() ([][]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.q
	b.q = nil
	return q, !b.closed
}
