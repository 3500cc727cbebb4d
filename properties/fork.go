package properties

// A fork starts with copies of its parent's history that no submission of the
// fork inserted: attribution must skip them, even when the fork's answer was lost.

// inherited is how many leading messages of fork S's final transcript are
// copies of its parent's history: the longest prefix that no response named
// and whose texts are, position by position, those of the parent's final
// transcript (a fork copies the parent's history as it was, in order). A
// copy a response named for a submission of another text is still a copy
// (rightfulOwner): the fork's submission did not insert it.
//
// A fork whose answer was lost is a session no Client ever sent a request
// for: it may be the fork of any parent whose session/fork request reached
// the Agent unanswered, and the longest match among those parents counts.
func (c *checker) inherited(S string) int {
	if P, ok := c.forkOf[S]; ok {
		return c.copiedPrefix(S, P)
	}
	if c.sessionUsed[S] {
		return 0
	}
	best := 0
	for _, r := range c.forks {
		if r.delivered && len(r.resps) == 0 {
			best = max(best, c.copiedPrefix(S, r.session))
		}
	}
	return best
}

func (c *checker) copiedPrefix(S, P string) int {
	t, parent := c.final[S], c.final[P]
	if parent == nil {
		return 0
	}
	if c.retainN > 0 {
		return c.copiedUnderRetention(S, P)
	}
	n := 0
	for n < len(t.msgs) && n < len(parent.msgs) && t.msgs[n].text == parent.msgs[n].text {
		if t.msgs[n].owner != nil { // some submission inserted it: not a copy
			break
		}
		n++
	}
	return n
}

// copiedUnderRetention is copiedPrefix when retention may have dropped the
// oldest messages of the parent, of the fork or of both, so the copies no
// longer line up: the fork's leading messages that no response named and
// whose text the parent once held (in its final transcript or in a prompt a
// Client sent it) count as copies.
func (c *checker) copiedUnderRetention(S, P string) int {
	// The parent's own copies may be gone too: every ancestor counts.
	line := map[string]bool{}
	for a := P; a != "" && !line[a]; a = c.forkOf[a] {
		line[a] = true
	}
	texts := map[string]bool{}
	for a := range line { // only fills a set: the order cannot show
		if t := c.final[a]; t != nil {
			for _, m := range t.msgs {
				texts[m.text] = true
			}
		}
	}
	for _, s := range c.order {
		for _, r := range s.reqs {
			if line[r.session] && r.delivered {
				texts[s.text] = true
			}
		}
	}
	t, n := c.final[S], 0
	for n < len(t.msgs) && texts[t.msgs[n].text] && t.msgs[n].owner == nil {
		n++
	}
	return n
}
