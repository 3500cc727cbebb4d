package properties

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// crashBesideCancel: a real Agent (seen at acpsim check's proxy) is written
// an unkeyed prompt and, in the same burst, a session/cancel of its
// session; it inserts the prompt and dies (a crash after insertion) before
// it answers anything. The proxy saw both frames written, not read: the
// Agent may well have inserted the prompt before it would have read the
// cancel. With evidence that it read the cancel (it answered a later
// request), the insertion is after the cancel, and a bad reply.
func crashBesideCancel(readCancel bool) *tb {
	b := newTB("all")
	b.h.Observed = traces.ObservedAtProxy
	b.connect(L1)
	b.submit("c1", "s1", text)
	b.prompt(L1, "s1", S1, text, nil)
	frame := cancelFrame(S1)
	b.send(L1, traces.ClientToAgent, frame, "")
	b.deliver(L1, traces.ClientToAgent, frame, "")
	if readCancel {
		b.resume(L1, S1) // answered after the cancel: the Agent read it
	}
	b.disconnect(L1, "exit")
	b.kill("a1#1")
	b.outcome("c1", "s1", traces.OutcomeUnknown, "")
	b.restart("a1#2")
	b.observe("a1#2", sess{S1, []msg{{id: "M1", text: text}}})
	b.finish("quiet", Obs2)
	return b
}

func TestAPromptInsertedBesideACancelTheAgentNeverReadIsNoBadReply(t *testing.T) {
	if r := crashBesideCancel(false).check(); !r.OK() {
		t.Fatalf("an Agent that died before it could have read the cancel was blamed:\n%s", text0(r))
	}
	r := crashBesideCancel(true).check()
	if r.OK() || r.Anomalies[0].Kind != BadReply || !strings.Contains(r.Anomalies[0].Explanation, "inserted after the Client had cancelled it") {
		t.Fatalf("an Agent that read the cancel and inserted the prompt afterwards must fail:\n%s", text0(r))
	}
}

func text0(r *Report) string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}
