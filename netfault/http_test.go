package netfault_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// Frames of the HTTP tests, with the labels the rig logs them under.
var (
	hInit     = acp.Request(acp.NumID(1), acp.MethodInitialize, map[string]any{"protocolVersion": 2})
	hInitResp = acp.Result(acp.NumID(1), map[string]any{"protocolVersion": 2})
	hNew      = acp.Request(acp.NumID(2), acp.MethodSessionNew, map[string]any{"cwd": "/w"})
	hNewResp  = acp.Result(acp.NumID(2), map[string]any{"sessionId": "s1"})
	hPrompt   = acp.Request(acp.NumID(3), acp.MethodSessionPrompt, map[string]any{"sessionId": "s1", "prompt": []any{}})
	hPrompt2  = acp.Request(acp.NumID(4), acp.MethodSessionPrompt, map[string]any{"sessionId": "s1", "prompt": []any{}})
	hResp     = acp.Result(acp.NumID(3), nil)
	hResp2    = acp.Result(acp.NumID(4), nil)
	hResume   = acp.Request(acp.NumID(5), acp.MethodSessionResume, map[string]any{"sessionId": "s1", "cwd": "/w"})
	hResumeOK = acp.Result(acp.NumID(5), nil)
	hUpd1     = acp.Notification(acp.MethodSessionUpdate, map[string]any{"sessionId": "s1", "n": 1})
	hUpd2     = acp.Notification(acp.MethodSessionUpdate, map[string]any{"sessionId": "s1", "n": 2})
	hUpd3     = acp.Notification(acp.MethodSessionUpdate, map[string]any{"sessionId": "s1", "n": 3})
	hLabels   = map[string]string{
		string(hInit): "init", string(hInitResp): "init-ok", string(hNew): "new", string(hNewResp): "new-ok",
		string(hPrompt): "prompt", string(hPrompt2): "prompt2", string(hResp): "prompt-ok", string(hResp2): "prompt2-ok",
		string(hResume): "resume", string(hResumeOK): "resume-ok",
		string(hUpd1): "upd1", string(hUpd2): "upd2", string(hUpd3): "upd3",
	}
)

func label(b []byte) string {
	if l, ok := hLabels[string(b)]; ok {
		return l
	}
	return string(b)
}

// hrig is an HTTP link "h" between client "c" and agent "a" with 1ms
// latency; it logs every callback with the virtual time.
type hrig struct {
	loop    sim.Loop
	rec     *recorder
	streams []string // stream open/close notes, kept apart from frames
	link    *netfault.HTTPLink
	faults  map[string]int
	asked   []sim.Decision
	log     []string
}

func newHRig() *hrig {
	r := &hrig{faults: map[string]int{}}
	r.rec = &recorder{loop: &r.loop}
	choose := func(d sim.Decision) int {
		r.asked = append(r.asked, d.Named())
		return r.faults[d.Kind+" "+d.Where()]
	}
	// Stream open/close notes are kept apart: the frame tests compare frames.
	h := netfault.NewHTTPLink("h", "c", "a", &r.loop, choose, streamsApart{r}, ms)
	r.link = h
	logf := func(format string, args ...any) {
		r.log = append(r.log, fmt.Sprintf(format, args...)+fmt.Sprintf("@%v", r.loop.Now()))
	}
	h.OnStatus = func(post, status int) { logf("status %d %d", post, status) }
	h.OnEvent = func(b []byte, _ *acp.Digest) { logf("event %s", label(b)) }
	h.OnStreamClosed = func(s string) { logf("closed %q", s) }
	h.OnGone = func() { logf("gone") }
	h.OnAgentConnect = func(conn string) { logf("agent connect %s", conn) }
	h.ToAgent = func(conn string, b []byte, _ *acp.Digest) { logf("agent %s reads %s", conn, label(b)) }
	h.OnAgentDisconnect = func(conn, why string) { logf("agent disconnect %s %s", conn, why) }
	return r
}

func (r *hrig) run() { r.loop.RunUntil(r.loop.Now()+time.Hour, nil) }

// connect runs initialize to its 200 and opens the connection stream; the
// log is cleared afterwards.
func (r *hrig) connect(t *testing.T) {
	t.Helper()
	r.link.Post(hInit, "")
	r.loop.RunUntil(r.loop.Now()+ms, nil)
	r.link.FromAgent(hInitResp, "")
	r.link.OpenStream("")
	r.run()
	want := []string{"agent connect h#1@1ms", "agent h#1 reads init@1ms", "status 1 200@2ms", "event init-ok@2ms"}
	if !reflect.DeepEqual(r.log, want) {
		t.Fatalf("initialize: %q, want %q", r.log, want)
	}
	r.log = nil
}

