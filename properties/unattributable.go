package properties

import (
	"fmt"

	"github.com/acpsim/acpsim/traces"
)

// Messages whose owner decides a verdict the frames cannot settle: the checker
// will not pass such a trace, and says which submissions could hold them.

func (c *checker) unattributable(g *group, feasible bool, varying, lo, hi []int, dupSure bool) {
	ev := &evs{}
	var ids []string
	for _, m := range g.msgs {
		ids = append(ids, short(m.id))
		ev.add(m.seq)
	}
	if t := c.final[g.session]; t != nil {
		ev.add(t.seq)
	}
	head := fmt.Sprintf("the final transcript of session %s holds %s with text %q that no response named (%s)",
		short(g.session), plural(len(g.msgs), "message"), clip(g.text, 40), list(ids))
	var cands []string
	for ci, x := range g.cands {
		for _, r := range x.reqs {
			ev.add(r.delSeq)
		}
		held := ""
		if n := len(x.s.msgs); n > 0 {
			held = ", already holding " + plural(n, "message")
		}
		if len(x.s.extra) > 0 {
			var ids []string
			for _, a := range x.s.extra {
				ids = append(ids, short(a.id))
				ev.add(a.resp.seq)
			}
			held += ", already answered " + list(ids) + " (not in the transcript)"
		}
		could := fmt.Sprintf("%d to %d of them", lo[ci], hi[ci])
		if lo[ci] == hi[ci] {
			could = fmt.Sprintf("exactly %d", lo[ci])
		}
		cands = append(cands, fmt.Sprintf("%s (%s%s, %s without a messageId; could hold %s)", x.s.id, outcomeText(x.s), held, plural(len(x.reqs), "delivered request"), could))
	}
	var why string
	switch {
	case len(g.cands) == 0:
		why = "no submission of that session with that text has a delivered request the Agent did not answer with a messageId"
		var others []string
		for _, s := range c.answeredByText()[g.groupKey] {
			for _, a := range s.answers {
				if a.session == g.session {
					others = append(others, fmt.Sprintf("%s (which got %s)", s.id, short(a.id)))
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
			s := g.cands[ci].s
			v := "a duplicate"
			switch {
			case s.outcome == traces.OutcomeFailed:
				v = "a phantom"
			case s.outcome == traces.OutcomeAbandoned && c.mustRetain(s):
				v = "lost"
			}
			what = append(what, fmt.Sprintf("whether %s is %s", s.id, v))
		}
		why = fmt.Sprintf("%s may belong to %s, and how they split decides %s", pronoun(len(g.msgs)), list(cands), list(what))
		if dupSure {
			why += " (and some submission was inserted twice either way)"
		}
	}
	a := anomaly{Anomaly: Anomaly{Kind: Unattributable, Session: g.session, Events: ev.sorted(),
		Explanation: head + "; " + why + ", so the checker cannot pass it."}}
	for _, ci := range varying {
		a.subs = append(a.subs, g.cands[ci].s)
	}
	if len(a.subs) > 0 {
		a.Sub = a.subs[0].id
	}
	c.emit(a)
}

// answeredByText indexes, once, the submissions that got a messageId by
// session and text, so explaining many alien messages stays linear.
func (c *checker) answeredByText() map[groupKey][]*subState {
	if c.byText == nil {
		c.byText = map[groupKey][]*subState{}
		for _, s := range c.order {
			for _, S := range s.sessions {
				if len(s.answers) > 0 {
					k := groupKey{S, s.text}
					c.byText[k] = append(c.byText[k], s)
				}
			}
		}
	}
	return c.byText
}
