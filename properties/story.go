package properties

import (
	"fmt"
	"strings"
)

// The stories of requests and submissions: what became of each prompt
// request of a submission and what its Client told the user, citing the
// events that show it, so that a reader can check an anomaly by hand.

// subEvents starts the events an explanation about submission s cites:
// its submit.
func (lg *ledger) subEvents(s int32) *evs {
	ev := &evs{}
	ev.add(lg.subs[s].submitSeq)
	return ev
}

// attempts tells each prompt request of submission s and what became of
// it, in the order its Client sent them.
func (lg *ledger) attempts(s int32, ev *evs) string {
	first := lg.subs[s].firstReq
	if first == none {
		return "no prompt request was ever sent"
	}
	var parts []string
	for i := first; i != none; i = lg.reqs[i].nextOfSub {
		parts = append(parts, lg.story(i, ev))
	}
	return strings.Join(parts, "; ")
}

// story tells request ri's fate: sent, lost or delivered, and each answer
// the Agent gave it and whether that arrived; ev gets the events told.
func (lg *ledger) story(ri int32, ev *evs) string {
	in, r := lg.in, &lg.reqs[ri]
	ev.add(r.sendSeq, r.delSeq, r.lostSeq)
	var b strings.Builder
	fmt.Fprintf(&b, "request %s on %s", in.rpcIDName(r.id), in.Link(r.link))
	// The key is told only when the submission's keys differ, and only
	// when its first prompt carried a legal one (keyed && mixed): a
	// submission first sent without a key and then with one tells no
	// keys.
	if r.sub != none && lg.subs[r.sub].keyed && lg.subs[r.sub].mixed {
		switch r.keyState {
		case keyValid:
			fmt.Fprintf(&b, " (key %s)", short(in.IDName(r.key)))
		case keyBad:
			b.WriteString(" (malformed key)")
		default:
			b.WriteString(" (no key)")
		}
	}
	if !r.delivered {
		if r.sendSeq > 0 {
			fmt.Fprintf(&b, " sent at %s", ms(r.sendT))
		}
		if r.lost != 0 {
			b.WriteString(" " + lg.lostText(r.lost, r.lostNote))
		} else {
			b.WriteString(" never arrived")
		}
		return b.String()
	}
	fmt.Fprintf(&b, " delivered at %s", ms(r.delT))
	l := &lg.links[r.link]
	if r.to != wNone && r.to != l.agent {
		fmt.Fprintf(&b, " to %s", in.wordName(r.to))
	}
	if r.nResps == 0 {
		b.WriteString(", never answered")
		if l.ended {
			fmt.Fprintf(&b, " before the link ended (%s) at %s", in.wordName(l.note), ms(l.endT))
			ev.add(l.endSeq)
		}
		return b.String()
	}
	n := 0
	lg.eachResp(ri, func(rp *respRow) {
		ev.add(rp.seq, rp.delSeq, rp.lostSeq)
		if n == 0 {
			b.WriteString(", Agent answered ")
		} else {
			b.WriteString(" and again ")
		}
		n++
		fmt.Fprintf(&b, "%s at %s", lg.answerText(rp), ms(rp.t))
		if rp.binding {
			b.WriteString(" from the binding")
		}
		switch {
		case rp.delivered:
		case rp.lost != 0:
			b.WriteString(" but the response " + lg.lostText(rp.lost, rp.lostNote))
		default:
			b.WriteString(" but the response never arrived")
		}
	})
	return b.String()
}

// outcomeText names submission s's outcome in a few words.
func (lg *ledger) outcomeText(s int32) string {
	x := &lg.subs[s]
	switch x.outcome {
	case wNone:
		return "no outcome"
	case wInserted:
		return "inserted " + short(lg.in.IDName(x.outcomeMsg))
	}
	return lg.in.wordName(x.outcome)
}

// told says what the Client told its user of submission s (its last
// outcome: a later one overwrites the row's).
func (lg *ledger) told(s int32, ev *evs) string {
	x := &lg.subs[s]
	ev.add(x.outcomeSeq)
	who := lg.in.wordName(x.client)
	if who == "" {
		who = "the Client"
	}
	switch x.outcome {
	case wNone:
		return who + " never reported an outcome"
	case wInserted:
		if x.outcomeMsg == noID { // ACP v1: the turn ended, no message named
			return fmt.Sprintf("%s told the user inserted at %s (its answer names no message)", who, ms(x.outT))
		}
		return fmt.Sprintf("%s told the user inserted(%s) at %s", who, short(lg.in.IDName(x.outcomeMsg)), ms(x.outT))
	case wAbandoned:
		return fmt.Sprintf("%s stopped tracking it at %s without telling the user", who, ms(x.outT))
	}
	return fmt.Sprintf("%s told the user %s at %s", who, lg.in.wordName(x.outcome), ms(x.outT))
}