// shortH renders events like recorder.short, with frames as labels.
func (r *hrig) short() []string {
	var out []string
	for _, e := range r.rec.events {
		s := e.Kind
		for _, f := range []string{e.Dir, hLabelOr(e.Frame), e.Note} {
			if f != "" {
				s += " " + f
			}
		}
		out = append(out, s)
	}
	return out
}

func hLabelOr(s string) string {
	if s == "" {
		return ""
	}
	return label([]byte(s))
}

func TestHTTPInitializeGets200AndConnectionID(t *testing.T) {
	r := newHRig()
	if r.link.Connected() {
		t.Fatal("connected before initialize")
	}
	r.connect(t)
	if r.link.Conn() != "h#1" || !r.link.Connected() {
		t.Errorf("Conn() = %q, want h#1", r.link.Conn())
	}
	want := []traces.Event{
		{T: 0, Seq: 1, Kind: traces.KindSend, Link: "h#1", From: "c", To: "a", Dir: traces.ClientToAgent, Frame: string(hInit)},
		{T: 1000, Seq: 2, Kind: traces.KindConnect, Link: "h#1", From: "c", To: "a", Note: "h#1"},
		{T: 1000, Seq: 3, Kind: traces.KindDeliver, Link: "h#1", From: "c", To: "a", Dir: traces.ClientToAgent, Frame: string(hInit), Note: "200"},
		{T: 1000, Seq: 4, Kind: traces.KindSend, Link: "h#1", From: "a", To: "c", Dir: traces.AgentToClient, Frame: string(hInitResp)},
		{T: 2000, Seq: 5, Kind: traces.KindDeliver, Link: "h#1", From: "a", To: "c", Dir: traces.AgentToClient, Frame: string(hInitResp), Note: "200"},
	}
	if !reflect.DeepEqual(r.rec.events, want) {
		t.Errorf("events:\n got %+v\nwant %+v", r.rec.events, want)
	}
	if !r.link.StreamOpen("") {
		t.Error("connection stream not open")
	}
	// initialize asks post-lost, accepted-lost and delay, never conn-expired.
	wantAsked := []sim.Decision{
		{Kind: netfault.PostLost, Site: "h/post/1", N: 2},
		{Kind: netfault.AcceptedLost, Site: "h/post/1", N: 2},
		{Kind: netfault.Delay, Site: "h/post/1", N: len(netfault.DelaySteps)},
	}
	if !reflect.DeepEqual(r.asked, wantAsked) {
		t.Errorf("asked %+v, want %+v", r.asked, wantAsked)
	}
}

func TestHTTPPostBeforeInitializeIs400(t *testing.T) {
	r := newHRig()
	n := r.link.Post(hNew, "")
	r.run()
	if want := []string{"status 1 400@2ms"}; n != 1 || !reflect.DeepEqual(r.log, want) {
		t.Errorf("post %d: %q, want %q", n, r.log, want)
	}
	if want := []string{"send c2a new", "drop c2a new 400"}; !reflect.DeepEqual(r.short(), want) {
		t.Errorf("events %q, want %q", r.short(), want)
	}
	if len(r.asked) != 0 {
		t.Errorf("a refused POST asked %+v", r.asked)
	}
}

func TestHTTPBatchIs501(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.Post([]byte("["+string(hPrompt)+"]"), "")
	r.run()
	if want := []string{"status 2 501@4ms"}; !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
}

func TestHTTPPromptGets202AndResponseOnSessionStreamOnlyWhenOpen(t *testing.T) {
	r := newHRig()
	r.connect(t)
	// Session stream not open: the response is lost, the 202 still comes.
	r.link.Post(hPrompt, "sub-1")
	r.loop.RunUntil(r.loop.Now()+ms, nil)
	r.link.FromAgent(hResp, "s1")
	r.run()
	want := []string{"agent h#1 reads prompt@3ms", "status 2 202@4ms"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("closed stream: %q, want %q", r.log, want)
	}
	if got := r.short()[len(r.short())-2:]; !reflect.DeepEqual(got, []string{"send a2c prompt-ok", "drop a2c prompt-ok stream not open"}) {
		t.Errorf("events end %q", got)
	}
	// Open it: the next response arrives on it, not on the connection stream.
	r.log = nil
	r.link.OpenStream("s1")
	r.run()
	if !r.link.StreamOpen("s1") {
		t.Fatal("session stream not open")
	}
	r.link.Post(hPrompt2, "sub-2")
	r.loop.RunUntil(r.loop.Now()+ms, nil)
	r.link.FromAgent(hResp2, "") // routed by the id of the request it answers
	r.link.FromAgent(hUpd1, "")  // routed by params.sessionId
	r.run()
	want = []string{"agent h#1 reads prompt2@6ms", "status 3 202@7ms", "event prompt2-ok@7ms", "event upd1@7ms"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("open stream: %q, want %q", r.log, want)
	}
	for _, e := range r.rec.events {
		if e.Kind == traces.KindDeliver && e.Dir == traces.ClientToAgent && e.Frame == string(hPrompt) && (e.Sub != "sub-1" || e.Note != "202") {
			t.Errorf("deliver of the prompt: %+v", e)
		}
	}
}

