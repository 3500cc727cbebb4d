package properties

import (
	"cmp"
	"slices"

	"github.com/acpsim/acpsim/traces"
)

// The ledger's report (finish.go's finish, over the ledger): every
// judgement run in the checker's order, the anomalies ordered by kind and
// first event, each submission's row, and the ids cut as the prose cut
// them.

// finishReport judges the run and builds its report.
func (lg *ledger) finishReport() *Report {
	rep := &Report{}
	lg.head(rep)
	lg.judge()
	rep.Sessions = lg.sessionContract()
	rep.Stats = lg.ledgerStats()
	rep.Stats.RespLostAfterInsert, rep.Stats.ExpectedForgotten = lg.core.respLost, lg.core.forgotten
	// A run cut at its cap, or one with nothing submitted, is no pass; nor
	// one that stopped while a submission was still to be judged.
	rep.Inconclusive = rep.End == traces.EndCap || len(lg.subOrder) == 0 || len(lg.core.unjudged) > 0
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
