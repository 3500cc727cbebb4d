package properties

import (
	"fmt"

	"github.com/acpsim/acpsim/traces"
)

// A success response must name its own submission's message: a user message
// of the prompt's text that this submission inserted, not another
// submission's, not a copy a fork inherited from its parent. Naming a message
// in the transcript is not enough: an Agent that answers a retry with the
// wrong message tells the user their input is there when it is not.

// rightfulOwner is the response that names m as its submission's insertion:
// own (the first success response naming it) when its submission typed m's
// text, else the first response of a submission that did. A response whose
// submission typed another text names a message it did not insert
// (judgeAnswers), and owns nothing: the message stays a fork's copy, or is
// attributed by text to the submission that did insert it.
func (c *checker) rightfulOwner(S string, m *tmsg, own *respRec) *respRec {
	if own == nil || own.req == nil || own.req.sub == nil || own.req.sub.text == m.text {
		return own
	}
	var best *respRec
	// The submissions with m's text that sent a request in S and got an
	// answer (every one answered in S is among them), from the index:
	// walking every submission here made a trace of many wrong-id answers
	// quadratic.
	for _, s := range c.answeredByText()[groupKey{S, m.text}] {
		for _, a := range s.answers {
			if a.session == S && a.id == m.id && (best == nil || a.resp.seq < best.seq) {
				best = a.resp
			}
		}
	}
	return best
}

// judgeAnswers reports each message a submission's success response named
// that the final transcript holds under another text: wrong-id, or lost when
// the submission's own text is nowhere in that transcript and the contract
// says it must be. A reused key is exempt: the RFD lets an Agent that does
// not compare prompts answer a key recorded for another prompt as a retry
// (the Client that reused it is the one at fault, and the message two
// submissions share is reported once, by judgeShared).
func (c *checker) judgeAnswers() {
	var byKey map[sessKey][]*subState // built on the first mismatch only
	for _, s := range c.order {
		if s.mixed {
			continue
		}
		for _, a := range s.answers {
			t := c.final[a.session]
			i, ok := t.at(a.resp.msgH)
			if !ok {
				continue // lost, live-only, discarded or unreadable: judged elsewhere
			}
			m := &t.msgs[i]
			if m.text == s.text {
				continue
			}
			if byKey == nil {
				byKey = c.keyedSubs()
			}
			if s.keyed && len(byKey[sessKey{a.session, s.key}]) > 1 {
				continue // a reused key
			}
			if c.reported(s, WrongID, a.session) {
				continue // told already: several ids for one key, or a shared id
			}
			c.misnamed(s, a, t, i)
		}
	}
}

// keyedSubs lists the keyed submissions per session and key.
func (c *checker) keyedSubs() map[sessKey][]*subState {
	out := map[sessKey][]*subState{}
	for _, s := range c.order {
		if !s.keyed || s.mixed {
			continue
		}
		for _, S := range s.sessions {
			k := sessKey{S, s.key}
			out[k] = append(out[k], s)
		}
	}
	return out
}

// reported says whether s already has an anomaly of kind in session S (of
// its own: not one of a group). An index, since a trace of many wrong ids
// asks once for each, and walking every anomaly each time was quadratic.
func (c *checker) reported(s *subState, kind, S string) bool {
	return c.byReport[reportKey{kind, S, s}]
}

// misnamed reports answer a of s, which names message i of transcript t
// whose text is not s's.
func (c *checker) misnamed(s *subState, a answer, t *transcript, i int) {
	m := &t.msgs[i]
	rp, r := a.resp, a.resp.req
	ev := c.subEvents(s)
	ev.add(r.delSeq, rp.seq, m.seq, t.seq)
	whose := ""
	switch {
	case m.owner != nil && m.owner.req.sub != nil && m.owner.req.sub != s:
		whose = fmt.Sprintf(", %s's message", m.owner.req.sub.id)
		ev.add(m.owner.seq)
	case m.owner == nil && i < c.inherited(t.session):
		whose = fmt.Sprintf(", a copy the fork inherited from its parent %s", short(c.forkOf[t.session]))
	}
	head := fmt.Sprintf("%s: its %s delivered at %s was answered with messageId %s at %s, but the final transcript of session %s (read on %s at %s) holds %s as %q%s, not the prompt %q",
		c.subName(s), c.bareReq(r), ms(r.delT), short(a.id), ms(rp.t), short(t.session), t.link, ms(t.t), short(a.id), clip(m.text, 60), whose, clip(s.text, 60))
	var own []string
	for j := range t.msgs {
		if t.msgs[j].text == s.text {
			own = append(own, short(t.msgs[j].id))
			ev.add(t.msgs[j].seq)
		}
	}
	if len(own) == 0 && c.toldInserted(s) && !c.mayLack(s, t.session) && !c.allGone([]string{t.session}) {
		c.add(Lost, s, t.session, ev, "%s; the prompt's text is nowhere in that transcript, so it was never inserted although the user was told it was: %s.",
			head, c.attempts(s, ev))
		return
	}
	where := "its text is nowhere in that transcript"
	if len(own) > 0 {
		where = fmt.Sprintf("its text is the transcript's %s", list(own))
	}
	c.add(WrongID, s, t.session, ev, "%s: a response must name the message its own submission inserted, and %s: %s.",
		head, where, c.attempts(s, ev))
}

// toldInserted says whether the user was told s was inserted, or nothing:
// a user told the outcome is unknown, or that it failed, lost nothing silently.
func (c *checker) toldInserted(s *subState) bool {
	return s.outcome == traces.OutcomeInserted || s.outcome == traces.OutcomeAbandoned
}
