package properties

import (
	"sort"
)

// The accounts of a verdict (account.go says what they are), over the
// ledger: for each property, how many submissions it was judged for, and
// why not the rest.

// accounts are the report's accounts, once every submission is judged.
func (lg *ledger) accounts() []Account {
	tap := lg.tap()
	dup := Account{Property: Duplicate}
	lost := Account{Property: Lost}
	phantom := Account{Property: Phantom}
	unresolved := Account{Property: Unresolved}
	not := map[*Account]map[string]int{}
	skip := func(a *Account, why string) {
		if not[a] == nil {
			not[a] = map[string]int{}
		}
		not[a][why]++
	}
	for _, s := range lg.subOrder {
		x, c := &lg.subs[s], &lg.core.subs[s]
		read := lg.transcriptRead(s)
		dup.Of++
		switch {
		case read || !lg.anyDelivered(s):
			dup.Judged++
		case lg.v1:
			skip(&dup, "no transcript of their session was read, and ACP v1's answers name no message")
		default:
			dup.Partly++
		}
		switch {
		case tap:
			lost.Of++
			skip(&lost, tapWhy)
		case c.loss == lossJudged:
			lost.Of++
			lost.Judged++
		case c.loss != lossNotApplicable:
			lost.Of++
			skip(&lost, lossWhy[c.loss])
		case c.unjudged && x.nOutcomes == 0:
			lost.Of++
			skip(&lost, "they had no outcome when the run stopped")
		}
		if x.outcome == wFailed || tap {
			phantom.Of++
			switch {
			case tap:
				skip(&phantom, tapWhy)
			case read:
				phantom.Judged++
			default:
				skip(&phantom, "no transcript of their session was read")
			}
		}
		unresolved.Of++
		switch {
		case tap:
			skip(&unresolved, tapWhy)
		case c.unjudged && x.nOutcomes == 0:
			skip(&unresolved, "the run stopped while they were pending")
		default:
			unresolved.Judged++
		}
	}
	var out []Account
	for _, a := range []*Account{&dup, &lost, &phantom, &unresolved} {
		for why, n := range not[a] {
			a.NotJudged = append(a.NotJudged, NotJudged{N: n, Why: why})
		}
		sort.Slice(a.NotJudged, func(i, j int) bool {
			x, y := a.NotJudged[i], a.NotJudged[j]
			return x.N > y.N || x.N == y.N && x.Why < y.Why
		})
		out = append(out, *a)
	}
	return out
}

// transcriptRead reports whether the final transcript of a session s was
// sent in was read.
func (lg *ledger) transcriptRead(s int32) bool {
	for j := lg.subs[s].sessions; j != none; j = lg.sessions[j].next {
		if lg.fin(lg.sessions[j].session) != nil {
			return true
		}
	}
	return false
}

// anyDelivered reports whether a prompt request of s reached the Agent.
func (lg *ledger) anyDelivered(s int32) bool {
	for ri := lg.subs[s].firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
		if lg.reqs[ri].delivered {
			return true
		}
	}
	return false
}
