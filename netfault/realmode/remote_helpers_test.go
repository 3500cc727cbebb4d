package realmode

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
	"github.com/acpsim/acpsim/sim"
)

// testKnobs make the reference Agent's work take milliseconds.
func testKnobs() agent.Knobs {
	k := agent.DefaultKnobs()
	k.ChunkEvery = time.Millisecond
	return k
}

// serveAgent runs the reference Agent with knobs k over st on a real socket
// and returns its URL; the server stops (and must stop cleanly) when the
// test ends.
func serveAgent(t *testing.T, st store.Store, k agent.Knobs) string {
	t.Helper()
	u, stop := startAgent(t, st, k)
	t.Cleanup(stop)
	return u
}

// startAgent is serveAgent with the stop in the caller's hands: stop ends
// the server and waits for Serve to return nil.
func startAgent(t *testing.T, st store.Store, k agent.Knobs) (u string, stop func()) {
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
	go func() { done <- Serve(ctx, m, st, l) }()
	var once sync.Once
	return URL(l.Addr()), func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Serve did not stop")
			}
		})
	}
}

// wsEndpoint is the WebSocket form of an endpoint's URL.
func wsEndpoint(u string) string { return "ws" + u[len("http"):] }

// peer is a test Client on a Conn: it numbers requests and keeps every frame
// it reads.
type testClient struct {
	t    *testing.T
	c    Conn
	next int64
	seen []acp.Message
}

func dialClient(t *testing.T, u string) *testClient {
	t.Helper()
	c, err := Dial(context.Background(), u, DialOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &testClient{t: t, c: c}
}

// send sends a request and returns its id.
func (tc *testClient) send(method string, params any) acp.ID {
	tc.t.Helper()
	tc.next++
	id := acp.NumID(tc.next)
	if err := tc.c.Send(acp.Request(id, method, params)); err != nil {
		tc.t.Fatalf("send %s: %v", method, err)
	}
	return id
}

// read returns the next frame, failing the test after 5s or at the end of
// the connection.
func (tc *testClient) read() acp.Message {
	tc.t.Helper()
	select {
	case f, ok := <-tc.c.Frames():
		if !ok {
			tc.t.Fatalf("connection ended: %v", tc.c.Err())
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

// until reads frames until ok holds for one, and returns it.
func (tc *testClient) until(ok func(acp.Message) bool) acp.Message {
	tc.t.Helper()
	for {
		if m := tc.read(); ok(m) {
			return m
		}
	}
}

// call sends a request and waits for its response.
func (tc *testClient) call(method string, params any) acp.Message {
	tc.t.Helper()
	id := tc.send(method, params)
	return tc.until(func(m acp.Message) bool { return m.Kind() == acp.KindResponse && m.ID == id })
}

func (tc *testClient) initialize() {
	tc.t.Helper()
	if r := tc.call(acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2}); r.Error != nil {
		tc.t.Fatalf("initialize: %v", r.Error)
	}
}

func (tc *testClient) newSession() string {
	tc.t.Helper()
	var ns acp.NewSessionResult
	r := tc.call(acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"})
	if r.Error != nil || json.Unmarshal(r.Result, &ns) != nil || ns.SessionID == "" {
		tc.t.Fatalf("session/new: %s %v", r.Result, r.Error)
	}
	return ns.SessionID
}

// prompt sends a keyed prompt and returns the messageId it is answered with.
func (tc *testClient) prompt(sid, text, key string) string {
	tc.t.Helper()
	r := tc.call(acp.MethodSessionPrompt, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.Text(text)}, IdempotencyKey: acp.KeyJSON(key)})
	var pr acp.PromptResult
	if r.Error != nil || json.Unmarshal(r.Result, &pr) != nil || pr.MessageID == "" {
		tc.t.Fatalf("session/prompt: %s %v", r.Result, r.Error)
	}
	return pr.MessageID
}

// update decodes a session/update notification; ok false for other frames.
func update(m acp.Message) (p acp.SessionUpdateParams, ok bool) {
	if m.Method != "session/update" || json.Unmarshal(m.Params, &p) != nil {
		return p, false
	}
	return p, true
}

// idle reports whether m says the session is idle.
func idle(m acp.Message) bool {
	u, ok := update(m)
	return ok && u.Update.Kind == acp.UpdateState && u.Update.State == acp.StateIdle
}

// resumeReplay resumes sid with a full replay and returns the messageIds
// of the user messages replayed. The response travels on the connection
// stream and the replay on the session's (over HTTP their order is not
// defined), so it reads until it has both the response and the state
// snapshot that ends the replay.
func (tc *testClient) resumeReplay(sid string) []string {
	tc.t.Helper()
	id := tc.send(acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: sid, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}})
	var users []string
	answered, snapshot := false, false
	for !answered || !snapshot {
		m := tc.read()
		if m.Kind() == acp.KindResponse && m.ID == id {
			if m.Error != nil {
				tc.t.Fatalf("session/resume: %v", m.Error)
			}
			answered = true
		}
		if u, ok := update(m); ok && u.SessionID == sid {
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

// noLeaks checks, after every other cleanup of t (the servers' stops), that
// no goroutine started during t is left.
func noLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}
