package properties

import (
	"fmt"
	"strings"
)

// What the Agent's declared contract (traces.Contract) lets it forget. A
// message the contract lets the Agent drop is not lost when it is missing,
// and a key whose message the Agent may have dropped is forgotten with it:
// the RFD makes a prompt with a forgotten key a new submission.

// liveOnly reports whether s's text is one the Agent handles locally: echoed
// live, never retained or replayed.
func (c *checker) liveOnly(s *subState) bool { return c.h.Contract.IsLiveOnly(s.text) }

// full reports whether retention may have discarded messages of session S:
// the contract keeps each session's last N user messages and S's final
// transcript holds N or more. A shorter transcript shows nothing was
// discarded, so S is judged as if everything were retained.
func (c *checker) full(S string) bool {
	if c.retainN == 0 {
		return false
	}
	t := c.final[S]
	return t != nil && len(t.msgs) >= c.retainN
}

// deliveredIn reports whether a prompt request of s reached an Agent in
// session S: only then may the Agent have had a message of s to drop.
func (s *subState) deliveredIn(S string) bool {
	for _, r := range s.reqs {
		if r.delivered && r.session == S {
			return true
		}
	}
	return false
}

// mayLack reports whether the contract lets S's final transcript lack s's
// message: the Agent had the prompt, and its text is live-only or retention
// may have discarded it.
func (c *checker) mayLack(s *subState, sessions ...string) bool {
	for _, S := range sessions {
		if s.deliveredIn(S) && (c.liveOnly(s) || c.full(S)) {
			return true
		}
	}
	return false
}

// mustRetain reports whether s's absence from every transcript is a loss.
func (c *checker) mustRetain(s *subState) bool { return !c.mayLack(s, s.sessions...) }

// retainedWhy adds to a lost explanation why the contract does not excuse
// s's absence from S: the excuse needs the Agent to have had the prompt, and
// under "last N" a transcript short of N shows nothing was discarded.
func (c *checker) retainedWhy(s *subState, S string) string {
	t := c.final[S]
	switch {
	case (c.liveOnly(s) || c.full(S)) && !s.deliveredIn(S):
		return "; no request of it reached the Agent in that session, so the Agent had nothing the contract lets it drop"
	case c.retainN > 0 && t != nil:
		return fmt.Sprintf("; the Agent keeps the last %s of a session and this transcript holds only %d, so it discarded none", plural(c.retainN, "user message"), len(t.msgs))
	}
	return ""
}

// nameInsertions collects what the responses say an unkeyed submission
// inserted: with no key to tie its requests together, the Agent inserts anew
// for each, so every messageId it answered one of them with is an insertion,
// whether or not a transcript still holds it (live-only messages never are).
// A request inserts at most once, so only its first success response counts,
// and a message another submission got first is that one's (a wrong-id).
func (c *checker) nameInsertions(s *subState) {
	if s.keyed && !s.mixed {
		return
	}
	for _, r := range s.reqs {
		for _, rp := range r.resps {
			if !rp.ok {
				continue
			}
			mk := msgKey{r.sessionH, rp.msgH}
			if own := c.ownerOf(mk); rp.msgID != "" && own != nil && own.req.sub == s && !hasID(s.named, r.session, rp.msgID) {
				a := answer{r.session, rp.msgID, rp}
				s.named = append(s.named, a)
				if t := c.final[r.session]; t == nil || !t.has(rp.msgID) {
					s.extra = append(s.extra, a)
				}
			}
			break
		}
	}
}

func hasID(as []answer, session, id string) bool {
	for _, a := range as {
		if a.session == session && a.id == id {
			return true
		}
	}
	return false
}

// inserted counts the insertions of s the frames show: its messages in the
// final transcripts plus those only a response names.
func (s *subState) inserted() int { return len(s.msgs) + len(s.extra) }

// namedText tells, for a duplicate, the responses that name insertions no
// transcript holds.
func (c *checker) namedText(s *subState, ev *evs) string {
	var parts, gone []string
	for _, a := range s.named {
		rp := a.resp
		ev.add(rp.seq)
		parts = append(parts, fmt.Sprintf("%s (to request %s on %s at %s)", short(a.id), rp.req.id, rp.req.link.name, ms(rp.t)))
	}
	for _, a := range s.extra {
		gone = append(gone, short(a.id))
	}
	why := ""
	switch {
	case c.liveOnly(s):
		why = " (its text is live-only: the Agent never retains it)"
	case c.full(s.extra[0].session):
		why = fmt.Sprintf(" (the Agent keeps only the last %s of a session)", plural(c.retainN, "user message"))
	}
	verb := "is"
	if len(gone) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("no key ties its requests together, so each messageId the Agent answered them with is an insertion: %s; %s %s not in the final transcript%s",
		list(parts), list(gone), verb, why)
}

// forgotten reports whether the contract let the Agent forget prev's message,
// and the key with it, before next's request arrived, so that next is a new
// submission and its new messageId is expected. A live-only message's key
// lasts while the session stays active on the link it was answered on: it is
// forgotten once that link has ended, or when the session is used on another
// link. Under "last N" a message is gone when S's final transcript lacks it
// and holds N or more messages. When the contract does not excuse next, why
// tells why not ("" when it has nothing to say), citing events in ev.
func (c *checker) forgotten(s *subState, S string, prev, next answer, ev *evs) (ok bool, why string) {
	r := next.resp.req
	var whys []string
	if c.liveOnly(s) {
		l := prev.resp.link
		if r.link != l || (l.ended && l.endSeq < r.delSeq) {
			return true, ""
		}
		whys = append(whys, fmt.Sprintf("its text is live-only, but request %s was delivered at %s on %s, the link %s had been answered on, while that link was still up", r.id, ms(r.delT), l.name, short(prev.id)))
	}
	if c.retainN > 0 {
		t := c.final[S]
		switch {
		case t == nil:
			whys = append(whys, fmt.Sprintf("session %s has no final transcript to show that %s was discarded", short(S), short(prev.id)))
		case t.has(prev.id):
			ev.add(t.seq)
			whys = append(whys, fmt.Sprintf("%s is still in the final transcript of session %s", short(prev.id), short(S)))
		case len(t.msgs) < c.retainN:
			ev.add(t.seq)
			whys = append(whys, fmt.Sprintf("the final transcript of session %s holds %s, fewer than the %d the Agent keeps, so it discarded none", short(S), plural(len(t.msgs), "user message"), c.retainN))
		default:
			// Discarded by the end is not enough: it must have been pushed
			// out before the retry arrived, by N newer retained messages.
			// prev may have been inserted long before it was first named
			// (its process died first): count from the submission's first
			// delivered request in S, the earliest it can have been.
			var from int64
			if m := c.msgOf(c.msgKeyOf(S, prev.id)); m != nil {
				from = m.first
			}
			for _, q := range s.reqs {
				if q.session == S && q.delivered && q.delSeq < from {
					from = q.delSeq
				}
			}
			if n := c.namedBetween(S, prev.id, s, from, r.delSeq); n < c.retainN {
				whys = append(whys, fmt.Sprintf("only %s newer than %s had been inserted in session %s when request %s arrived at %s, fewer than the %d it keeps, so %s was still kept then",
					plural(n, "user message"), short(prev.id), short(S), r.id, ms(r.delT), c.retainN, short(prev.id)))
				break
			}
			return true, ""
		}
	}
	return false, strings.Join(whys, ", and ")
}
