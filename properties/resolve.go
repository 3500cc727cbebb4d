package properties

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/acpsim/acpsim/traces"
)

// Groups of same-text messages no response named, matched to the requests
// that can have inserted them. A group is resolved only where every way of
// matching gives each candidate the same verdict. Where the frames prove a
// duplicate without telling whose (every matching inserts some candidate
// twice), the duplicate is reported naming them all; where the owner
// decides a verdict the frames cannot settle, the messages are
// unattributable: the checker will not pass such a trace, and says which
// submissions could hold them. A group's messages that only withdrawn
// requests can have inserted are a silent insertion after a cancel
// (cancel.go).

// inserted counts the insertions of submission s the frames show: its
// messages in the final transcripts plus those only a response names.
func (lg *ledger) inserted(s int32) int32 {
	c := &lg.core.subs[s]
	return c.nMsgs + c.nExtra
}

// vclass is the verdict class of submission s holding k transcript
// messages in all: equal classes give equal anomalies. Insertions only
// responses name count towards a duplicate, not towards a phantom or a
// loss.
func (lg *ledger) vclass(s int32, k int32) int {
	v := 0
	x := &lg.subs[s]
	if k+lg.core.subs[s].nExtra >= 2 {
		v |= vDup
	}
	switch {
	case x.outcome == wFailed && k >= 1:
		v |= vPhantom
	case x.outcome == wAbandoned && k == 0 && lg.mustRetain(s):
		v |= vLost
	}
	return v
}

// resolve matches group gi's messages to its candidates' requests. A
// message may go to a request delivered before its bound; the messages'
// bounds only grow along the transcript, so each one's eligible requests
// are a prefix of the requests in delivery order, and the prefixes are
// nested. For nested prefixes Hall's condition on prefixes decides
// everything without search: how many messages each candidate holds at
// least and at most over all complete matchings (shares), and every count
// in between is possible.
func (lg *ledger) resolve(gi int32) {
	g := &lg.core.groups[gi]
	var slots []slot
	for ci, x := range g.cands {
		for _, ri := range x.reqs {
			slots = append(slots, slot{lg.reqs[ri].delSeq, ci})
		}
	}
	bounds := make([]int64, len(g.msgs))
	for k, mi := range g.msgs {
		bounds[k] = lg.fmsgs[mi].bound
	}
	feasible, lo, hi := shares(slots, bounds, len(g.cands))
	if feasible {
		lg.withdrawnInserted(gi, lo)
	}
	var varying []int
	onlyDup := true // the split decides nothing but which one is a duplicate
	for ci, x := range g.cands {
		base := lg.core.subs[x.sub].nMsgs
		vlo, vhi := lg.vclass(x.sub, base+int32(lo[ci])), lg.vclass(x.sub, base+int32(hi[ci]))
		if vlo != vhi {
			varying = append(varying, ci)
			if vlo&^vDup != vhi&^vDup {
				onlyDup = false
			}
		}
	}
	if feasible && len(varying) > 0 {
		dup := lg.dupCertain(g, slots, bounds)
		if onlyDup && dup {
			lg.someDuplicate(g, varying)
		} else {
			lg.unattributable(g, feasible, varying, lo, hi, dup)
		}
	} else if !feasible {
		lg.unattributable(g, feasible, varying, lo, hi, false)
	}
	for _, ci := range varying {
		lg.core.subs[g.cands[ci].sub].ambiguous = true
	}
	if !feasible {
		// Some message belongs to no candidate, so each may hold none;
		// those not varying keep the verdict of what they already hold.
		return
	}
	// Any complete matching gives every non-varying candidate the same
	// verdict: take the one that gives each message the earliest request.
	for k, mi := range g.msgs {
		ci := slots[k].cand
		if slices.Contains(varying, ci) {
			continue
		}
		lg.attach(g.cands[ci].sub, attrRow{session: g.session, m: mi, byText: true})
	}
}

