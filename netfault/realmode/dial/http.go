package dial

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
)

// maxReopen is how many times in a row an SSE stream that broke or could
// not be opened is tried again before the Conn gives up on it.
const maxReopen = 3

// httpConn is a Streamable HTTP connection, as the simulator's Client side
// of netfault.HTTPLink does it (sim/world/http.go).
type httpConn struct {
	*life
	url       string
	timeout   time.Duration
	transport *http.Transport
	client    *http.Client // POST and DELETE: bounded by the timeout
	streamer  *http.Client // SSE streams: open as long as the connection
	closeOnce sync.Once

	mu      sync.Mutex
	id      string                   // Acp-Connection-Id, "" before initialize's 200
	streams map[string]*clientStream // "" is the connection stream
	asked   map[acp.ID]string        // the Agent's requests on a session's stream, by id
}

// clientStream is one SSE stream the Conn keeps open.
type clientStream struct {
	ready chan struct{} // closed once its first GET has been answered
	err   error         // why that GET failed
}

// HTTP returns a Streamable HTTP connection to the Agent endpoint u
// (http://HOST:PORT/acp). Nothing is sent yet: the connection exists once
// the first Send, which must be an initialize, is answered 200; its body
// (the initialize response) comes through Frames, and Name is the
// Acp-Connection-Id from then on ("" before).
//
// The Conn then POSTs every frame with the connection header, and with
// Acp-Session-Id for every message whose params name a session (and for
// the answer to a request the Agent wrote on a session's stream); 200 and
// 202 are success, any
// other status is a *StatusError, and 404 also ends the Conn (the Agent
// no longer knows the connection). It keeps SSE streams open as an HTTP
// client library would: the connection's after initialize, and a
// session's before the first frame naming it is POSTed and before a
// response creating it (session/new, session/fork) is delivered, so
// nothing on it is lost for want of a stream. A stream that breaks is
// reopened (up to maxReopen failures in a row; for the connection stream,
// then the Conn ends, as it does when that stream cannot be opened right
// after initialize). Events of one stream come through Frames in order;
// streams interleave. Cookies the Agent sets are kept for the Conn's life.
// Close sends DELETE without waiting for it. ctx is not used: HTTP
// does no I/O.
func HTTP(ctx context.Context, u string, opts Options) (Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	t := opts.timeout()
	// A Transport of its own: its idle connections are closed when the
	// Conn ends, so no goroutine of net/http outlives it.
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: t}).DialContext,
		ResponseHeaderTimeout: t,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       time.Minute,
	}
	c := &httpConn{url: u, timeout: t, transport: tr, streams: map[string]*clientStream{},
		client:   &http.Client{Transport: tr, Jar: jar, Timeout: t},
		streamer: &http.Client{Transport: tr, Jar: jar},
	}
	c.life = newLife(tr.CloseIdleConnections)
	return c, nil
}

func (c *httpConn) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id
}

func (c *httpConn) Send(frame []byte) error {
	if err := c.Err(); err != nil {
		return fmt.Errorf("connection ended: %w", err)
	}
	// A POST finishing after the Conn ended returns its connection to the
	// idle pool after the last cleanup: close it again.
	defer func() {
		if c.Err() != nil {
			c.transport.CloseIdleConnections()
		}
	}()
	batch, msg, session := netfault.Peek(frame)
	if !batch && msg.Method == acp.MethodInitialize {
		return c.initialize(frame)
	}
	if session != "" {
		// Its response, a resume's replay and the session's updates travel
		// on the session's stream: open it before the Agent can write.
		_ = c.openStream(session)
	}
	hdr := http.Header{}
	if id := c.Name(); id != "" {
		hdr.Set(netfault.HeaderConnection, id)
	}
	switch {
	case !batch && session != "" && msg.Method != "":
		// Every message naming a session carries its header, session/resume
		// and session/fork too: the SDK's AcpServer refuses them without it
		// (400), and a server that answers them on the connection stream
		// needs it for nothing.
		hdr.Set(netfault.HeaderSession, session)
	case !batch && msg.Kind() == acp.KindResponse:
		// An answer to a request the Agent wrote on a session's stream goes
		// back with that session's header (the SDK requires it).
		if s := c.askedOn(msg.ID); s != "" {
			hdr.Set(netfault.HeaderSession, s)
		}
	}
	status, _, body, err := c.post(frame, hdr)
	switch {
	case err != nil:
		return err
	case status == http.StatusOK || status == http.StatusAccepted:
		return nil
	}
	serr := &StatusError{Code: status, Body: body}
	if status == http.StatusNotFound && c.Name() != "" {
		c.end(serr) // the Agent no longer knows this connection
	}
	return serr
}

// initialize POSTs an initialize without a connection header: its 200
// creates the connection.
func (c *httpConn) initialize(frame []byte) error {
	if c.Name() != "" {
		return errors.New("initialize on a live HTTP connection: a Conn is one connection, Dial another")
	}
	status, hdr, body, err := c.post(frame, http.Header{})
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return &StatusError{Code: status, Body: body}
	}
	id := hdr.Get(netfault.HeaderConnection)
	if id == "" {
		err := fmt.Errorf("initialize answered 200 without %s", netfault.HeaderConnection)
		c.end(err)
		return err
	}
	c.mu.Lock()
	c.id = id
	c.mu.Unlock()
	// The connection stream carries the responses to session/new and the
	// like: it is open before the Client can send them.
	err = c.openStream("")
	c.push([]byte(body))
	if err != nil {
		c.end(fmt.Errorf("opening the connection stream: %w", err))
	}
	return nil
}

