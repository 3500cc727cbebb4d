package properties

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// forkRun: s1 is inserted in S1 as M1; the user forks S1 into S2 (the Agent
// copies M1 as C1); s2 is inserted in S2 as M2. With lostAnswer the fork's
// answer never reaches the wire (the Agent died after storing the fork), so
// only the copy's text ties S2 to S1. extraCopy adds a message to S2's
// history that is no copy: no request could have inserted it.
func forkRun(lostAnswer, extraCopy bool) *tb {
	b := newTB("all")
	link := "c1>a1#1"
	b.connect(link)
	b.submit("c1", "s1", "hi")
	id := b.prompt(link, "s1", "S1", "hi", "k1")
	b.answer(link, id, "M1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	fid := b.nextID(link)
	b.c2a(link, acp.Request(fid, acp.MethodSessionFork, acp.ForkSessionParams{SessionID: "S1", Cwd: "/w"}), "")
	s2 := []msg{{id: "C1", text: "hi"}}
	if extraCopy {
		s2 = append(s2, msg{id: "X9", text: "never sent"})
	}
	if !lostAnswer {
		b.a2c(link, acp.Result(fid, acp.NewSessionResult{SessionID: "S2"}))
		b.submit("c1", "s2", "more")
		id = b.prompt(link, "s2", "S2", "more", "k1") // the same key string in the fork: a new submission
		b.answer(link, id, "M2")
		b.outcome("c1", "s2", traces.OutcomeInserted, "M2")
		s2 = append(s2, msg{id: "M2", text: "more"})
	}
	if lostAnswer {
		b.kill("a1#1")
		b.disconnect(link, "kill")
	} else {
		b.disconnect(link, "close")
	}
	b.observe("a1#2", sess{id: "S1", msgs: []msg{{id: "M1", text: "hi"}}}, sess{id: "S2", msgs: s2})
	b.add(traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	return b
}

// A fork starts with copies of its parent's history: no submission inserted
// them, and they are neither duplicates nor unattributable, whether the fork's
// answer reached the Client or was lost with the Agent.
func TestForkCopiesBelongToNoSubmission(t *testing.T) {
	for _, lost := range []bool{false, true} {
		r := forkRun(lost, false).check()
		if !r.OK() {
			var kinds []string
			for _, a := range r.Anomalies {
				kinds = append(kinds, a.Kind+": "+a.Explanation)
			}
			t.Fatalf("lost answer %v: %v", lost, kinds)
		}
	}
}

// Only the copied prefix is excused: a message in the fork that copies
// nothing of the parent is still one no request explains.
func TestForkExcusesOnlyTheCopiedPrefix(t *testing.T) {
	for _, lost := range []bool{false, true} {
		r := forkRun(lost, true).check()
		found := false
		for _, a := range r.Anomalies {
			found = found || a.Kind == Unattributable
		}
		if !found {
			t.Fatalf("lost answer %v: the extra message was excused: %+v", lost, r.Anomalies)
		}
	}
}

// Under retention the parent may have dropped the message the fork copied:
// the copy still belongs to no submission, because the parent once held its
// text.
func TestForkCopyOfAMessageTheParentDropped(t *testing.T) {
	b := newTB("last 1")
	link := "c1>a1#1"
	b.connect(link)
	b.submit("c1", "s1", "hi")
	id := b.prompt(link, "s1", "S1", "hi", "k1")
	b.answer(link, id, "M1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	fid := b.nextID(link)
	b.c2a(link, acp.Request(fid, acp.MethodSessionFork, acp.ForkSessionParams{SessionID: "S1", Cwd: "/w"}), "")
	b.a2c(link, acp.Result(fid, acp.NewSessionResult{SessionID: "S2"}))
	b.submit("c1", "s2", "later")
	id = b.prompt(link, "s2", "S1", "later", "k2")
	b.answer(link, id, "M2")
	b.outcome("c1", "s2", traces.OutcomeInserted, "M2")
	b.disconnect(link, "close")
	b.observe("a1#2", sess{id: "S1", msgs: []msg{{id: "M2", text: "later"}}}, sess{id: "S2", msgs: []msg{{id: "C1", text: "hi"}}})
	b.add(traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	if r := b.check(); !r.OK() {
		t.Fatalf("%+v", r.Anomalies)
	}
	// Without retention the same history is wrong: S1 lost M1.
	b.h.Contract.Retention = "all"
	if r := b.check(); r.OK() {
		t.Fatal("with retention all, M1 missing from S1 went unreported")
	}
}

// A fork whose history starts with a message its own submission inserted
// (an Agent whose fork copied nothing) has no copied prefix, however its
// texts line up with the parent's: a later message of the fork that no
// response named is a submission's insertion to attribute, not a copy.
func TestAForkStartingWithItsOwnMessageCopiedNothing(t *testing.T) {
	b := newTB("all")
	link := "c1>a1#1"
	b.connect(link)
	for _, s := range []struct{ sub, text, msg string }{{"s1", "hi", "M1"}, {"s2", "bye", "M2"}} {
		b.submit("c1", s.sub, s.text)
		b.answer(link, b.prompt(link, s.sub, "S1", s.text, nil), s.msg)
		b.outcome("c1", s.sub, traces.OutcomeInserted, s.msg)
	}
	fid := b.nextID(link)
	b.c2a(link, acp.Request(fid, acp.MethodSessionFork, acp.ForkSessionParams{SessionID: "S1", Cwd: "/w"}), "")
	b.a2c(link, acp.Result(fid, acp.NewSessionResult{SessionID: "S2"}))
	b.submit("c1", "s3", "hi")
	b.answer(link, b.prompt(link, "s3", "S2", "hi", nil), "M3")
	b.outcome("c1", "s3", traces.OutcomeInserted, "M3")
	b.submit("c1", "s4", "bye")
	b.prompt(link, "s4", "S2", "bye", nil) // inserted as M4, then the Agent died
	b.kill("a1#1")
	b.disconnect(link, "kill")
	b.outcome("c1", "s4", traces.OutcomeAbandoned, "")
	b.observe("a1#2", sess{id: "S1", msgs: []msg{{id: "M1", text: "hi"}, {id: "M2", text: "bye"}}},
		sess{id: "S2", msgs: []msg{{id: "M3", text: "hi"}, {id: "M4", text: "bye"}}})
	b.add(traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	r := b.check()
	if !r.OK() {
		t.Fatalf("M4 was taken for a copy of the parent's: %+v", r.Anomalies)
	}
	s4 := r.Submissions[3]
	if s4.Sub != "s4" || len(s4.Transcript) != 1 || s4.ByText != 1 {
		t.Fatalf("s4 should hold M4 by text: %+v", s4)
	}
}

// An Agent that answers two session/fork requests with one new session id
// made that session once: by the first answer, whose parent's history it
// copies. A copy of the first parent's history is no one's insertion, and
// the second answer does not make it one.
func TestASessionTwoForksNameIsTheFirstOnesChild(t *testing.T) {
	b := newTB("all")
	link := "c1>a1#1"
	b.connect(link)
	for _, s := range []struct{ sub, session, text, msg string }{{"s1", "P1", "a", "M1"}, {"s2", "P2", "b", "M2"}} {
		b.submit("c1", s.sub, s.text)
		b.answer(link, b.prompt(link, s.sub, s.session, s.text, nil), s.msg)
		b.outcome("c1", s.sub, traces.OutcomeInserted, s.msg)
	}
	for _, parent := range []string{"P1", "P2"} {
		fid := b.nextID(link)
		b.c2a(link, acp.Request(fid, acp.MethodSessionFork, acp.ForkSessionParams{SessionID: parent, Cwd: "/w"}), "")
		b.a2c(link, acp.Result(fid, acp.NewSessionResult{SessionID: "C"}))
	}
	b.disconnect(link, "close")
	b.observe("a1#1", sess{id: "P1", msgs: []msg{{id: "M1", text: "a"}}}, sess{id: "P2", msgs: []msg{{id: "M2", text: "b"}}},
		sess{id: "C", msgs: []msg{{id: "C1", text: "a"}}})
	b.add(traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	if r := b.check(); !r.OK() {
		t.Fatalf("the copy of P1's history was judged: %+v", r.Anomalies)
	}
}
