package properties

import (
	"math"
	"slices"
	"sort"

	"github.com/acpsim/acpsim/traces"
)

// Attribution gives each final-transcript message to a submission, by the
// messageId a response named or by text, only where every matching agrees.

type groupKey struct{ session, text string }

// group is the transcript messages of one session and text that no response
// named, in transcript order, and the submissions they may belong to.
type group struct {
	groupKey
	msgs  []*tmsg
	cands []cand
}

// cand is a submission that may own messages of a group: its delivered
// requests in the session that no success response named. Each inserted at
// most one message.
type cand struct {
	s    *subState
	reqs []*reqRec
}

// attribute gives each final-transcript message to a submission: by the
// messageId the Agent sent in a success response to one of its requests, else
// by text within the session. A group of same-text messages is resolved only
// when every way of matching it to the candidates' requests gives each
// candidate the same verdict.
func (c *checker) attribute() {
	if c.v1 {
		c.splitUnnamed()
	}
	groups := map[groupKey]*group{}
	var order []*group
	for _, S := range c.sessOrder {
		t := c.final[S]
		c.bound(t)
		inherited := c.inherited(S)
		for i := range t.msgs {
			m := &t.msgs[i]
			if own := m.owner; own != nil && own.req.sub != nil {
				s := own.req.sub
				if o := c.misroutedSibling(S, s, m); o != nil {
					s = o
				}
				s.msgs = append(s.msgs, attrMsg{session: S, m: m})
				continue
			}
			if i < inherited {
				continue // a copy the fork made of its parent's history
			}
			k := groupKey{S, m.text}
			g := groups[k]
			if g == nil {
				g = &group{groupKey: k}
				groups[k] = g
				order = append(order, g)
			}
			g.msgs = append(g.msgs, m)
		}
	}
	if len(order) == 0 {
		return
	}
	for _, s := range c.order {
		for _, r := range s.reqs {
			if !r.delivered || c.namedSuccess(r) {
				continue
			}
			g := groups[groupKey{r.session, s.text}]
			if g == nil {
				continue
			}
			if n := len(g.cands); n > 0 && g.cands[n-1].s == s {
				g.cands[n-1].reqs = append(g.cands[n-1].reqs, r)
			} else {
				g.cands = append(g.cands, cand{s, []*reqRec{r}})
			}
		}
	}
	for _, g := range order {
		c.resolve(g)
	}
}

// bound sets, for each message of t, the seq before which it was inserted:
// the first time the Agent named it or any message after it in the history
// (replay lists the history in order, and a message exists before it is
// named). Only a request delivered before that can have inserted it.
func (c *checker) bound(t *transcript) {
	b := int64(math.MaxInt64)
	for i := len(t.msgs) - 1; i >= 0; i-- {
		m := &t.msgs[i]
		if sr := c.msgOf(msgKey{t.sessionH, m.idH}); sr != nil {
			b = min(b, sr.first)
			m.owner = c.rightfulOwner(t.session, m, sr.owner)
		}
		m.bound = b
	}
}

// namedSuccess reports whether the Agent sent r a success response naming a
// message; such a request's insertion is attributed by that name. A name
// the final transcript holds under another text than r's prompt is no
// insertion of r (judgeAnswers), so r may still have inserted its own.
func (c *checker) namedSuccess(r *reqRec) bool {
	for _, rp := range r.resps {
		if rp.ok && rp.msgID != "" && !c.otherText(r, rp.msgID) {
			return true
		}
	}
	return false
}

// otherText says whether r's session's final transcript holds id under a
// text other than r's prompt.
func (c *checker) otherText(r *reqRec, id string) bool {
	t := c.final[r.session]
	if t == nil || r.sub == nil {
		return false
	}
	i, ok := t.find(id)
	return ok && t.msgs[i].text != r.sub.text
}

// Verdict bits of a class.
const (
	vDup = 1 << iota
	vPhantom
	vLost
)

