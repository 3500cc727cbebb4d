package properties

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/acpsim/acpsim/traces"
)

// The rewrite's harness (docs/design.md, "The rewrite, step by step"):
// until the switch, the present checker is the oracle, and the ledger is
// held to it on every trace the tests judge, in what it can already say.

// RewriteDiff judges a trace with the present checker and reads it into
// the rewrite's ledger, and says where the two disagree ("" when they
// agree): on every table the ledger keeps (ledger_spell.go) as the
// checker's records hold them after its pass, on the report's head, the
// ingestion fields of every submission's row (submission, Client, text,
// sessions, key, attempts, deliveries, outcome, messageIds answered) and
// the counters of Stats that ingestion alone makes, and on every anomaly
// of the kinds and judgements moved to the ledger. The tests run it on the
// pinned traces, the live runs, and every trace the package's own tests
// judge. It is test support for the rewrite, and goes with the present
// checker at the switch (step 11).
//
// RewriteShadow, NewRewriteShadow and its methods are exported for the
// same tests, in other packages, and go with it.
func RewriteDiff(h traces.Header, events []traces.Event) string {
	evs := inSeqOrder(events)
	s := NewRewriteShadow(h)
	for i := range evs {
		s.Add(&evs[i])
	}
	return s.Diff(h, evs)
}

// RewriteShadow is the rewrite's ledger reading a trace as it is made, for
// a test that sees each event only while it lasts (a send's digest is the
// simulator's only during its event); Diff then holds it to the present
// checker on the whole trace, as RewriteDiff does.
type RewriteShadow struct{ lg *ledger }

// NewRewriteShadow starts a shadow of a trace with header h (what the
// ledger reads of it: the contract, and where the trace was observed).
func NewRewriteShadow(h traces.Header) *RewriteShadow {
	in := NewInterner(true)
	return &RewriteShadow{lg: newLedger(h, in, 0)}
}

// Add reads the next event, in Seq order. The shadow keeps e's strings.
func (s *RewriteShadow) Add(e *traces.Event) {
	st := s.lg.in.Step(e)
	s.lg.add(&st)
}

// Diff judges events (the trace the shadow read, with header h, in Seq
// order) with the present checker, and says where the ledger disagrees.
func (s *RewriteShadow) Diff(h traces.Header, evs []traces.Event) string {
	c := NewBorrowingChecker(h, len(evs))
	for i := range evs {
		c.Add(&evs[i])
	}
	if !reflect.DeepEqual(s.lg.h.Contract, h.Contract) || s.lg.h.Observed != h.Observed {
		return fmt.Sprintf("the shadow read the trace under contract %+v observed %q, the trace's header says %+v observed %q", s.lg.h.Contract, s.lg.h.Observed, h.Contract, h.Observed)
	}
	old := c.c
	if d := diffLines(s.lg.spellTables(), old.spellTables()); d != "" {
		return d
	}
	if d := diffLines(s.lg.spellStories(), old.spellStories()); d != "" {
		return d
	}
	rep := c.Finish()
	if d := diffLines(s.lg.spellSessionVerdict(), old.spellSessionVerdict()); d != "" {
		return d
	}
	got := s.lg.finishReport()
	// The anomalies as each emitted them, before the report cut their ids.
	var gotA, wantA []string
	for _, a := range s.lg.out {
		var subs []string
		for _, h := range a.subs {
			subs = append(subs, s.lg.in.Sub(h))
		}
		gotA = append(gotA, fmt.Sprintf("%s %s %v %s %v: %s", a.Kind, a.Sub, subs, a.Session, a.Events, a.Explanation))
	}
	for _, a := range old.out {
		var subs []string
		for _, x := range a.subs {
			subs = append(subs, x.id)
		}
		wantA = append(wantA, fmt.Sprintf("%s %s %v %s %v: %s", a.Kind, a.Sub, subs, a.Session, a.Events, a.Explanation))
	}
	if d := diffLines(gotA, wantA); d != "" {
		return d
	}
	// The whole report, as a program reads it and as people do.
	return diffLines(reportLines(got), reportLines(rep))
}

// reportLines spells a report as its JSON and its text, line by line.
func reportLines(r *Report) []string {
	js, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return []string{"cannot encode the report: " + err.Error()}
	}
	var text strings.Builder
	r.WriteText(&text)
	return append(strings.Split(string(js), "\n"), strings.Split(text.String(), "\n")...)
}

// judge runs every judgement, in the checker's order (finish.go).
func (lg *ledger) judge() {
	lg.startCore()
	lg.missingReplies()
	for _, s := range lg.subOrder {
		lg.nameInsertions(s)
	}
	lg.attribute()
	for _, s := range lg.subOrder {
		if lg.core.subs[s].byText > 0 {
			lg.sortAttrs(s) // tell them in transcript order, whichever way attributed
		}
	}
	lg.judgeSessions()
	lg.judgeSetups()
	for _, s := range lg.subOrder {
		lg.judgeSub(s)
	}
	lg.reportSetups()
	lg.judgeShared()
	lg.judgeAnswers() // after judgeSub and judgeShared, which may have told it already
	lg.judgeLiveIDs()
	lg.judgeRework()
	lg.judgeLeaks()
	lg.judgeReplies()
	for _, s := range lg.subOrder {
		for ri := lg.subs[s].firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
			if lg.lostAfterInsert(ri) {
				lg.core.respLost++
			}
		}
		if lg.core.subs[s].byText > 0 {
			lg.core.respLost++
		}
	}
}

// rows are the report's submission rows as far as the ledger makes them.
func (lg *ledger) rows() []SubmissionResult {
	in := lg.in
	out := make([]SubmissionResult, 0, len(lg.subOrder))
	for _, h := range lg.subOrder {
		s := &lg.subs[h]
		r := SubmissionResult{Sub: in.Sub(h), Client: in.wordName(s.client), Text: in.textName(s.text),
			Attempts: int(s.attempts), Outcome: in.wordName(s.outcome), MessageID: in.IDName(s.outcomeMsg), Mixed: s.mixed}
		for j := s.sessions; j != none; j = lg.sessions[j].next {
			r.Sessions = append(r.Sessions, in.IDName(lg.sessions[j].session))
		}
		if s.keyed && !s.mixed {
			r.Key = in.IDName(s.key)
		}
		for i := s.firstReq; i != none; i = lg.reqs[i].nextOfSub {
			if lg.reqs[i].delivered {
				r.Delivered++
			}
		}
		for j := s.answers; j != none; j = lg.answers[j].next {
			r.Answered = append(r.Answered, in.IDName(lg.answers[j].msg))
		}
		out = append(out, r)
	}
	return out
}

// ledgerStats are the counters of Stats the ledger makes.
func (lg *ledger) ledgerStats() Stats {
	st := lg.stats
	st.Submissions = len(lg.subOrder)
	st.Sessions = len(lg.created)
	for _, id := range lg.created {
		if int(id) >= len(lg.used) || !lg.used[id] {
			st.UnusedSessions++
		}
	}
	return st
}