// dupCertain reports whether every complete matching makes some candidate
// a duplicate: none exists in which the candidates already holding a
// message take none and the others at most one. slots are sorted by
// delivery, so keeping each other candidate's earliest request keeps the
// most options.
func (lg *ledger) dupCertain(g *lgroup, slots []slot, bounds []int64) bool {
	kept := make([]bool, len(g.cands))
	var one []slot
	for _, sl := range slots {
		if lg.inserted(g.cands[sl.cand].sub) == 0 && !kept[sl.cand] {
			kept[sl.cand] = true
			one = append(one, sl)
		}
	}
	ok, _, _ := shares(one, bounds, len(g.cands))
	return !ok
}

// withdrawnInserted notes the candidates of group gi that hold a message
// of it however the group splits (lo) although every request of theirs
// that could have inserted one was withdrawn before insertion.
//
// Seen at a proxy or a tap, a cancel was written to the Agent, not read: a
// request counts as withdrawn only where the Agent showed it had read the
// cancel (readBy), as judgeCancelled asks. An Agent that died right after
// the cancel was written (a crash after insertion) may never have read it,
// and inserted the prompt before it would have.
func (lg *ledger) withdrawnInserted(gi int32, lo []int) {
	g := &lg.core.groups[gi]
	proxy := lg.h.Observed == traces.ObservedAtProxy || lg.h.Observed == traces.ObservedAtTap
	for ci, x := range g.cands {
		if lo[ci] == 0 {
			continue
		}
		all := true
		for _, ri := range x.reqs {
			r := &lg.reqs[ri]
			all = all && r.cancel != 0 && (!proxy || lg.readBy(r.cancel-1) != 0)
		}
		if all {
			lg.core.silent = append(lg.core.silent, silentRow{gi, int32(ci), int32(lo[ci])})
		}
	}
}

// judgeSilent reports the insertions withdrawnInserted found: an Agent
// that answers -32800 and inserts the prompt anyway, silently, shows only
// in the final transcript.
func (lg *ledger) judgeSilent() {
	for _, sr := range lg.core.silent {
		g := &lg.core.groups[sr.g]
		x := g.cands[sr.ci]
		ev := &evs{}
		ids, f := lg.groupEvidence(g, ev)
		var stories []string
		for _, ri := range x.reqs {
			stories = append(stories, fmt.Sprintf("%s, pending when %s", lg.story(ri, ev), lg.cancelText(ri, ev)))
		}
		name := lg.in.Sub(x.sub)
		who := fmt.Sprintf("only requests of %s can have inserted %s", name, pronounObj(len(g.msgs)))
		if len(g.cands) > 1 {
			who = fmt.Sprintf("however %s split among the requests that could have inserted %s, %s holds at least %d", pronoun(len(g.msgs)), pronounObj(len(g.msgs)), name, sr.n)
		}
		lg.report(BadReply, x.sub, g.session, ev, "%s was inserted after the Client had cancelled it: the final transcript of session %s (read on %s at %s) holds %s with its text that no response named (%s), and %s; but each of its requests that could have inserted one was withdrawn before insertion: %s; a prompt cancelled before it was inserted must not be inserted afterwards.",
			lg.subName(x.sub), short(lg.in.IDName(g.session)), lg.finLink(f), ms(lg.finT(f)), plural(len(g.msgs), "message"), list(ids), who, strings.Join(stories, "; "))
	}
}

// groupEvidence names a group's messages and adds them and the transcript
// that holds them to ev.
func (lg *ledger) groupEvidence(g *lgroup, ev *evs) (ids []string, f *finalRow) {
	for _, mi := range g.msgs {
		m := &lg.fmsgs[mi]
		ids = append(ids, short(lg.in.IDName(m.id)))
		ev.add(m.seq)
	}
	f = lg.fin(g.session)
	ev.add(lg.finSeq(f))
	return ids, f
}