// vclass is the verdict class of submission s holding k transcript messages
// in all: equal classes give equal anomalies. Insertions only responses name
// count towards a duplicate, not towards a phantom or a loss.
func (c *checker) vclass(s *subState, k int) int {
	v := 0
	if k+len(s.extra) >= 2 {
		v |= vDup
	}
	switch {
	case s.outcome == traces.OutcomeFailed && k >= 1:
		v |= vPhantom
	case s.outcome == traces.OutcomeAbandoned && k == 0 && c.mustRetain(s):
		v |= vLost
	}
	return v
}

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

// resolve matches a group's messages to the candidates' requests. A message
// may go to a request delivered before its bound; the messages' bounds only
// grow along the transcript, so each one's eligible requests are a prefix of
// the requests in delivery order, and the prefixes are nested. For nested
// prefixes Hall's condition on prefixes decides everything without search:
// how many messages each candidate holds at least and at most over all
// complete matchings, and every count in between is possible.
func (c *checker) resolve(g *group) {
	var slots []slot
	for ci, x := range g.cands {
		for _, r := range x.reqs {
			slots = append(slots, slot{r.delSeq, ci})
		}
	}
	bounds := make([]int64, len(g.msgs))
	for k, m := range g.msgs {
		bounds[k] = m.bound
	}
	feasible, lo, hi := shares(slots, bounds, len(g.cands))
	if feasible {
		c.withdrawnInserted(g, lo)
	}
	var varying []int
	onlyDup := true // the split decides nothing but which one is a duplicate
	for ci, x := range g.cands {
		base := len(x.s.msgs)
		if c.vclass(x.s, base+lo[ci]) != c.vclass(x.s, base+hi[ci]) {
			varying = append(varying, ci)
			if c.vclass(x.s, base+lo[ci])&^vDup != c.vclass(x.s, base+hi[ci])&^vDup {
				onlyDup = false
			}
		}
	}
	if feasible && len(varying) > 0 {
		dup := c.dupCertain(g, slots, bounds)
		if onlyDup && dup {
			c.someDuplicate(g, varying)
		} else {
			c.unattributable(g, feasible, varying, lo, hi, dup)
		}
	} else if !feasible {
		c.unattributable(g, feasible, varying, lo, hi, false)
	}
	for _, ci := range varying {
		g.cands[ci].s.ambiguous = true
	}
	if !feasible {
		// Some message belongs to no candidate, so each may hold none; those
		// not varying keep the verdict of what they already hold.
		return
	}
	// Any complete matching gives every non-varying candidate the same
	// verdict: take the one that gives each message the earliest request.
	for k, m := range g.msgs {
		ci := slots[k].cand
		if slices.Contains(varying, ci) {
			continue
		}
		s := g.cands[ci].s
		s.msgs = append(s.msgs, attrMsg{session: g.session, m: m, byText: true})
		s.byText++
	}
}

// misroutedSibling is the submission a message m of session S belongs to
// when the response that named it went to the wrong one: s, which that
// response answered, already holds a message of S, and a submission of the
// same text holds none there although a success response to one of its
// requests named a message the transcript holds under another text. Answers
// that cross like that are a hop routing them in the wrong order (first in,
// first out instead of by id): the Agent inserted each once, and the fault
// is the wrong ids both submissions got (judgeAnswers, judgeWrongIDs), not a
// duplicate of s and a loss of the other. nil when nothing shows that.
func (c *checker) misroutedSibling(S string, s *subState, m *tmsg) *subState {
	if !s.holdsIn(S) {
		return nil
	}
	// Only a submission with m's text answered in S can be the sibling (a
	// success response naming a message is an answer), and the index holds
	// every such one (with others, which the test below turns away): it,
	// not every submission for each such message, keeps a trace of many
	// duplicates linear.
	for _, o := range c.answeredByText()[groupKey{S, m.text}] {
		if o == s || o.text != m.text || o.holdsIn(S) {
			continue
		}
		for _, r := range o.reqs {
			if r.session != S || !r.delivered {
				continue
			}
			for _, rp := range r.resps {
				if rp.ok && rp.msgID != "" && c.otherText(r, rp.msgID) {
					return o
				}
			}
		}
	}
	return nil
}

// holdsIn reports whether s holds a message of session S.
func (s *subState) holdsIn(S string) bool {
	for _, a := range s.msgs {
		if a.session == S {
			return true
		}
	}
	return false
}
