package properties

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// v1Trace is one link whose initialize is asked with params and answered
// with result, then a prompt answered with promptResult.
func v1Trace(params, result, promptResult string) *Report {
	b := newTB("all")
	const link = "c1>a1#1"
	b.add(traces.Event{Kind: traces.KindConnect, Link: link, From: "c1", To: "a1#1"})
	b.c2a(link, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+params+`}`), "")
	b.a2c(link, []byte(`{"jsonrpc":"2.0","id":1,"result":`+result+`}`))
	b.c2a(link, []byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`), "u1")
	b.a2c(link, []byte(`{"jsonrpc":"2.0","id":2,"result":`+promptResult+`}`))
	return Check(b.h, b.evs)
}

const (
	v2Params = `{"protocolVersion":2,"capabilities":{},"info":{"name":"c","version":"1"}}`
	v2Result = `{"protocolVersion":2,"capabilities":{},"info":{"name":"a","version":"1"}}`
)

func TestAnAgentThatAnswersInitializeInV1IsNamedInOneLine(t *testing.T) {
	rep := v1Trace(v2Params, `{"protocolVersion":1,"agentCapabilities":{}}`, `{"stopReason":"end_turn"}`)
	want := acp.PeerVersion{Version: 1, V1: true, Why: "protocolVersion 1"}.V1JudgedLine("the Agent")
	if rep.V1 != want || rep.Protocol != 1 {
		t.Fatalf("V1 %q, protocol %d; want %q, 1", rep.V1, rep.Protocol, want)
	}
}

func TestAClientThatAsksInV1ShapeIsNamedInOneLine(t *testing.T) {
	rep := v1Trace(`{"protocolVersion":1,"clientCapabilities":{}}`, `{"protocolVersion":1,"agentCapabilities":{}}`, `{"stopReason":"end_turn"}`)
	if want := acp.ReadPeerVersion([]byte(`{"protocolVersion":1}`)).V1JudgedLine("the Client"); rep.V1 != want {
		t.Fatalf("V1 %q, want the Client's line %q (it asked first)", rep.V1, want)
	}
}

// A v2 conversation stays unmarked, even when a frame that is no initialize
// answer happens to carry protocolVersion 1.
func TestAV2TraceIsNotTakenForV1(t *testing.T) {
	for name, rep := range map[string]*Report{
		"v2":                         v1Trace(v2Params, v2Result, `{"stopReason":"end_turn"}`),
		"protocolVersion in a reply": v1Trace(v2Params, v2Result, `{"stopReason":"end_turn","protocolVersion":1}`),
	} {
		if rep.V1 != "" || rep.Protocol != 2 {
			t.Errorf("%s: V1 %q, protocol %d; want none, 2", name, rep.V1, rep.Protocol)
		}
	}
}
