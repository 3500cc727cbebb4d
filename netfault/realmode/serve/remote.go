// acpsim agent over the network: Remote, which runs an Agent on a listener,
// its orderly and failpoint stops, and the server's registry of live
// connections (peers) the Agent's frames are sent to.

package serve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
)

// Path is the one endpoint of an Agent that serves remote Clients: Streamable
// HTTP (POST, GET with SSE, DELETE) and WebSocket (GET with Upgrade).
const Path = "/acp"

// URL is the endpoint of an Agent serving on addr, e.g.
// http://127.0.0.1:7070/acp; a WebSocket Client dials the same with ws://.
func URL(addr net.Addr) string { return "http://" + addr.String() + Path }

// Limits and timeouts of the server. They bound what a Client that stops
// reading can cost: a stream whose Client does not keep up breaks (its
// events are lost, as the model's stream-break), it never blocks the Agent.
const (
	maxBody   = 16 << 20 // a POST body or a WebSocket message
	maxQueued = 4096     // frames waiting on one stream or WebSocket
	// streams of one HTTP connection, open or holding frames for their
	// first GET: past it, a stream not yet opened holds nothing. At worst
	// a Client that opens none holds 64 × maxQueued frames until each
	// stream overflows and loses them, as a stream whose reader stalls.
	maxWaitingStreams = 64
	writeTimeout      = 10 * time.Second // one write to a stream or a WebSocket
	initTimeout       = 30 * time.Second // initialize's answer, the body of its 200
	shutdownGrace     = 5 * time.Second  // in-flight requests at a stop
)

// Remote runs m as an Agent process serving ACP v2 on l, at Path, over
// Streamable HTTP and WebSocket (plain HTTP/1.1: no TLS, no h2c), with the
// headers netfault.HeaderConnection and netfault.HeaderSession. Every
// connection of either kind feeds the one loop that owns m, exactly as
// Stdio's pipe does, and the failpoints of FailpointPrefix apply.
//
// Remote returns nil when ctx is done (an orderly stop: SSE streams and
// WebSockets end after writing what was queued, in-flight requests finish),
// a *FailpointError when the Agent stopped at an enabled failpoint (what was
// queued before the point is written; requests waiting on the Agent are cut
// off without an answer, as by a kill), or the listener's error. l is
// closed when Remote returns.
//
// The HTTP side behaves as netfault.HTTPLink models it: initialize (no
// Acp-Connection-Id) is answered 200 with the Agent's response as the body
// and the new connection's id in the header; every other POST is answered
// 202 once the Agent has read it, and the Agent's frames go on SSE streams:
// a response to a session-scoped request (params.sessionId, method not in
// netfault.ConnectionStreamMethods) on that session's stream, other
// responses on the connection stream, other frames on the stream of their
// params.sessionId. A frame whose stream is not open is lost.
func Remote(ctx context.Context, m agent.Machine, st store.Store, l net.Listener) error {
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
