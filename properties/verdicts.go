package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/traces"
)

// The verdicts on each submission once its messages are attributed (duplicate,
// lost, phantom, unresolved, wrong id), and messageIds two submissions share.

func (c *checker) judgeSub(s *subState) {
	// One duplicate per submission, whichever evidence shows it: messages
	// in the transcript, responses naming insertions, or both.
	if n := s.inserted(); !s.ambiguous && n >= 2 {
		ev := c.subEvents(s)
		named := ""
		if len(s.extra) > 0 {
			named = "; " + c.namedText(s, ev)
		}
		c.add(Duplicate, s, s.firstSession(), ev, "%s was inserted %s: %s; %s%s; %s.",
			c.subName(s), times(n), c.attempts(s, ev), c.told(s, ev), named, c.transcripts(s, ev))
	}
	// A message the contract lets the Agent drop (live-only, or discarded
	// under "last N") is not lost when it is missing, nor one whose every
	// session vanished (allowed by the process contract, told once per
	// session as session-lost by the durable one).
	switch s.outcome {
	case traces.OutcomeInserted:
		s.loss = lossJudged
		S, ok, cands := c.outcomeSession(s)
		switch {
		case ok || c.mayLack(s, cands...):
		case c.allGone(cands):
			s.loss = lossSessionGone
		case c.noLoad && c.noneRead(cands):
			s.loss = lossNoLoad
		case c.uncheckable(s, cands):
			s.loss = lossSetupFailed
		default:
			if U, why := c.unread(cands); why != "" {
				s.loss = lossStopped
				c.unreadLost(s, U, why)
				break
			}
			ev := c.subEvents(s)
			c.add(Lost, s, S, ev, "%s is missing from the final transcript although the user was told it was inserted: %s; %s; yet %s%s.",
				c.subName(s), c.attempts(s, ev), c.told(s, ev), c.transcriptOf(s, S, s.outcomeMsg, ev), c.retainedWhy(s, S))
		}
	case traces.OutcomeAbandoned:
		s.loss = lossJudged
		switch {
		case s.ambiguous || len(s.msgs) > 0 || !c.mustRetain(s):
		case c.allGone(s.sessions):
			s.loss = lossSessionGone
		case c.noLoad && c.noneRead(s.sessions):
			s.loss = lossNoLoad
		case c.uncheckable(s, s.sessions):
			s.loss = lossSetupFailed
		default:
			if U, why := c.unread(s.sessions); why != "" {
				s.loss = lossStopped
				c.unreadLost(s, U, why)
				break
			}
			ev := c.subEvents(s)
			why := ""
			if len(s.sessions) == 1 {
				why = c.retainedWhy(s, s.sessions[0])
			}
			c.add(Lost, s, s.firstSession(), ev, "%s is missing from the final transcript and its user was told nothing: %s; %s; %s%s.",
				c.subName(s), c.attempts(s, ev), c.told(s, ev), c.transcripts(s, ev), why)
		}
	}
	if s.outcome == traces.OutcomeFailed && !s.ambiguous && len(s.msgs) >= 1 {
		ev := c.subEvents(s)
		c.add(Phantom, s, s.msgs[0].session, ev, "%s is in the final transcript although the user was told it failed: %s; %s; yet %s.",
			c.subName(s), c.attempts(s, ev), c.told(s, ev), c.transcripts(s, ev))
	}
	if s.nOutcomes == 0 && c.h.Observed != traces.ObservedAtTap { // a tap sees no outcomes at all
		ev := c.subEvents(s)
		if why := c.stoppedWhy(); why != "" {
			c.unjudged(s, s.firstSession(), ev, "%s never got an outcome: %s; %s while it was still pending.", c.subName(s), c.attempts(s, ev), why)
		} else {
			c.add(Unresolved, s, s.firstSession(), ev, "%s never got an outcome: %s; the run ended quiet with it still pending, a liveness failure.", c.subName(s), c.attempts(s, ev))
		}
	}
	if s.keyed && !s.mixed {
		for _, S := range s.sessions {
			n := 0
			for _, a := range s.answers {
				if a.session == S {
					n++
				}
			}
			if n < 2 {
				continue
			}
			var as []answer
			var ids []string
			for _, a := range s.answers {
				if a.session == S {
					as = append(as, a)
					ids = append(ids, a.id)
				}
			}
			// Each new messageId is expected when the contract let the
			// Agent forget the one before it, and the key with it.
			ev := c.subEvents(s)
			var whys []string
			wrong := false
			for i := 1; i < len(as); i++ {
				ok, why := c.forgotten(s, S, as[i-1], as[i], ev)
				if ok {
					c.rep.Stats.ExpectedForgotten++
					continue
				}
				wrong = true
				if why != "" {
					whys = append(whys, fmt.Sprintf("%s after %s: %s", short(as[i].id), short(as[i-1].id), why))
				}
			}
			if !wrong {
				continue
			}
			tail := ""
			if len(whys) > 0 {
				tail = "; the contract does not let the Agent have forgotten the key: " + strings.Join(whys, "; ")
			}
			c.add(WrongID, s, S, ev, "%s got %d different messageIds (%s) for one key in session %s: %s%s.",
				c.subName(s), len(ids), list(shortAll(ids)), short(S), c.attempts(s, ev), tail)
		}
	}
}

