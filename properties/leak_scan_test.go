package properties

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The two ways a key reaches the index that no other test's trace takes,
// each judged through Check.

func keyLeaks(r *Report) []Anomaly {
	var out []Anomaly
	for _, a := range r.Anomalies {
		if a.Kind == KeyLeak {
			out = append(out, a)
		}
	}
	return out
}

// A frame sent with no direction recorded, from the Agent's end of its link,
// may still be a Client's: a key it carries is sent from then on (not in
// the frame itself, scanned first), and leaks when the Agent writes it, with
// no request of the checker's to name. The frame is read as the Agent's
// too: its own field name is one leak.
func TestKeyLeakOfAFrameWithNoDirection(t *testing.T) {
	_, agent := ends(L1)
	relayed := func(b *tb) {
		b.a2c(L1, []byte(agentMessage(`"`+K2+`"`))) // the Agent's own string yet
		frame := string(promptFrame(acp.NumID(77), S1, "relayed", K2))
		b.add(traces.Event{Kind: traces.KindSend, Link: L1, From: agent, To: "c1", Frame: frame})
		b.add(traces.Event{Kind: traces.KindDeliver, Link: L1, From: agent, To: "c1", Frame: frame})
		b.a2c(L1, []byte(agentMessage(`"`+K2+`"`)))
	}
	b := single{extra: relayed}.build()
	leaks := keyLeaks(b.check())
	if len(leaks) != 2 {
		t.Fatalf("%d key-leaks, want 2: %+v", len(leaks), leaks)
	}
	if a := leaks[0]; !strings.HasPrefix(a.Explanation, "the Agent wrote the field name \"idempotencyKey\" as an object key in a session/prompt") {
		t.Fatalf("leak: %+v", a)
	}
	if a := leaks[1]; !strings.Contains(a.Explanation, "key \""+K2+"\" leaked: a Client sent it;") || a.Sub != "" || len(a.Events) != 1 {
		t.Fatalf("leak: %+v", a)
	}
}

// A key's first request is the first that carried it, though only its
// delivery is in the trace: a delivery never sent does not make its key
// sent (the Agent may write it), but names the request a leak tells of
// once a send has.
func TestKeyLeakNamesAFirstRequestNeverSent(t *testing.T) {
	unsent := func(b *tb) {
		b.deliver(L1, traces.ClientToAgent, promptFrame(acp.NumID(90), S1, "early", K2), "")
		b.a2c(L1, []byte(agentMessage(`"`+K2+`"`))) // not sent yet: no leak
	}
	sent := func(b *tb) {
		b.c2a(L1, promptFrame(acp.NumID(91), S1, "late", K2), "")
		b.a2c(L1, []byte(agentMessage(`"`+K2+`"`)))
	}
	b := single{early: unsent, extra: sent}.build()
	leaks := keyLeaks(b.check())
	if len(leaks) != 1 {
		t.Fatalf("%d key-leaks, want 1: %+v", len(leaks), leaks)
	}
	if a := leaks[0]; !strings.Contains(a.Explanation, "c1 sent it as the idempotencyKey of session/prompt request 90 on "+L1) {
		t.Fatalf("leak: %+v", a)
	}
}
