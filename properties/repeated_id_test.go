package properties

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// repeatedIDRun: s1 is inserted as M1; the observer's replay of S1 names M1,
// then an agent reply, then M1 again (twice: the history holds two entries
// under one id) or, in the healthy variant, an update patching M1 right
// after it.
func repeatedIDRun(twice bool) *tb {
	b := newTB("all")
	link := "c1>a1#1"
	b.connect(link)
	b.submit("c1", "s1", "hi")
	id := b.prompt(link, "s1", "S1", "hi", "k1")
	b.answer(link, id, "M1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.disconnect(link, "close")
	b.add(traces.Event{Kind: traces.KindHeal})
	obs := traces.Observer + ">a1#2"
	b.connect(obs)
	lid := b.nextID(obs)
	b.c2a(obs, acp.Request(lid, acp.MethodSessionList, acp.ListSessionsParams{}), "")
	b.a2c(obs, acp.Result(lid, acp.ListSessionsResult{Sessions: []acp.SessionInfo{{SessionID: "S1", Cwd: "/w"}}}))
	rid := b.nextID(obs)
	b.c2a(obs, acp.Request(rid, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: "S1", Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}), "")
	b.userMsg(obs, "S1", "M1", "hi")
	if twice {
		b.a2c(obs, updFrame("S1", acp.MessageUpdate(acp.UpdateAgentMessage, "A1", "done")))
		b.userMsg(obs, "S1", "M1", "hi")
	} else {
		b.userMsg(obs, "S1", "M1", "hi") // a patch of the message just read
		b.a2c(obs, updFrame("S1", acp.MessageUpdate(acp.UpdateAgentMessage, "A1", "done")))
	}
	b.state(obs, "S1", acp.StateIdle)
	b.a2c(obs, acp.Result(rid, nil))
	b.add(traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	return b
}

// A replay that comes back to a message id it had moved past shows two
// history entries under one id: the submission was inserted twice.
func TestRepeatedMessageIDInReplayIsADuplicate(t *testing.T) {
	if r := repeatedIDRun(false).check(); !r.OK() {
		t.Fatalf("a patch right after the message: %+v", r.Anomalies)
	}
	r := repeatedIDRun(true).check()
	if len(r.Anomalies) == 0 || r.Anomalies[0].Kind != Duplicate {
		t.Fatalf("the id twice in the history: %+v", r.Anomalies)
	}
}