// outcomeSession says in which session the inserted(M) outcome should be
// found and whether it is there, and the sessions it may be in.
func (c *checker) outcomeSession(s *subState) (string, bool, []string) {
	cands := s.sessions
	for _, a := range s.answers {
		if a.id == s.outcomeMsg {
			// The answer's session, as a list: one of s.sessions (its
			// request's), else a list of its own.
			if i := slices.Index(s.sessions, a.session); i >= 0 {
				cands = s.sessions[i : i+1 : i+1]
			} else {
				cands = []string{a.session}
			}
			break
		}
	}
	for _, S := range cands {
		t := c.final[S]
		if s.outcomeMsg == "" {
			if len(s.msgs) > 0 {
				return S, true, cands
			}
		} else if t.hasH(s.outcomeMsgH) {
			return S, true, cands
		}
	}
	if len(cands) > 0 {
		return cands[0], false, cands
	}
	return "", false, cands
}

func (s *subState) firstSession() string {
	if len(s.sessions) > 0 {
		return s.sessions[0]
	}
	return ""
}

func (c *checker) judgeShared() {
	for _, rp := range c.shared {
		r := rp.req
		own := c.ownerOf(msgKey{r.sessionH, rp.msgH})
		if c.misnamedFirst(rp, own) {
			continue
		}
		ev := &evs{}
		ev.add(own.seq, rp.seq, r.delSeq, own.req.delSeq)
		c.add(WrongID, r.sub, r.session, ev, "the Agent answered %s with messageId %s at %s, the id it had already given %s at %s (%s): one message cannot be the insertion of two submissions.",
			c.reqOf(r), short(rp.msgID), ms(rp.t), c.subName(own.req.sub), ms(own.t), c.reqOf(own.req))
	}
}

// misnamedFirst says whether own, the response that named rp's message
// first, named a message of another submission's text, and rp's submission
// typed it: the wrong answer is own's, which judgeAnswers reports.
func (c *checker) misnamedFirst(rp, own *respRec) bool {
	t := c.final[rp.req.session]
	i, ok := t.at(rp.msgH)
	if !ok || own.req.sub == nil {
		return false
	}
	text := t.msgs[i].text
	return text == rp.req.sub.text && text != own.req.sub.text
}

// noneRead reports whether no final transcript of sessions was read.
func (c *checker) noneRead(sessions []string) bool {
	for _, S := range sessions {
		if c.final[S] != nil {
			return false
		}
	}
	return true
}
