package properties

import (
	"fmt"
	"strings"
)

// A duplicate the frames prove without telling whose: every way of matching a
// group's messages to requests inserts some candidate twice.

// dupCertain reports whether every complete matching makes some candidate a
// duplicate: none exists in which the candidates already holding a message
// take none and the others at most one. slots are sorted by delivery, so
// keeping each other candidate's earliest request keeps the most options.
func (c *checker) dupCertain(g *group, slots []slot, bounds []int64) bool {
	kept := make([]bool, len(g.cands))
	var one []slot
	for _, sl := range slots {
		if g.cands[sl.cand].s.inserted() == 0 && !kept[sl.cand] {
			kept[sl.cand] = true
			one = append(one, sl)
		}
	}
	ok, _, _ := shares(one, bounds, len(g.cands))
	return !ok
}

// someDuplicate reports a duplicate the frames prove without telling whose:
// every way of matching the group's messages to requests inserts one of the
// candidates twice.
func (c *checker) someDuplicate(g *group, varying []int) {
	ev := &evs{}
	var names, held, stories []string
	var subs []*subState
	for _, ci := range varying {
		x := g.cands[ci]
		subs = append(subs, x.s)
		names = append(names, x.s.id)
		var ids, answered []string
		for _, m := range x.s.msgs {
			ids = append(ids, short(m.m.id))
			ev.add(m.m.seq)
		}
		for _, a := range x.s.extra {
			answered = append(answered, short(a.id))
			ev.add(a.resp.seq)
		}
		h := fmt.Sprintf("%s holds %s", x.s.id, list(ids))
		switch {
		case len(answered) > 0 && len(ids) == 0:
			h = fmt.Sprintf("%s was answered %s (not in the transcript)", x.s.id, list(answered))
		case len(answered) > 0:
			h += fmt.Sprintf(" and was answered %s (not in the transcript)", list(answered))
		}
		held = append(held, h)
		for _, r := range x.reqs {
			stories = append(stories, fmt.Sprintf("%s's %s", x.s.id, c.story(r, ev)))
		}
	}
	ids, t := c.groupEvidence(g, ev)
	a := anomaly{Anomaly: Anomaly{Kind: Duplicate, Session: g.session,
		Explanation: fmt.Sprintf("one of %s (%q) was inserted twice, and the frames cannot tell which: the final transcript of session %s (read on %s at %s) holds %s that no response named (%s); only these requests, which no response named either, can have inserted %s: %s; but %s already, so whichever it was, that submission is in the transcript twice.",
			list(names), clip(g.text, 40), short(g.session), t.link, ms(t.t), plural(len(g.msgs), "message"), list(ids), pronounObj(len(g.msgs)), strings.Join(stories, "; "), list(held)),
		Events: ev.sorted()}, subs: subs}
	c.emit(a)
}
