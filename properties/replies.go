package properties

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/acp/jsonscan"
	"github.com/acpsim/acpsim/traces"
)

// The Agent owes every delivered request one right answer: requests never
// answered, answered twice, a malformed key not refused, responses to nothing.

// missingReplies finds delivered requests the Agent never answered on a link
// that lived: never ended, or ended by the simulator's orderly close.
func (c *checker) missingReplies() {
	c.judging = byMissingReplies
	defer func() { c.judging = "" }()
	for _, l := range c.linkOrder {
		if l.ended && l.note != "close" {
			continue
		}
		for _, r := range l.open {
			if len(r.resps) > 0 {
				continue
			}
			if !l.ended && c.stoppedWhy() != "" || l.note == "close" && c.rep.End == traces.EndCap {
				// The run stopped while busy (the links closed because a
				// run was cut at its cap among it): a pending request is
				// no verdict.
				c.rep.Inconclusive = true
				continue
			}
			ev := &evs{}
			ev.add(r.sendSeq, r.delSeq, l.endSeq, c.endSeq)
			life := "the link never ended and the run ended quiet"
			if l.ended {
				life = fmt.Sprintf("the link lived until the simulator closed it at %s", ms(l.endT))
			}
			owed := ""
			if r.cancel != nil {
				owed = fmt.Sprintf("; it was pending when %s, so the Agent owed it error %d", c.cancelText(r, ev), acp.CodeRequestCancelled)
			}
			c.add(BadReply, r.sub, r.session, ev, "%s delivered at %s was never answered: %s%s.", c.reqOf(r), ms(r.delT), life, owed)
		}
	}
}

func (c *checker) judgeReplies() {
	if !c.v1 { // v1's cancel answers a turn, not an insertion
		c.judgeCancelled()
		c.judgeSilent()
		c.judgeStrayCancels()
	}
	c.judgeRefusedKeys()
	c.judging = byReplies
	defer func() { c.judging = "" }()
	for _, r := range c.twice {
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq)
		var rs []string
		for _, rp := range r.resps {
			ev.add(rp.seq)
			rs = append(rs, fmt.Sprintf("%s at %s", answerText(rp), ms(rp.t)))
		}
		c.add(BadReply, r.sub, r.session, ev, "%s delivered at %s got %d responses: %s.", c.reqOf(r), ms(r.delT), len(r.resps), list(rs))
	}
	for _, r := range c.bad {
		rp := r.resps[0]
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		c.add(BadReply, r.sub, r.session, ev, "%s carried the malformed idempotencyKey %s (delivered at %s) and was answered with %s at %s instead of error %d.",
			c.reqOf(r), badKey(r.keyRaw), ms(r.delT), answerText(rp), ms(rp.t), acp.CodeInvalidParams)
	}
	for _, rp := range c.stray {
		ev := &evs{}
		ev.add(rp.seq)
		c.add(BadReply, nil, "", ev, "the Agent sent a response with id %s on %s at %s (%s), but no request with that id had been delivered on that link.",
			rp.id, rp.link.name, ms(rp.t), answerText(rp))
	}
}

// badKey describes a malformed key value for prose.
func badKey(raw string) string {
	if k, ok := jsonscan.StringField(raw); ok && raw != "null" && len(raw) > 0 && raw[0] == '"' {
		if n := utf8.RuneCountInString(k); n > acp.MaxKeyLength {
			return fmt.Sprintf("(a string of %d code points, over %d)", n, acp.MaxKeyLength)
		}
		return strconv.Quote(k)
	}
	return clip(raw, 40)
}

func answerText(rp *respRec) string {
	switch {
	case !rp.ok:
		return fmt.Sprintf("error %d", rp.code)
	case rp.msgID != "":
		return "messageId " + short(rp.msgID)
	}
	return "a success result"
}
