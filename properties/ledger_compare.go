package properties

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
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
	if d := s.lg.diff(rep); d != "" {
		return d
	}
	if d := diffLines(s.lg.spellSessionVerdict(), old.spellSessionVerdict()); d != "" {
		return d
	}
	// The families the ledger judges: their anomalies as the checker
	// emitted them, before the report cut their ids.
	s.lg.judge()
	// Finish orders the checker's by kind, then by first event (stably).
	rank := func(k string) int { return slices.Index(Kinds, k) }
	slices.SortStableFunc(s.lg.out, func(a, b ledgerAnomaly) int {
		if ra, rb := rank(a.Kind), rank(b.Kind); ra != rb {
			return ra - rb
		}
		return cmp.Compare(firstOf(a.Events), firstOf(b.Events))
	})
	var got, want []string
	for _, a := range s.lg.out {
		var subs []string
		for _, h := range a.subs {
			subs = append(subs, s.lg.in.Sub(h))
		}
		got = append(got, fmt.Sprintf("%s %s %v %s %v: %s", a.Kind, a.Sub, subs, a.Session, a.Events, a.Explanation))
	}
	for _, a := range old.out {
		if slices.Contains(ledgerKinds, a.Kind) || slices.Contains(ledgerJudgements, a.by) {
			var subs []string
			for _, x := range a.subs {
				subs = append(subs, x.id)
			}
			want = append(want, fmt.Sprintf("%s %s %v %s %v: %s", a.Kind, a.Sub, subs, a.Session, a.Events, a.Explanation))
		}
	}
	if s.lg.inconclusive && !rep.Inconclusive {
		return "the ledger found the run stopped while busy (inconclusive), the checker's report is not inconclusive"
	}
	return diffLines(got, want)
}

// ledgerKinds are the anomaly kinds the ledger judges so far, each
// wholly: every anomaly of the kind the checker reports, the ledger does.
var ledgerKinds = []string{SessionLost, Rework, KeyLeak, StrayCancel, SetupFailed}

// ledgerJudgements are the judgements of the kinds several report (the
// checker's anomaly.by) the ledger judges.
var ledgerJudgements = []string{byMissingReplies, byCancelled, byRefusedKeys, byReplies}

// judge runs the families the ledger judges, in the checker's order.
func (lg *ledger) judge() {
	lg.missingReplies()
	lg.judgeSessions()
	lg.judgeSetups()
	lg.reportSetups()
	lg.judgeRework()
	lg.judgeLeaks()
	lg.judgeReplies()
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

// diff says where the ledger reads otherwise than rep.
func (lg *ledger) diff(rep *Report) string {
	var out []string
	want := rep.Stats
	// What rules make, the ledger does not yet.
	want.RespLostAfterInsert, want.ExpectedForgotten = 0, 0
	if got := lg.ledgerStats(); got != want {
		out = append(out, fmt.Sprintf("stats: ledger %+v, checker %+v", got, want))
	}
	var head Report
	lg.head(&head)
	if head.Protocol != rep.Protocol || head.V1 != rep.V1 || head.End != rep.End || head.NothingJudged != rep.NothingJudged || !slices.Equal(head.NotJudged, rep.NotJudged) {
		out = append(out, fmt.Sprintf("head: ledger %d %q %q %q %v, checker %d %q %q %q %v", head.Protocol, head.V1, head.End, head.NothingJudged, head.NotJudged,
			rep.Protocol, rep.V1, rep.End, rep.NothingJudged, rep.NotJudged))
	}
	if got := lg.sessionContract(); got != rep.Sessions {
		out = append(out, fmt.Sprintf("session contract: ledger %+v, checker %+v", got, rep.Sessions))
	}
	rows := lg.rows()
	if len(rows) != len(rep.Submissions) {
		out = append(out, fmt.Sprintf("%d submissions, the checker's %d", len(rows), len(rep.Submissions)))
	}
	for i := range min(len(rows), len(rep.Submissions)) {
		got, want := rows[i], ingested(rep.Submissions[i])
		if !sameRow(got, want) {
			out = append(out, fmt.Sprintf("submission %d: ledger %+v, checker %+v", i+1, got, want))
		}
	}
	return strings.Join(out, "\n")
}

// ingested is r with only the fields the ledger makes.
func ingested(r SubmissionResult) SubmissionResult {
	return SubmissionResult{Sub: r.Sub, Client: r.Client, Text: r.Text, Sessions: r.Sessions, Key: r.Key, Mixed: r.Mixed,
		Attempts: r.Attempts, Delivered: r.Delivered, Outcome: r.Outcome, MessageID: r.MessageID, Answered: r.Answered}
}

func sameRow(a, b SubmissionResult) bool {
	return a.Sub == b.Sub && a.Client == b.Client && a.Text == b.Text && slices.Equal(a.Sessions, b.Sessions) &&
		a.Key == b.Key && a.Mixed == b.Mixed && a.Attempts == b.Attempts && a.Delivered == b.Delivered &&
		a.Outcome == b.Outcome && a.MessageID == b.MessageID && slices.Equal(a.Answered, b.Answered)
}