// post sends one POST; body is the answer's body (trimmed, at most 64 KiB
// read: initialize's response, or an error text).
func (c *httpConn) post(frame []byte, hdr http.Header) (status int, rh http.Header, body string, err error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(frame))
	if err != nil {
		return 0, nil, "", err
	}
	req.Header = hdr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return 0, nil, "", fmt.Errorf("reading the answer to a POST: %w", err)
	}
	return resp.StatusCode, resp.Header, strings.TrimSpace(string(b)), nil
}

// openStream makes sure the stream of session ("" the connection's) is
// open, opening it if needed, and returns once its GET has been answered.
func (c *httpConn) openStream(session string) error {
	c.mu.Lock()
	st := c.streams[session]
	if st == nil {
		st = &clientStream{ready: make(chan struct{})}
		if !c.spawn(func() { c.runStream(session, st) }) {
			c.mu.Unlock()
			return c.Err()
		}
		c.streams[session] = st
	}
	c.mu.Unlock()
	select {
	case <-st.ready:
		return st.err
	case <-c.ended:
		return c.Err()
	}
}

// runStream keeps one SSE stream open and delivers its events, until the
// Conn ends or the stream cannot be opened any more.
func (c *httpConn) runStream(session string, st *clientStream) {
	first := true
	answered := func(err error) {
		if first {
			first = false
			st.err = err
			close(st.ready)
		}
	}
	for failures := 0; ; {
		body, err := c.get(session)
		if err == nil {
			failures = 0
			answered(nil)
			c.readEvents(session, body)
			body.Close()
		}
		if c.ctx.Err() != nil {
			answered(c.Err())
			return
		}
		if err != nil {
			// Whoever waits for the stream learns of the first failure
			// (a Send goes on with its POST); the retries go on here.
			answered(err)
			failures++
			var se *StatusError
			if gone := errors.As(err, &se) && se.Code == http.StatusNotFound; gone || failures > maxReopen {
				if session == "" {
					c.end(err) // without its connection stream the Conn hears nothing
				} else {
					c.mu.Lock()
					delete(c.streams, session) // the next frame naming the session tries again
					c.mu.Unlock()
				}
				return
			}
		}
		// The stream broke or could not open: try again shortly, as the
		// simulator's Client does.
		select {
		case <-time.After(time.Duration(10<<failures) * time.Millisecond):
		case <-c.ended:
		}
	}
}

// get opens an SSE stream: GET /acp with Accept: text/event-stream.
func (c *httpConn) get(session string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(netfault.HeaderConnection, c.Name())
	if session != "" {
		req.Header.Set(netfault.HeaderSession, session)
	}
	resp, err := c.streamer.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, &StatusError{Code: resp.StatusCode, Body: strings.TrimSpace(string(b))}
	}
	return resp.Body, nil
}

// readEvents delivers the data of each SSE event until the stream ends.
// Only data lines matter here: the Agent sends no event ids or types.
func (c *httpConn) readEvents(session string, body io.Reader) {
	br := bufio.NewReaderSize(body, 1<<16)
	var data []byte
	has := false
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return // a partial event is lost with the stream
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if has {
				c.receive(session, data)
			}
			data, has = nil, false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // a comment (":…"), or a field the Agent does not use
		}
		if has {
			data = append(data, '\n')
		}
		data = append(data, bytes.TrimPrefix(value, []byte(" "))...)
		has = true
	}
}

// receive delivers one Agent frame; a response that creates a session
// first opens that session's stream, so the session's first frames (and the
// responses to the Client's next requests on it) are not lost.
func (c *httpConn) receive(session string, frame []byte) {
	created, asked := readAgentFrame(frame)
	if created != "" {
		_ = c.openStream(created)
	}
	if session != "" && asked != "" {
		c.mu.Lock()
		if c.asked == nil {
			c.asked = map[acp.ID]string{}
		}
		c.asked[asked] = session
		c.mu.Unlock()
	}
	c.push(frame)
}

// askedOn is the session on whose stream the Agent wrote its request id,
// "" if none; the answer being sent, it is forgotten.
func (c *httpConn) askedOn(id acp.ID) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.asked[id]
	delete(c.asked, id)
	return s
}

// readAgentFrame reads, in one parse, what the Conn needs of a frame the
// Agent wrote: the session a response creates (its result.sessionId), and
// the id of a request (the Agent asking the Client something).
func readAgentFrame(frame []byte) (created string, request acp.ID) {
	l := acp.ParseLine(frame)
	if l.Batch || len(l.Entries) != 1 || l.Entries[0].Err != nil {
		return "", ""
	}
	m := l.Entries[0].Msg
	switch m.Kind() {
	case acp.KindRequest:
		return "", m.ID
	case acp.KindResponse:
		var r struct {
			SessionID string `json:"sessionId"`
		}
		if len(m.Result) > 0 && json.Unmarshal(m.Result, &r) == nil {
			return r.SessionID, ""
		}
	}
	return "", ""
}

// Close ends the connection: DELETE /acp, not waited for (bounded by
// closeTimeout; Frames closes after it).
func (c *httpConn) Close() error {
	c.closeOnce.Do(func() {
		if id := c.Name(); id != "" {
			c.spawn(func() {
				ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
				defer cancel()
				req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
				if err != nil {
					return
				}
				req.Header.Set(netfault.HeaderConnection, id)
				if resp, err := c.client.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
					resp.Body.Close()
				}
			})
		}
		c.end(ErrClosed)
		c.abort()
	})
	return nil
}
