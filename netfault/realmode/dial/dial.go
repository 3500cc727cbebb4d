package dial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"
)

// Options tune a remote Conn.
type Options struct {
	// Timeout bounds each POST and DELETE, the wait for an SSE stream's
	// response headers, the WebSocket handshake and each WebSocket write.
	// Zero means DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout is Options.Timeout when it is zero.
const DefaultTimeout = 10 * time.Second

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// closeTimeout bounds what Close still does on the network (DELETE, the
// WebSocket close frame): Close does not wait for it, but Frames closes only
// after it.
const closeTimeout = 2 * time.Second

// maxBody bounds what a Conn reads of one answer: a response body or a
// WebSocket message (16 MiB, as much as the Agent reads of one request).
const maxBody = 16 << 20

// ErrClosed is the Err of a Conn its Client closed.
var ErrClosed = errors.New("connection closed by the Client")

// Remote connects to the remote Agent endpoint u (as serve.URL prints it)
// and returns the connection: Streamable HTTP for http:// and https:// (see
// HTTP), WebSocket for ws:// and wss:// (see WS).
func Remote(ctx context.Context, u string, opts Options) (Conn, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	switch pu.Scheme {
	case "http", "https":
		return HTTP(ctx, u, opts)
	case "ws", "wss":
		return WS(ctx, u, opts)
	}
	return nil, fmt.Errorf("dial %s: scheme must be http, https, ws or wss", u)
}

// Reachable waits, for at most wait, until something accepts a TCP
// connection at the host and port of the remote endpoint u; it sends
// nothing. Dialing Streamable HTTP does no I/O, so without it a closed port
// shows only as every request failing, case after case.
func Reachable(u string, wait time.Duration) error {
	pu, err := url.Parse(u)
	if err != nil {
		return err
	}
	addr := pu.Host
	if pu.Port() == "" {
		port := "80"
		if pu.Scheme == "https" || pu.Scheme == "wss" {
			port = "443"
		}
		addr = net.JoinHostPort(pu.Hostname(), port)
	}
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("tcp", addr, wait)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// life is what every remote Conn shares: the goroutines it started, the
// queue behind Frames, and why it ended.
//
// Producers push frames without blocking; one pump goroutine hands them to
// Frames in push order. When the connection ends by itself, the pump first
// delivers what was pushed; after Close it drops it. Frames is closed once
// every goroutine of the Conn has returned.
type life struct {
	frames  chan []byte
	ctx     context.Context // done when the connection has ended
	cancel  context.CancelFunc
	ended   chan struct{}
	aborted chan struct{} // Close: undelivered frames are dropped
	workers sync.WaitGroup
	// last runs once every worker has returned, before Frames closes.
	last func()

	mu        sync.Mutex
	q         [][]byte
	wake      chan struct{}
	err       error
	abortOnce sync.Once
}

func newLife(last func()) *life {
	ctx, cancel := context.WithCancel(context.Background())
	l := &life{frames: make(chan []byte), ctx: ctx, cancel: cancel, ended: make(chan struct{}), aborted: make(chan struct{}),
		wake: make(chan struct{}, 1), last: last}
	go l.pump()
	return l
}

// push queues a frame for Frames.
func (l *life) push(f []byte) {
	l.mu.Lock()
	l.q = append(l.q, f)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// spawn runs f on a goroutine of the Conn; false (f not run) once the
// connection has ended.
func (l *life) spawn(f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return false
	}
	l.workers.Add(1)
	go func() {
		defer l.workers.Done()
		f()
	}()
	return true
}

// end ends the connection with err; only the first call counts.
func (l *life) end(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	l.err = err
	close(l.ended)
	l.cancel()
}

func (l *life) abort() { l.abortOnce.Do(func() { close(l.aborted) }) }

func (l *life) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *life) Frames() <-chan []byte { return l.frames }

func (l *life) pump() {
	defer close(l.frames)
	finished := false
	finish := func() {
		if finished {
			return
		}
		finished = true
		l.workers.Wait()
		if l.last != nil {
			l.last()
		}
	}
	ended := l.ended
	for {
		l.mu.Lock()
		q := l.q
		l.q = nil
		l.mu.Unlock()
		for _, f := range q {
			select {
			case l.frames <- f:
			case <-l.aborted:
				finish()
				return
			}
		}
		if len(q) > 0 {
			continue
		}
		if ended == nil { // ended, every worker gone, everything delivered
			return
		}
		select {
		case <-l.wake:
		case <-ended:
			finish()
			ended = nil // one more pass delivers what the workers pushed last
		case <-l.aborted:
			<-l.ended
			finish()
			return
		}
	}
}
