package properties

import (
	"fmt"
	"slices"
)

// The stories spelled alike from the present checker's records and from
// the ledger's rows (ledger_story.go), for the harness: each submission's
// attempts, what its Client told and its outcome's name, with the events
// they cite; and the story of every request delivered on each link, which
// tells requests of no submission and those no attempts reach.

func (c *checker) spellStories() []string {
	var out []string
	for _, s := range c.order {
		ev := c.subEvents(s)
		a, t := c.attempts(s, ev), c.told(s, ev)
		out = append(out, spellStory(s.id, a, t, outcomeText(s), ev))
	}
	for _, l := range c.linkOrder {
		var lines []string
		for list := range l.allReqs() {
			list.each(func(r *reqRec) bool {
				ev := &evs{}
				lines = append(lines, fmt.Sprintf("  %s %v", c.story(r, ev), ev.sorted()))
				return false
			})
		}
		out = append(out, spellLinkStories(l.name, lines)...)
	}
	return out
}

func (lg *ledger) spellStories() []string {
	var out []string
	for _, h := range lg.subOrder {
		ev := lg.subEvents(h)
		a, t := lg.attempts(h, ev), lg.told(h, ev)
		out = append(out, spellStory(lg.in.Sub(h), a, t, lg.outcomeText(h), ev))
	}
	for _, h := range lg.linkOrder {
		var lines []string
		for i := lg.links[h].firstOpen; i != none; i = lg.reqs[i].nextOpen {
			ev := &evs{}
			lines = append(lines, fmt.Sprintf("  %s %v", lg.story(i, ev), ev.sorted()))
		}
		out = append(out, spellLinkStories(lg.in.Link(h), lines)...)
	}
	return out
}

// spellStory is submission id's line: its attempts, what was told, its
// outcome's name and the events cited.
func spellStory(id, attempts, told, outcome string, ev *evs) string {
	return fmt.Sprintf("sub %s: %s | %s | %s %v", id, attempts, told, outcome, ev.sorted())
}

// spellLinkStories heads the stories of link name's delivered requests,
// sorted: the checker keeps them by id, the ledger in delivery order.
func spellLinkStories(name string, lines []string) []string {
	slices.Sort(lines)
	return append([]string{"link " + name + ":"}, lines...)
}
