package serve_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/actors/agent/store/sqlitestore"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/internal/realtest"
)

// rawHTTP is a bare HTTP client for the endpoint, to see statuses and bytes
// as they are on the wire.
type rawHTTP struct {
	t *testing.T
	u string
	c *http.Client
}

func newRawHTTP(t *testing.T, u string) *rawHTTP {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &rawHTTP{t: t, u: u, c: &http.Client{Transport: tr, Timeout: 5 * time.Second}}
}

// do sends a request with headers as "Name: value" pairs and returns the
// response; its body is closed when the test ends.
func (r *rawHTTP) do(method, body string, headers ...string) *http.Response {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.u, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	resp, err := r.c.Do(req)
	if err != nil {
		r.t.Fatalf("%s: %v", method, err)
	}
	r.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sessionIDOf is the result.sessionId of a response frame, "" for another
// frame.
func sessionIDOf(frame string) string {
	var m acp.Message
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal([]byte(frame), &m) != nil || len(m.Result) == 0 || json.Unmarshal(m.Result, &r) != nil {
		return ""
	}
	return r.SessionID
}

func (r *rawHTTP) post(body string, headers ...string) *http.Response {
	r.t.Helper()
	return r.do(http.MethodPost, body, append([]string{"Content-Type: application/json"}, headers...)...)
}

// The status map of the remote transport (digest §5.2), on the wire.
func TestHTTPStatuses(t *testing.T) {
	realtest.NoLeaks(t)
	u := realtest.ServeAgent(t, store.NewDisk(), realtest.Knobs())
	r := newRawHTTP(t, u)
	init := string(acp.Request(acp.NumID(1), acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2}))
	resp := r.post(init)
	conn := resp.Header.Get(netfault.HeaderConnection)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || conn == "" || !strings.Contains(string(body), `"protocolVersion":2`) || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, conn, body)
	}
	newSession := string(acp.Request(acp.NumID(2), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"}))
	prompt := string(acp.Request(acp.NumID(3), acp.MethodSessionPrompt, acp.PromptParams{SessionID: "S", Prompt: []acp.ContentBlock{acp.Text("x")}}))
	for _, c := range []struct {
		name string
		resp func() *http.Response
		want int
	}{
		{"request on the connection", func() *http.Response { return r.post(newSession, netfault.HeaderConnection+": "+conn) }, http.StatusAccepted},
		{"no connection header", func() *http.Response { return r.post(newSession) }, http.StatusBadRequest},
		{"unknown connection", func() *http.Response { return r.post(newSession, netfault.HeaderConnection+": nope") }, http.StatusNotFound},
		{"not JSON", func() *http.Response {
			return r.do(http.MethodPost, newSession, "Content-Type: text/plain", netfault.HeaderConnection+": "+conn)
		}, http.StatusUnsupportedMediaType},
		{"batch", func() *http.Response { return r.post("["+newSession+"]", netfault.HeaderConnection+": "+conn) }, http.StatusNotImplemented},
		{"session-scoped without the session header", func() *http.Response { return r.post(prompt, netfault.HeaderConnection+": "+conn) }, http.StatusBadRequest},
		{"session header not the params'", func() *http.Response {
			return r.post(prompt, netfault.HeaderConnection+": "+conn, netfault.HeaderSession+": T")
		}, http.StatusBadRequest},
		{"session-scoped", func() *http.Response {
			return r.post(prompt, netfault.HeaderConnection+": "+conn, netfault.HeaderSession+": S")
		}, http.StatusAccepted},
		{"GET without event-stream", func() *http.Response {
			return r.do(http.MethodGet, "", "Accept: application/json", netfault.HeaderConnection+": "+conn)
		}, http.StatusNotAcceptable},
		{"GET unknown connection", func() *http.Response {
			return r.do(http.MethodGet, "", "Accept: text/event-stream", netfault.HeaderConnection+": nope")
		}, http.StatusNotFound},
		{"GET no connection header", func() *http.Response { return r.do(http.MethodGet, "", "Accept: text/event-stream") }, http.StatusBadRequest},
		{"DELETE unknown connection", func() *http.Response { return r.do(http.MethodDelete, "", netfault.HeaderConnection+": nope") }, http.StatusNotFound},
		{"PUT", func() *http.Response { return r.do(http.MethodPut, "") }, http.StatusMethodNotAllowed},
		{"DELETE", func() *http.Response { return r.do(http.MethodDelete, "", netfault.HeaderConnection+": "+conn) }, http.StatusAccepted},
		{"after DELETE", func() *http.Response { return r.post(newSession, netfault.HeaderConnection+": "+conn) }, http.StatusNotFound},
	} {
		if got := c.resp(); got.StatusCode != c.want {
			b, _ := io.ReadAll(got.Body)
			t.Errorf("%s: HTTP %d %s, want %d", c.name, got.StatusCode, b, c.want)
		}
	}
}

// sse reads one SSE stream's events, as raw frames.
func sse(t *testing.T, resp *http.Response) <-chan string {
	t.Helper()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan string, 64)
	go func() {
		defer close(out)
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			// Exactly "data: <json>\n\n" per event.
			data, ok := strings.CutPrefix(line, "data: ")
			if blank, _ := br.ReadString('\n'); !ok || blank != "\n" {
				out <- "bad framing: " + line
				return
			}
			out <- strings.TrimSuffix(data, "\n")
		}
	}()
	return out
}

func next(t *testing.T, events <-chan string) string {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(5 * time.Second):
		t.Fatal("no event for 5s")
	}
	return ""
}

