package clientcheck

import (
	"strings"
	"testing"
)

// ReadSetup names the furthest step of a Client's set-up, for a seed in
// which it sent no prompt, and says nothing is amiss once it prompted.
func TestReadSetupNamesWhereTheClientStopped(t *testing.T) {
	initV2 := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"0"},"capabilities":{}}}`
	initV1 := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
	initOK := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2}}`
	refused := `{"jsonrpc":"2.0","id":0,"error":{"code":-32022,"message":"unsupported protocol version"}}`
	newReq := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`
	noID := `{"jsonrpc":"2.0","id":1,"result":{}}`
	cases := []struct {
		name  string
		wire  func(w *wire)
		stage string
		ready bool
	}{
		{"nothing at all", func(w *wire) {}, "no frame reached the Agent", false},
		{"initialize refused", func(w *wire) { w.add(1, "c2a", initV2); w.add(1, "a2c", refused) },
			"the Agent refused its initialize (asking for protocolVersion 2): error -32022 unsupported protocol version", false},
		{"a v1 initialize", func(w *wire) { w.add(1, "c2a", initV1) }, "it speaks ACP v1 (protocolVersion 1)", false},
		{"stuck after initialize", func(w *wire) { w.add(1, "c2a", initV2); w.add(1, "a2c", initOK) },
			"initialize answered, but no session/new reached the Agent", false},
		{"session/new unanswered", func(w *wire) { w.add(1, "c2a", initV2); w.add(1, "a2c", initOK); w.add(1, "c2a", newReq) },
			"nothing answered its session/new", false},
		{"session/new without a sessionId", func(w *wire) {
			w.add(1, "c2a", initV2)
			w.add(1, "a2c", initOK)
			w.add(1, "c2a", newReq)
			w.add(1, "a2c", noID)
		}, "its session/new was answered without a sessionId", false},
		{"set up, never prompted", func(w *wire) { w.open(1) }, "its session was set up, but it never prompted", true},
	}
	for _, c := range cases {
		w := new(wire)
		c.wire(w)
		s := ReadSetup(w.frames)
		if !strings.Contains(s.Why(), c.stage) || s.SessionReady != c.ready || s.Prompts != 0 {
			t.Errorf("%s: %q (ready %v), want %q (ready %v)", c.name, s.Why(), s.SessionReady, c.stage, c.ready)
		}
	}
	if s := ReadSetup(new(wire).open(1).prompt(1, "hello", "").frames); s.Prompts != 1 || !s.SessionReady {
		t.Errorf("a Client that prompted: %+v", s)
	}
}

// Cover counts the submissions sent (outcomes judged) and resent (keys
// judged), telling a repeated text's submissions apart by count.
func TestCoverCountsWhatWasJudged(t *testing.T) {
	h := History{Subs: []Submission{{"s1", "a"}, {"s2", "b"}, {"s3", "a"}, {"s4", "c"}},
		Frames: new(wire).open(1).prompt(1, "a", "").prompt(1, "a", "").prompt(1, "a", "").prompt(1, "b", "").prompt(1, "b", "").frames}
	if c := Cover(h); c != (Coverage{Subs: 4, Outcomes: 3, Resent: 2}) {
		t.Fatalf("%+v, want 4 submissions, 3 sent, 2 resent", c)
	}
}