// session/new is answered on the connection stream; session/resume's
// response too (the RFD's reconnect diagram), while its replay goes on the
// session stream.
func TestHTTPConnectionScopedResponses(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.Post(hNew, "")
	r.link.Post(hResume, "")
	r.loop.RunUntil(r.loop.Now()+ms, nil)
	r.link.FromAgent(hNewResp, "")
	r.link.FromAgent(hUpd1, "s1") // session stream not open: lost
	r.link.FromAgent(hResumeOK, "s1")
	r.run()
	want := []string{
		"agent h#1 reads new@3ms", "agent h#1 reads resume@3ms",
		"status 2 202@4ms", "status 3 202@4ms", "event new-ok@4ms", "event resume-ok@4ms",
	}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
}

func TestHTTPUpdateWhileStreamClosedIsDropped(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.FromAgent(hUpd1, "s1")
	r.link.OpenStream("s1")
	r.link.FromAgent(hUpd2, "s1") // the GET has not reached the Agent yet
	r.run()
	r.link.FromAgent(hUpd3, "s1")
	r.run()
	if want := []string{"event upd3@4ms"}; !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
	want := []string{"send a2c upd1", "drop a2c upd1 stream not open", "send a2c upd2", "drop a2c upd2 stream not open", "send a2c upd3", "deliver a2c upd3"}
	if got := r.short()[5:]; !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

func TestHTTPWithoutCallbacks(t *testing.T) {
	var loop sim.Loop
	rec := &recorder{loop: &loop}
	h := netfault.NewHTTPLink("h", "c", "a", &loop, func(sim.Decision) int { return 0 }, rec, ms)
	h.Post(hInit, "")
	loop.RunUntil(ms, nil)
	h.FromAgent(hInitResp, "")
	h.OpenStream("")
	h.Post(hPrompt, "")
	h.Delete()
	loop.RunUntil(time.Second, nil)
	if h.Connected() {
		t.Error("connected after delete")
	}
}

func ExampleHTTPLink() {
	var loop sim.Loop
	rec := &recorder{loop: &loop}
	// Lose the 202 of the second POST; no other fault.
	choose := func(d sim.Decision) int {
		if d.Kind == netfault.AcceptedLost && d.Where() == "c1:a1/post/2" {
			return 1
		}
		return 0
	}
	h := netfault.NewHTTPLink("c1:a1", "c1", "a1", &loop, choose, rec, time.Millisecond)
	h.OnStatus = func(post, status int) { fmt.Printf("%v client: POST %d → %d\n", loop.Now(), post, status) }
	h.OnEvent = func(b []byte, _ *acp.Digest) { fmt.Printf("%v client reads %s\n", loop.Now(), b) }
	h.ToAgent = func(conn string, b []byte, _ *acp.Digest) {
		fmt.Printf("%v agent reads %s on %s\n", loop.Now(), b, conn)
		if strings.Contains(string(b), `"initialize"`) {
			h.FromAgent([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), "")
		}
	}
	h.Post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), "")
	loop.RunUntil(time.Second, nil)
	h.OpenStream("s1")
	prompt := []byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`)
	h.Post(prompt, "sub-1")
	loop.RunUntil(time.Second, nil)
	h.Post(prompt, "sub-1") // status 0: resend; the Agent reads it twice
	loop.RunUntil(time.Second, nil)
	h.FromAgent([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`), "")
	loop.RunUntil(time.Second, nil)
	// Output:
	// 1ms agent reads {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}} on c1:a1#1
	// 2ms client: POST 1 → 200
	// 2ms client reads {"jsonrpc":"2.0","id":1,"result":{}}
	// 3ms agent reads {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}} on c1:a1#1
	// 4ms client: POST 2 → 0
	// 5ms agent reads {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}} on c1:a1#1
	// 6ms client: POST 3 → 202
	// 7ms client reads {"jsonrpc":"2.0","id":2,"result":{}}
}

// streamsApart records stream events in hrig.streams and the rest as usual.
type streamsApart struct{ r *hrig }

func (s streamsApart) Record(e traces.Event) {
	if e.Kind == traces.KindStream {
		s.r.streams = append(s.r.streams, e.Note)
		return
	}
	s.r.rec.Record(e)
}

// The trace notes when each SSE stream opens and closes, and why.
func TestHTTPStreamsAreRecorded(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.OpenStream("s1")
	r.run()
	r.link.AgentGone("kill")
	r.run()
	want := []string{"open connection", "open session s1", "closed connection: kill", "closed session s1: kill"}
	if !reflect.DeepEqual(r.streams, want) {
		t.Errorf("stream events %q, want %q", r.streams, want)
	}
}
