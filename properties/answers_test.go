package properties

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// A response must name its own submission's message, and a live user_message
// must carry the id the response gave: the known-bad patterns, each beside
// the legal history it is easily confused with.

// forkAnswer: s1 ("hi", key k1) is inserted in S1 as M1; the user forks S1
// into S2, which starts with C1, the Agent's copy of M1. s2 ("more") sends
// the same key string k1 in S2: a new submission. mode says how the Agent
// answers it: "insert" (M2, right), "copy" (C1, the inherited copy: the
// prompt is never inserted), "copy-and-insert" (C1, though it did insert M2).
func forkAnswer(mode string) *tb {
	b := newTB("all")
	link := "c1>a1#1"
	b.connect(link)
	b.submit("c1", "s1", "hi")
	id := b.prompt(link, "s1", "S1", "hi", "k1")
	b.answer(link, id, "M1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	fid := b.nextID(link)
	b.c2a(link, acp.Request(fid, acp.MethodSessionFork, acp.ForkSessionParams{SessionID: "S1", Cwd: "/w"}), "")
	b.a2c(link, acp.Result(fid, acp.NewSessionResult{SessionID: "S2"}))
	b.submit("c1", "s2", "more")
	id = b.prompt(link, "s2", "S2", "more", "k1")
	s2 := []msg{{id: "C1", text: "hi"}}
	answered := "M2"
	if mode != "insert" {
		answered = "C1"
	}
	b.answer(link, id, answered)
	b.outcome("c1", "s2", traces.OutcomeInserted, answered)
	if mode != "copy" {
		s2 = append(s2, msg{id: "M2", text: "more"})
	}
	b.disconnect(link, "close")
	b.observe("a1#2", sess{id: "S1", msgs: []msg{{id: "M1", text: "hi"}}}, sess{id: "S2", msgs: s2})
	b.add(traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	return b
}

// onlyAnomaly fails unless r holds exactly one anomaly, of kind, about sub,
// whose explanation says every one of says; it returns the explanation.
func onlyAnomaly(t *testing.T, r *Report, kind, sub string, says ...string) string {
	t.Helper()
	if len(r.Anomalies) != 1 {
		t.Fatalf("want one %s about %s, got %d anomalies: %+v", kind, sub, len(r.Anomalies), r.Anomalies)
	}
	a := r.Anomalies[0]
	if a.Kind != kind || a.Sub != sub {
		t.Fatalf("want %s about %s, got %s about %s: %s", kind, sub, a.Kind, a.Sub, a.Explanation)
	}
	for _, s := range says {
		if !strings.Contains(a.Explanation, s) {
			t.Errorf("the explanation does not say %q: %s", s, a.Explanation)
		}
	}
	return a.Explanation
}

// The fork's inherited copy is legitimately in the fork's transcript; a new
// submission in the fork answered with it was never inserted: lost, with
// both texts; answered with it though its own message is there: wrong-id.
func TestAnAnswerNamingAForksInheritedCopy(t *testing.T) {
	if r := forkAnswer("insert").check(); !r.OK() {
		t.Fatalf("the right answer is reported: %+v", r.Anomalies)
	}
	onlyAnomaly(t, forkAnswer("copy").check(), Lost, "s2",
		`holds C1 as "hi", a copy the fork inherited from its parent S1, not the prompt "more"`, "never inserted")
	onlyAnomaly(t, forkAnswer("copy-and-insert").check(), WrongID, "s2",
		`holds C1 as "hi"`, `not the prompt "more"`, "its text is the transcript's M2")
}

// anotherSubs: s1 ("first", K1) is inserted as M1 but the Agent dies before
// answering; s2 ("second", K2) is inserted as M2 on the next process; s1's
// retry arrives and, with wrong, is answered with M2, the session's newest
// message, before s2's own answer names it.
func anotherSubs(wrong bool) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", "first")
	b.prompt(L1, "s1", S1, "first", K1)
	b.insert(S1, "M1", "first")
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	b.restart("a1#2")
	b.connect(L2)
	b.resume(L2, S1)
	b.submit("c1", "s2", "second")
	id2 := b.prompt(L2, "s2", S1, "second", K2)
	b.insert(S1, "M2", "second")
	retry := b.prompt(L2, "s1", S1, "first", K1)
	answered := "M1"
	if wrong {
		answered = "M2"
	}
	b.answer(L2, retry, answered)
	b.answer(L2, id2, "M2")
	b.userMsg(L2, S1, "M2", "second")
	b.turn(L2, S1, "O2")
	b.outcome("c1", "s1", traces.OutcomeInserted, answered)
	b.outcome("c1", "s2", traces.OutcomeInserted, "M2")
	b.observe("a1#2", sess{S1, []msg{{id: "M1", text: "first"}, {id: "M2", text: "second"}}})
	b.finish(traces.EndQuiet, L2, Obs2)
	return b
}

// A retry answered with another submission's message is that retry's
// wrong-id, quoting both texts; the submission that inserted the message
// keeps it, and neither is a duplicate.
func TestARetryAnsweredWithAnotherSubmissionsMessage(t *testing.T) {
	if r := anotherSubs(false).check(); !r.OK() {
		t.Fatalf("the right answer is reported: %+v", r.Anomalies)
	}
	r := anotherSubs(true).check()
	onlyAnomaly(t, r, WrongID, "s1", `holds M2 as "second", s2's message, not the prompt "first"`, "its text is the transcript's M1")
	for _, s := range r.Submissions {
		if len(s.Transcript) != 1 {
			t.Errorf("%s holds %v, want its one message", s.Sub, s.Transcript)
		}
	}
}

// The RFD lets an Agent that does not compare prompts answer a reused key
// with another prompt as a retry: the Agent is not at fault, and the one
// anomaly is the Client's (two submissions given one message), not a lost
// or a second wrong-id for the text the answer names.
func TestAReusedKeyAnsweredAsARetryIsTheClientsAnomalyOnly(t *testing.T) {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", "first")
	id := b.prompt(L1, "s1", S1, "first", K1)
	b.answer(L1, id, "M1")
	b.userMsg(L1, S1, "M1", "first")
	b.turn(L1, S1, "O1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.submit("c1", "s2", "second")
	id = b.prompt(L1, "s2", S1, "second", K1) // the reuse-key Client's bug
	b.answer(L1, id, "M1")
	b.outcome("c1", "s2", traces.OutcomeInserted, "M1")
	b.observe("a1#1", sess{S1, []msg{{id: "M1", text: "first"}}})
	b.finish(traces.EndQuiet, L1, Obs1)
	onlyAnomaly(t, b.check(), WrongID, "s2", "one message cannot be the insertion of two submissions")
}

// freshLive: s1 is inserted as M1, answered and announced; its retry is
// answered from the binding with M1 and, with announce, the Agent announces
// the prompt live once more, under id (on the retry's link): whole, in
// chunks, or (patched) a first chunk then the whole message replacing it.
func freshLive(announce, how string) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.answer(L1, id, "M1")
	b.userMsg(L1, S1, "M1", text)
	b.turn(L1, S1, "O1")
	retry := b.prompt(L1, "s1", S1, text, K1)
	b.answer(L1, retry, "M1")
	switch {
	case announce != "" && how == "chunks":
		b.a2c(L1, updFrame(S1, acp.ChunkUpdate(acp.UpdateUserMessageChunk, announce, "fix ")))
		b.a2c(L1, updFrame(S1, acp.ChunkUpdate(acp.UpdateUserMessageChunk, announce, "the tests")))
	case announce != "" && how == "patched":
		b.a2c(L1, updFrame(S1, acp.ChunkUpdate(acp.UpdateUserMessageChunk, announce, "fix ")))
		b.userMsg(L1, S1, announce, text)
	case announce != "":
		b.userMsg(L1, S1, announce, text)
	}
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.observe("a1#1", sess{S1, []msg{{id: "M1", text: text}}})
	b.finish(traces.EndQuiet, L1, Obs1)
	return b
}

// A retry answered with the original id but announced live under a new one
// is a duplicate only the updates show, whole, in chunks, or a chunk a
// whole message then replaced; announcing the
// original id again, or nothing, is fine.
func TestARetryAnnouncedLiveUnderAnotherID(t *testing.T) {
	for _, ok := range []string{"", "M1"} {
		if r := freshLive(ok, "whole").check(); !r.OK() {
			t.Fatalf("announcing %q is reported: %+v", ok, r.Anomalies)
		}
	}
	for _, how := range []string{"whole", "chunks", "patched"} {
		onlyAnomaly(t, freshLive("M9", how).check(), Duplicate, "s1",
			"answered with messageId M1", `a user_message "fix the tests" under another messageId, M9`, "holds M1 once")
	}
}

// A live-only message is announced and answered under one id and never
// retained: after its link ended the Agent may forget its key, and a retry
// on a new link gets, and announces, a new id. Neither the missing messages
// nor the new ids are a finding.
func TestLiveOnlyIDsMissingFromTheTranscriptAreNoFinding(t *testing.T) {
	b := newTB("all")
	b.h.Contract.LiveOnly = []string{"/"}
	b.connect(L1)
	b.submit("c1", "s1", "/status")
	id := b.prompt(L1, "s1", S1, "/status", K1)
	b.answer(L1, id, "M1")
	b.userMsg(L1, S1, "M1", "/status")
	b.disconnect(L1, "cut")
	b.connect(L2)
	b.resume(L2, S1)
	id = b.prompt(L2, "s1", S1, "/status", K1)
	b.answer(L2, id, "M2")
	b.userMsg(L2, S1, "M2", "/status")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M2")
	b.observe("a1#1", sess{S1, nil})
	b.finish(traces.EndQuiet, L2, Obs1)
	if r := b.check(); !r.OK() {
		t.Fatalf("%+v", r.Anomalies)
	}
}

// A message first named for a submission of another text belongs to the
// first submission of its own text answered with it, not to a later one.
func TestAMisnamedMessageGoesToTheFirstOfItsTextAnsweredWithIt(t *testing.T) {
	b := newTB("all")
	link := "c1>a1#1"
	b.connect(link)
	for _, s := range []struct{ sub, text string }{{"sA", "x"}, {"sB", "y"}, {"sC", "y"}} {
		b.submit("c1", s.sub, s.text)
		b.answer(link, b.prompt(link, s.sub, "S1", s.text, nil), "M1")
		b.outcome("c1", s.sub, traces.OutcomeInserted, "M1")
	}
	b.disconnect(link, "close")
	b.observe("a1#1", sess{id: "S1", msgs: []msg{{id: "M1", text: "y"}}})
	b.add(traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	r := b.check()
	var holders []string
	for _, s := range r.Submissions {
		if len(s.Transcript) > 0 {
			holders = append(holders, s.Sub)
		}
	}
	if len(holders) != 1 || holders[0] != "sB" {
		t.Fatalf("M1 should be sB's, the first of its text answered with it; held by %v", holders)
	}
	if r.OK() {
		t.Fatalf("three submissions answered with one message passed")
	}
}
