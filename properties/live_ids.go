package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Live ids agree with responses and the transcript: the user_message the
// Agent announces for a submission carries the messageId the response gave
// it. A retry answered with the original id that is also announced under a
// new one is a second insertion visible only in the updates.
//
// It is a duplicate, not a wrong-id: the response and the transcript agree
// with each other, and what is wrong is that every Client on the session was
// shown the prompt inserted once more, under an id no response names and the
// history does not hold. The kind says what the users saw happen twice.

// liveRec is a user message announced live (not in a replay) under an id no
// response had named yet; only those can be an insertion no response owns.
type liveRec struct {
	session, id, text string
	link              *linkState
	seq, t            int64
}

// noteLive keeps a live user message (or a chunk of one) the Agent
// announced under an id no response has named so far. A session's replay (a
// resume in progress on the link, or the observer's) repeats stored
// messages and announces nothing.
func (c *checker) noteLive(l *linkState, e *traces.Event, u *updView, sr *msgRec, replaying bool) {
	if l.observer || replaying || sr.owner != nil {
		return
	}
	mk := msgKey{u.sessionH, u.msgH}
	if i, ok := c.liveAt[mk]; ok {
		x := &c.live[i]
		if u.kind == acp.UpdateUserMessageChunk {
			x.text += u.text()
		} else if u.hasContent() {
			x.text = c.own(u.text())
		}
		return
	}
	if c.liveAt == nil {
		c.liveAt = map[msgKey]int32{}
	}
	c.liveAt[mk] = int32(len(c.live))
	c.live = append(c.live, liveRec{session: u.session, id: c.own(u.msgID), text: c.own(u.text()), link: l, seq: e.Seq, t: e.T})
}

// judgeLiveIDs reports each live user message that no response named and
// the final transcript does not hold, announced after a response gave its
// text's submission another messageId in that session: the same prompt
// announced inserted a second time.
func (c *checker) judgeLiveIDs() {
	for i := range c.live {
		x := &c.live[i]
		if sr := c.msgOf(c.msgKeyOf(x.session, x.id)); sr != nil && sr.owner != nil {
			continue // a response named it after all
		}
		t := c.final[x.session]
		if t == nil || t.has(x.id) {
			continue // unreadable, or in the history: attribution judges it
		}
		s, a := c.answeredBefore(x)
		if s == nil || c.reported(s, Duplicate, x.session) {
			continue
		}
		rp, r := a.resp, a.resp.req
		ev := c.subEvents(s)
		ev.add(r.delSeq, rp.seq, x.seq, t.seq)
		held := "does not hold it either"
		if t.has(a.id) {
			held = "holds " + short(a.id) + " once"
		}
		c.add(Duplicate, s, x.session, ev, "%s was announced inserted twice: its %s delivered at %s was answered with messageId %s at %s, then at %s the Agent announced on %s a user_message %q under another messageId, %s, which no response names and the final transcript of session %s (read on %s at %s) does not hold (it %s): every Client on the session was shown the prompt twice; %s.",
			c.subName(s), c.bareReq(r), ms(r.delT), short(a.id), ms(rp.t), ms(x.t), x.link.name, clip(x.text, 60), short(x.id), short(x.session), t.link, ms(t.t), held, c.attempts(s, ev))
	}
}

// answeredBefore is the submission of x's text whose latest answer in x's
// session came before x was announced, and that answer, if it named another
// message. An announcement before any answer may be the insertion of a
// request whose response never came, which attribution judges.
func (c *checker) answeredBefore(x *liveRec) (*subState, answer) {
	var best *subState
	var ba answer
	for _, s := range c.answeredByText()[groupKey{x.session, x.text}] {
		if c.liveOnly(s) {
			continue
		}
		for _, a := range s.answers {
			if a.session == x.session && a.resp.seq < x.seq && a.id != x.id && (best == nil || a.resp.seq > ba.resp.seq) {
				best, ba = s, a
			}
		}
	}
	return best, ba
}
