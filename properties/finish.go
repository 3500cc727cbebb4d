package properties

import (
	"cmp"
	"slices"

	"github.com/acpsim/acpsim/traces"
)

// After the pass: run every judgement, then order the anomalies (by kind,
// then first event) and fill the report (each submission's row, the ids
// cut as the prose cut them), so equal traces give equal reports.

// finishReport judges the run and builds its report.
func (lg *ledger) finishReport() *Report {
	rep := &Report{}
	lg.head(rep)
	lg.judge()
	rep.Sessions = lg.sessionContract()
	rep.Stats = lg.ledgerStats()
	rep.Stats.RespLostAfterInsert, rep.Stats.ExpectedForgotten = lg.core.respLost, lg.core.forgotten
	// A run cut at its cap, or one with nothing submitted, is no pass; nor
	// one that stopped while a submission was still to be judged, or while
	// a request was pending on a live link (missingReplies).
	rep.Inconclusive = rep.End == traces.EndCap || len(lg.subOrder) == 0 || len(lg.core.unjudged) > 0 || lg.inconclusive
	rep.Unjudged = lg.core.unjudged
	rep.Accounts = lg.accounts()
	lg.sortAnomalies()
	kinds := make([][]string, len(lg.subs))
	for _, a := range lg.out {
		rep.Anomalies = append(rep.Anomalies, a.Anomaly)
		for _, s := range a.subs {
			if n := len(kinds[s]); n == 0 || kinds[s][n-1] != a.Kind {
				kinds[s] = append(kinds[s], a.Kind)
			}
		}
	}
	rows := lg.rows()
	for i, s := range lg.subOrder {
		c := &lg.core.subs[s]
		r := &rows[i]
		r.ByText, r.Anomalies, r.Inconclusive = int(c.byText), kinds[s], c.unjudged
		if r.Sessions == nil {
			r.Sessions = []string{} // a submission with no prompt request names none, as a list
		}
		for j := c.msgs; j != none; j = lg.core.attrs[j].next {
			r.Transcript = append(r.Transcript, lg.in.IDName(lg.fmsgs[lg.core.attrs[j].m].id))
		}
	}
	if len(rows) > 0 {
		rep.Submissions = rows
	}
	rep.cutIDs()
	return rep
}

// sortAnomalies orders the anomalies by kind (as in Kinds), then by their
// first event, stably.
func (lg *ledger) sortAnomalies() {
	rank := func(k string) int { return slices.Index(Kinds, k) }
	slices.SortStableFunc(lg.out, func(a, b ledgerAnomaly) int {
		if ra, rb := rank(a.Kind), rank(b.Kind); ra != rb {
			return ra - rb
		}
		return cmp.Compare(firstOf(a.Events), firstOf(b.Events))
	})
}

// NeedWholeHistory are the kinds a trace recorded by acpsim tap cannot show:
// they need what the users were told, an observer's final transcript, or
// the run's end, and a tap sees only the frames that passed it.
var NeedWholeHistory = []string{Lost, SessionLost, Phantom, Unresolved, Unattributable}

func firstOf(seqs []int64) int64 {
	if len(seqs) == 0 {
		return 1<<63 - 1
	}
	return seqs[0]
}

// judge runs every judgement. The order matters where a rule reads what
// another decided: the insertions responses name come before attribution
// (a candidate's verdict class counts them), attribution before the
// verdicts, judgeSetups before judgeSub (subRow.unchecked) and
// reportSetups, and the verdicts and judgeShared before judgeAnswers and
// judgeLiveIDs, which do not tell again what was told. Elsewhere the
// order only breaks ties between anomalies of one kind and first event.
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
