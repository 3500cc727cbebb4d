// The HTTP handlers of Remote's endpoint: dispatch by method, and the
// Streamable HTTP requests (POST of a frame or an initialize, GET of an SSE
// stream, DELETE of a connection).

package serve

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
)

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
	id := r.Header.Get(netfault.HeaderConnection)
	if id == "" {
		http.Error(w, "missing "+netfault.HeaderConnection, http.StatusBadRequest)
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
			return
		}
		// Broken chunked encoding, or fewer bytes than Content-Length: no
		// frame to take. A Client gone away mid-body does not read this;
		// one that only ended its side does, and must not see a success.
		http.Error(w, "incomplete or malformed body: "+err.Error(), http.StatusBadRequest)
		return
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
	switch hdr := r.Header.Get(netfault.HeaderSession); {
	case hdr != "" && session != "" && hdr != session:
		http.Error(w, netfault.HeaderSession+" "+hdr+" does not match params.sessionId "+session, http.StatusBadRequest)
		return
	case hdr == "" && sessionScoped(msg, session):
		http.Error(w, "a session-scoped message needs "+netfault.HeaderSession, http.StatusBadRequest)
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
	p := &httpPeer{s: s, id: uuid.NewString(), reqs: map[acp.ID]route{}, streams: map[string]*outbox{}, read: map[string]bool{}, initID: msg.ID, init: make(chan []byte, 1)}
	s.add(p.id, p)
	if !s.h.feed(input{kind: inConnect, conn: p.id}) || !s.h.feed(input{kind: inFrame, conn: p.id, frame: body}) {
		killed()
	}
	timeout := time.NewTimer(initTimeout)
	defer timeout.Stop()
	select {
	case resp := <-p.init:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(netfault.HeaderConnection, p.id)
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
	session := r.Header.Get(netfault.HeaderSession)
	box := p.openStream(session)
	if box == nil {
		http.Error(w, "unknown connection "+p.id, http.StatusNotFound)
		return
	}
	defer p.closeStream(session, box)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set(netfault.HeaderConnection, p.id)
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