// Responses go on the stream the model puts them on, framed as
// "data: <json>\n\n". What the Agent writes for a stream not yet opened
// waits for its first GET (the SDK's Client POSTs session/new without
// waiting for that GET); what it writes while a stream that was open is
// broken is lost, not delivered later.
func TestSSEStreams(t *testing.T) {
	realtest.NoLeaks(t)
	u := realtest.ServeAgent(t, store.NewDisk(), realtest.Knobs())
	r := newRawHTTP(t, u)
	conn := r.post(string(acp.Request(acp.NumID(1), acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2}))).Header.Get(netfault.HeaderConnection)
	on := netfault.HeaderConnection + ": " + conn
	// No stream has been opened: the session/new response waits for it.
	r.post(string(acp.Request(acp.NumID(2), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"})), on)
	waited := sse(t, r.do(http.MethodGet, "", "Accept: text/event-stream", on))
	if first := next(t, waited); !strings.Contains(first, `"id":2`) {
		t.Fatalf("first event on the connection stream %s, want the answer to request 2, held for the stream's first GET", first)
	}
	// The stream breaks: what the Agent writes before it is reopened is lost.
	broken := r.do(http.MethodGet, "", "Accept: text/event-stream", on) // replaces the first
	for range waited {
	}
	broken.Body.Close()
	// Its 202 comes once the Agent's step is carried out: 3's answer has
	// been written, to a stream whose reader is gone or about to be seen gone.
	r.post(string(acp.Request(acp.NumID(3), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"})), on)
	events := sse(t, r.do(http.MethodGet, "", "Accept: text/event-stream", on))
	r.post(string(acp.Request(acp.NumID(4), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"})), on)
	first := next(t, events)
	if !strings.Contains(first, `"id":4`) {
		t.Fatalf("first event on the reopened connection stream %s, want the answer to request 4 (3's was lost)", first)
	}
	sid := sessionIDOf(first)
	session := sse(t, r.do(http.MethodGet, "", "Accept: text/event-stream", on, netfault.HeaderSession+": "+sid))
	prompt := string(acp.Request(acp.NumID(5), acp.MethodSessionPrompt, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.Text("x")}, IdempotencyKey: acp.KeyJSON("K")}))
	if resp := r.post(prompt, on, netfault.HeaderSession+": "+sid); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("prompt: HTTP %d", resp.StatusCode)
	}
	// The prompt's response and the session's updates, in the Agent's
	// order, on the session stream; nothing on the connection stream.
	if e := next(t, session); !strings.Contains(e, `"id":5`) || !strings.Contains(e, "messageId") {
		t.Fatalf("session stream: %s, want the prompt's response first", e)
	}
	if e := next(t, session); !strings.Contains(e, `"sessionUpdate":"user_message"`) {
		t.Fatalf("session stream: %s, want the user_message", e)
	}
	for e := next(t, session); !strings.Contains(e, `"state":"idle"`); e = next(t, session) {
	}
	// session/resume is answered on the connection stream.
	r.post(string(acp.Request(acp.NumID(6), acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: sid, Cwd: "/w"})), on)
	if e := next(t, events); !strings.Contains(e, `"id":6`) {
		t.Fatalf("connection stream: %s, want the resume's response", e)
	}
	if e := next(t, session); !strings.Contains(e, `"state_update"`) {
		t.Fatalf("session stream: %s, want the resume's state snapshot", e)
	}
	// Deleting the connection ends its streams.
	r.do(http.MethodDelete, "", on)
	for range events {
	}
	for range session {
	}
}

// Two Agent processes on one SQLite file (WAL), as behind a load balancer:
// a keyed prompt on A, the connection lost, the retry on B. With keys in the
// store B answers with A's messageId and the session holds the message
// once; with keys in process memory B inserts it again.
func TestTwoAgentsOneStore(t *testing.T) {
	for _, keys := range []string{agent.KeysStore, agent.KeysMemory} {
		t.Run(keys, func(t *testing.T) {
			realtest.NoLeaks(t)
			db := filepath.Join(t.TempDir(), "agent.db")
			k := realtest.Knobs()
			k.Keys = keys
			urls := make([]string, 2)
			for i := range urls {
				st, err := sqlitestore.Open(db)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				urls[i] = realtest.ServeAgent(t, st, k)
			}
			a := realtest.DialClient(t, urls[0]) // over HTTP
			a.Initialize()
			sid := a.NewSession()
			first := a.Prompt(sid, "hello", "K")
			a.Until(realtest.Idle)
			_ = a.Conn.Close()

			b := realtest.DialClient(t, realtest.WSEndpoint(urls[1])) // the retry lands on the other node, over WebSocket
			b.Initialize()
			if got := b.ResumeReplay(sid); len(got) != 1 || got[0] != first {
				t.Fatalf("B replays %v, A stored %s", got, first)
			}
			retry := b.Prompt(sid, "hello", "K")
			if keys == agent.KeysMemory {
				b.Until(realtest.Idle)
			}
			held := b.ResumeReplay(sid)
			switch {
			case keys == agent.KeysStore && (retry != first || len(held) != 1):
				t.Fatalf("keys in the store: retry on B answered %s (A: %s), the session holds %v", retry, first, held)
			case keys == agent.KeysMemory && (retry == first || len(held) != 2):
				t.Fatalf("keys in memory: retry on B answered %s (A: %s), the session holds %v: want a second insertion", retry, first, held)
			}
		})
	}
}