// someDuplicate reports a duplicate the frames prove without telling
// whose: every way of matching the group's messages to requests inserts
// one of the candidates varying twice. It names them all, and no one Sub.
func (lg *ledger) someDuplicate(g *lgroup, varying []int) {
	ev := &evs{}
	var names, held, stories []string
	var subs []int32
	for _, ci := range varying {
		x := g.cands[ci]
		name := lg.in.Sub(x.sub)
		subs = append(subs, x.sub)
		names = append(names, name)
		var ids, answered []string
		for j := lg.core.subs[x.sub].msgs; j != none; j = lg.core.attrs[j].next {
			m := &lg.fmsgs[lg.core.attrs[j].m]
			ids = append(ids, short(lg.in.IDName(m.id)))
			ev.add(m.seq)
		}
		for j := lg.core.subs[x.sub].extra; j != none; j = lg.core.ins[j].next {
			a := &lg.core.ins[j]
			answered = append(answered, short(lg.in.IDName(a.msg)))
			ev.add(lg.resp(a.resp).seq)
		}
		h := fmt.Sprintf("%s holds %s", name, list(ids))
		switch {
		case len(answered) > 0 && len(ids) == 0:
			h = fmt.Sprintf("%s was answered %s (not in the transcript)", name, list(answered))
		case len(answered) > 0:
			h += fmt.Sprintf(" and was answered %s (not in the transcript)", list(answered))
		}
		held = append(held, h)
		for _, ri := range x.reqs {
			stories = append(stories, fmt.Sprintf("%s's %s", name, lg.story(ri, ev)))
		}
	}
	ids, f := lg.groupEvidence(g, ev)
	lg.emit(ledgerAnomaly{Anomaly: Anomaly{Kind: Duplicate, Session: lg.in.IDName(g.session),
		Explanation: fmt.Sprintf("one of %s (%q) was inserted twice, and the frames cannot tell which: the final transcript of session %s (read on %s at %s) holds %s that no response named (%s); only these requests, which no response named either, can have inserted %s: %s; but %s already, so whichever it was, that submission is in the transcript twice.",
			list(names), clip(lg.in.textName(g.text), 40), short(lg.in.IDName(g.session)), lg.finLink(f), ms(lg.finT(f)), plural(len(g.msgs), "message"), list(ids), pronounObj(len(g.msgs)), strings.Join(stories, "; "), list(held)),
		Events: ev.sorted()}, subs: subs}, g.session)
}

