// Package realtest is what the tests of real mode share: the reference
// Agent served on a real socket (serve.Remote), a test Client on a dial.Conn
// to it, and the check that a test leaves no goroutine behind.
package realtest

import (
	"context"
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault/realmode/dial"
	"github.com/acpsim/acpsim/netfault/realmode/serve"
	"github.com/acpsim/acpsim/sim"
)

// Knobs make the reference Agent's work take milliseconds.
func Knobs() agent.Knobs {
	k := agent.DefaultKnobs()
	k.ChunkEvery = time.Millisecond
	return k
}

// ServeAgent runs the reference Agent with knobs k over st on a real socket
// and returns its URL; the server stops (and must stop cleanly) when the
// test ends.
func ServeAgent(t *testing.T, st store.Store, k agent.Knobs) string {
	t.Helper()
	u, stop := StartAgent(t, st, k)
	t.Cleanup(stop)
	return u
}

// StartAgent is ServeAgent with the stop in the caller's hands: stop ends
// the server and waits for serve.Remote to return nil.
func StartAgent(t *testing.T, st store.Store, k agent.Knobs) (u string, stop func()) {
	t.Helper()
	f, err := agent.Lookup(agent.Reference)
	if err != nil {
		t.Fatal(err)
	}
	m := f(k, func() store.Store { return st }, agent.Env{Name: "a", Choose: sim.Healthy{}.Choose, NewID: uuid.NewString})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve.Remote(ctx, m, st, l) }()
	var once sync.Once
	return serve.URL(l.Addr()), func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve.Remote: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("serve.Remote did not stop")
			}
		})
	}
}

// WSEndpoint is the WebSocket form of an endpoint's URL.
func WSEndpoint(u string) string { return "ws" + u[len("http"):] }

// Client is a test Client on a Conn: it numbers requests and keeps every
// frame it reads.
type Client struct {
	Conn dial.Conn
	t    *testing.T
	next int64
	seen []acp.Message
}

// DialClient dials the endpoint u (5s timeouts) and closes the connection
// when the test ends.
func DialClient(t *testing.T, u string) *Client {
	t.Helper()
	c, err := dial.Remote(context.Background(), u, dial.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &Client{t: t, Conn: c}
}

// Send sends a request and returns its id.
func (tc *Client) Send(method string, params any) acp.ID {
	tc.t.Helper()
	tc.next++
	id := acp.NumID(tc.next)
	if err := tc.Conn.Send(acp.Request(id, method, params)); err != nil {
		tc.t.Fatalf("send %s: %v", method, err)
	}
	return id
}

// Read returns the next frame, failing the test after 5s or at the end of
// the connection.
func (tc *Client) Read() acp.Message {
	tc.t.Helper()
	select {
	case f, ok := <-tc.Conn.Frames():
		if !ok {
			tc.t.Fatalf("connection ended: %v", tc.Conn.Err())
		}
		var m acp.Message
		if err := json.Unmarshal(f, &m); err != nil {
			tc.t.Fatalf("not JSON-RPC: %q", f)
		}
		tc.seen = append(tc.seen, m)
		return m
	case <-time.After(5 * time.Second):
		tc.t.Fatal("no frame for 5s")
	}
	panic("unreachable")
}

// Until reads frames until ok holds for one, and returns it.
func (tc *Client) Until(ok func(acp.Message) bool) acp.Message {
	tc.t.Helper()
	for {
		if m := tc.Read(); ok(m) {
			return m
		}
	}
}

// Call sends a request and waits for its response.
func (tc *Client) Call(method string, params any) acp.Message {
	tc.t.Helper()
	id := tc.Send(method, params)
	return tc.Until(func(m acp.Message) bool { return m.Kind() == acp.KindResponse && m.ID == id })
}

// Initialize initializes the connection in ACP v2.
func (tc *Client) Initialize() {
	tc.t.Helper()
	if r := tc.Call(acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2}); r.Error != nil {
		tc.t.Fatalf("initialize: %v", r.Error)
	}
}

// NewSession opens a session and returns its id.
func (tc *Client) NewSession() string {
	tc.t.Helper()
	var ns acp.NewSessionResult
	r := tc.Call(acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"})
	if r.Error != nil || json.Unmarshal(r.Result, &ns) != nil || ns.SessionID == "" {
		tc.t.Fatalf("session/new: %s %v", r.Result, r.Error)
	}
	return ns.SessionID
}

// Prompt sends a keyed prompt and returns the messageId it is answered with.
func (tc *Client) Prompt(sid, text, key string) string {
	tc.t.Helper()
	r := tc.Call(acp.MethodSessionPrompt, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.Text(text)}, IdempotencyKey: acp.KeyJSON(key)})
	var pr acp.PromptResult
	if r.Error != nil || json.Unmarshal(r.Result, &pr) != nil || pr.MessageID == "" {
		tc.t.Fatalf("session/prompt: %s %v", r.Result, r.Error)
	}
	return pr.MessageID
}

// Update decodes a session/update notification; ok false for other frames.
func Update(m acp.Message) (p acp.SessionUpdateParams, ok bool) {
	if m.Method != "session/update" || json.Unmarshal(m.Params, &p) != nil {
		return p, false
	}
	return p, true
}

// Idle reports whether m says the session is idle.
func Idle(m acp.Message) bool {
	u, ok := Update(m)
	return ok && u.Update.Kind == acp.UpdateState && u.Update.State == acp.StateIdle
}

// ResumeReplay resumes sid with a full replay and returns the messageIds
// of the user messages replayed. The response travels on the connection
// stream and the replay on the session's (over HTTP their order is not
// defined), so it reads until it has both the response and the state
// snapshot that ends the replay.
func (tc *Client) ResumeReplay(sid string) []string {
	tc.t.Helper()
	id := tc.Send(acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: sid, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}})
	var users []string
	answered, snapshot := false, false
	for !answered || !snapshot {
		m := tc.Read()
		if m.Kind() == acp.KindResponse && m.ID == id {
			if m.Error != nil {
				tc.t.Fatalf("session/resume: %v", m.Error)
			}
			answered = true
		}
		if u, ok := Update(m); ok && u.SessionID == sid {
			switch u.Update.Kind {
			case acp.UpdateUserMessage:
				users = append(users, u.Update.MessageID)
			case acp.UpdateState:
				snapshot = true
			}
		}
	}
	return users
}

// NoLeaks checks, after every other cleanup of t (the servers' stops), that
// no goroutine started during t is left.
func NoLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}
