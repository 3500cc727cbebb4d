package properties

import (
	"fmt"
	"slices"
	"sort"

	"github.com/acpsim/acpsim/traces"
)

// Explanations must let a reader check an anomaly by hand: these name
// submissions and requests, and collect the events an explanation cites
// (story.go tells what became of each request and what the user was
// told).

// ledgerAnomaly is an anomaly and every submission it concerns (by
// handle; an unattributable group concerns several), for the table's
// anomalies column.
type ledgerAnomaly struct {
	Anomaly
	subs []int32
}

// report adds an anomaly of kind about submission s (none: no
// submission) in session. A trace recorded at a tap cannot show the kinds
// that need the whole history (NeedWholeHistory): those are dropped.
func (lg *ledger) report(kind string, s int32, session int32, ev *evs, format string, args ...any) {
	if lg.h.Observed == traces.ObservedAtTap && slices.Contains(NeedWholeHistory, kind) {
		return
	}
	a := ledgerAnomaly{Anomaly: Anomaly{Kind: kind, Session: lg.in.IDName(session), Explanation: fmt.Sprintf(format, args...), Events: ev.sorted()}}
	if s != none {
		a.Sub, a.subs = lg.in.Sub(s), []int32{s}
	}
	lg.emit(a, session)
}

// emit records anomaly a, and indexes it for the rules that tell a kind
// once per submission when it concerns one; session is a.Session's
// handle. An index, since a trace of many wrong ids asks once for each,
// and walking every anomaly each time was quadratic.
func (lg *ledger) emit(a ledgerAnomaly, session int32) {
	lg.out = append(lg.out, a)
	if len(a.subs) == 1 {
		if lg.core.reported == nil {
			lg.core.reported = map[ledgerReportKey]bool{}
		}
		lg.core.reported[ledgerReportKey{a.Kind, session, a.subs[0]}] = true
	}
}

// tap says whether the trace was recorded by acpsim tap.
func (lg *ledger) tap() bool { return lg.h.Observed == traces.ObservedAtTap }

// subName names submission s with its text and key.
func (lg *ledger) subName(s int32) string {
	if s == none {
		return "a request with no submission"
	}
	x := &lg.subs[s]
	key := "no key"
	switch {
	case x.mixed:
		key = "mixed keys"
	case x.keyed:
		key = "key " + short(lg.in.IDName(x.key))
	}
	return fmt.Sprintf("%s (%q, %s)", lg.in.Sub(s), clip(lg.in.textName(x.text), 40), key)
}

// bareReq names request i without its submission.
func (lg *ledger) bareReq(i int32) string {
	r := &lg.reqs[i]
	if r.method == wNone {
		return fmt.Sprintf("request %s on %s", lg.in.rpcIDName(r.id), lg.in.Link(r.link))
	}
	return fmt.Sprintf("%s request %s on %s", lg.in.wordName(r.method), lg.in.rpcIDName(r.id), lg.in.Link(r.link))
}

// reqOf names request i, with its submission when it is a prompt of one.
func (lg *ledger) reqOf(i int32) string {
	r := &lg.reqs[i]
	what := "request"
	if r.method != wNone {
		what = lg.in.wordName(r.method) + " request"
	}
	if r.sub != none && r.method == wSessionPrompt {
		return fmt.Sprintf("%s's %s %s on %s", lg.in.Sub(r.sub), what, lg.in.rpcIDName(r.id), lg.in.Link(r.link))
	}
	return fmt.Sprintf("%s %s on %s", what, lg.in.rpcIDName(r.id), lg.in.Link(r.link))
}

// evs collects the seqs an explanation cites.
type evs struct{ s []int64 }

func (e *evs) add(seqs ...int64) {
	for _, q := range seqs {
		if q > 0 {
			e.s = append(e.s, q)
		}
	}
}

func (e *evs) sorted() []int64 {
	sort.Slice(e.s, func(i, j int) bool { return e.s[i] < e.s[j] })
	out := e.s[:0]
	for i, q := range e.s {
		if i == 0 || q != e.s[i-1] {
			out = append(out, q)
		}
	}
	return out
}