// unattributable reports group g, whose owner decides a verdict the
// frames cannot settle: lo and hi are how many of its messages each
// candidate holds at least and at most (shares), varying the candidates
// whose verdict the split decides; feasible false: the candidates cannot
// hold them all, or there are none. dupSure: some submission is a
// duplicate either way.
func (lg *ledger) unattributable(g *lgroup, feasible bool, varying, lo, hi []int, dupSure bool) {
	ev := &evs{}
	var ids []string
	for _, mi := range g.msgs {
		m := &lg.fmsgs[mi]
		ids = append(ids, short(lg.in.IDName(m.id)))
		ev.add(m.seq)
	}
	if f := lg.fin(g.session); f != nil {
		ev.add(lg.finSeq(f))
	}
	head := fmt.Sprintf("the final transcript of session %s holds %s with text %q that no response named (%s)",
		short(lg.in.IDName(g.session)), plural(len(g.msgs), "message"), clip(lg.in.textName(g.text), 40), list(ids))
	var cands []string
	for ci, x := range g.cands {
		for _, ri := range x.reqs {
			ev.add(lg.reqs[ri].delSeq)
		}
		c := &lg.core.subs[x.sub]
		held := ""
		if c.nMsgs > 0 {
			held = ", already holding " + plural(int(c.nMsgs), "message")
		}
		if c.extra != none {
			var ids []string
			for j := c.extra; j != none; j = lg.core.ins[j].next {
				a := &lg.core.ins[j]
				ids = append(ids, short(lg.in.IDName(a.msg)))
				ev.add(lg.resp(a.resp).seq)
			}
			held += ", already answered " + list(ids) + " (not in the transcript)"
		}
		could := fmt.Sprintf("%d to %d of them", lo[ci], hi[ci])
		if lo[ci] == hi[ci] {
			could = fmt.Sprintf("exactly %d", lo[ci])
		}
		cands = append(cands, fmt.Sprintf("%s (%s%s, %s without a messageId; could hold %s)", lg.in.Sub(x.sub), lg.outcomeText(x.sub), held, plural(len(x.reqs), "delivered request"), could))
	}
	var why string
	switch {
	case len(g.cands) == 0:
		why = "no submission of that session with that text has a delivered request the Agent did not answer with a messageId"
		var others []string
		for _, s := range lg.answeredByText()[textKey{g.session, g.text}] {
			for j := lg.subs[s].answers; j != none; j = lg.answers[j].next {
				if a := &lg.answers[j]; a.session == g.session {
					others = append(others, fmt.Sprintf("%s (which got %s)", lg.in.Sub(s), short(lg.in.IDName(a.msg))))
					break
				}
			}
		}
		if len(others) > 0 {
			why += "; it would take a request inserting twice to make it a copy of " + list(others)
		}
	case !feasible:
		why = fmt.Sprintf("the candidates %s cannot hold them all (a request inserts at most one message, and only before the Agent named that message or any later one)", list(cands))
	default:
		what := make([]string, 0, len(varying))
		for _, ci := range varying {
			s := g.cands[ci].sub
			v := "a duplicate"
			switch {
			case lg.subs[s].outcome == wFailed:
				v = "a phantom"
			case lg.subs[s].outcome == wAbandoned && lg.mustRetain(s):
				v = "lost"
			}
			what = append(what, fmt.Sprintf("whether %s is %s", lg.in.Sub(s), v))
		}
		why = fmt.Sprintf("%s may belong to %s, and how they split decides %s", pronoun(len(g.msgs)), list(cands), list(what))
		if dupSure {
			why += " (and some submission was inserted twice either way)"
		}
	}
	a := ledgerAnomaly{Anomaly: Anomaly{Kind: Unattributable, Session: lg.in.IDName(g.session), Events: ev.sorted(),
		Explanation: head + "; " + why + ", so the checker cannot pass it."}}
	for _, ci := range varying {
		a.subs = append(a.subs, g.cands[ci].sub)
	}
	if len(a.subs) > 0 {
		a.Sub = lg.in.Sub(a.subs[0])
	}
	lg.emit(a, g.session)
}

// Verdict bits of a class.
const (
	vDup = 1 << iota
	vPhantom
	vLost
)

// shares says whether the messages (bounds ascending) can all be matched to
// the slots, and how many each candidate holds at least and at most over all
// complete matchings (if none exists: at most over all matchings, at least 0).
// It sorts slots by delivery; the k-th message then takes the k-th slot in
// one complete matching.
func shares(slots []slot, bounds []int64, ncand int) (feasible bool, lo, hi []int) {
	sort.SliceStable(slots, func(i, j int) bool { return slots[i].del < slots[j].del })
	n := len(bounds)
	elig := make([]int, n) // requests eligible for the first k+1 messages
	j := 0
	feasible = true
	for k, b := range bounds {
		for j < len(slots) && slots[j].del < b {
			j++
		}
		elig[k] = j
		feasible = feasible && j >= k+1
	}
	lo, hi = make([]int, ncand), make([]int, ncand)
	for ci := range ncand {
		hi[ci] = n
		p, own := 0, 0
		for k := range n {
			for ; p < elig[k]; p++ {
				if slots[p].cand == ci {
					own++
				}
			}
			// At most: a matching that uses only ci's requests. At least:
			// what the other candidates' requests cannot take.
			hi[ci] = min(hi[ci], own+n-(k+1))
			if feasible {
				lo[ci] = max(lo[ci], k+1-(elig[k]-own))
			}
		}
	}
	return feasible, lo, hi
}

// slot is a candidate request that may have inserted a message of a group.
type slot struct {
	del  int64
	cand int
}
