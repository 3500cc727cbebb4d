package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The Agent's responses: which request each answers, and what a prompt's
// messageId says about insertions, bindings and ids given to two submissions.

type respRec struct {
	req    *reqRec
	link   *linkState
	id     acp.ID
	seq, t int64
	msgID  string
	msgH   int32 // msgID's handle (Interner.ID)
	// The flags sit beside msgH: packed, a record is a tenth smaller.
	ok, delivered, binding bool
	code                   int
	delSeq                 int64
	lost                   string
	lostSeq                int64
	firstSeen              int64 // for a binding answer: when the message was first sent
	firstT                 int64
}

// target picks the delivered request a response with this id answers: the
// oldest one still unanswered, else the newest (which is then answered twice).
func (l *linkState) target(id acp.ID) *reqRec {
	list := l.reqsOf(id)
	var t *reqRec
	list.each(func(r *reqRec) bool {
		if len(r.resps) == 0 {
			t = r
			return true
		}
		return false
	})
	if t == nil {
		t = list.last()
	}
	return t
}

func (c *checker) newResp(l *linkState, e *traces.Event, m *msgView, sent bool) *respRec {
	r := l.target(m.id)
	var rp *respRec
	if sent && r != nil && len(r.resps) == 0 {
		rp = &r.resp1 // beside its request, where the rules read it
	} else {
		rp = c.respSlab.New()
	}
	rp.link, rp.id, rp.seq, rp.t = l, acp.ID(c.own(string(m.id))), e.Seq, e.T
	if m.hasErr {
		rp.code = m.errCode
	} else {
		rp.ok = true
	}
	if rp.ok && (r == nil || r.method == acp.MethodSessionPrompt) {
		rp.msgID = c.own(m.messageID())
		rp.msgH = c.idOf(m.ids, m.msgH, rp.msgID)
	}
	if !sent {
		rp.req = r
		return rp
	}
	if r == nil {
		if m.id == "null" && l.nullErrs > 0 && !rp.ok {
			l.nullErrs--
		} else {
			c.stray = append(c.stray, rp)
		}
		return rp
	}
	rp.req = r
	r.resps = append(r.resps, rp)
	if r.method == acp.MethodSessionFork && rp.ok && len(r.resps) == 1 {
		if child := c.name(m.resultSession()); child != "" {
			if c.forkOf == nil {
				c.forkOf = map[string]string{}
			}
			if _, seen := c.forkOf[child]; !seen {
				c.forkOf[child] = r.session
			}
		}
	}
	switch len(r.resps) {
	case 1:
		c.sessionAnswer(l, r, m, e)
		l.unanswered--
		if r.sub != nil && r.method == acp.MethodSessionPrompt {
			r.sub.tos, _ = bump(r.sub.tos, r.to, -1)
		}
		if r.method == acp.MethodSessionResume {
			l.ls(r.session).resumes--
		}
		c.setupAnswered(l, r, rp, m.errMsg)
	case 2:
		c.twice = append(c.twice, r)
	}
	c.strayCancel(r, rp)
	c.noteWithdrawn(r, rp)
	if r.method != acp.MethodSessionPrompt {
		return rp
	}
	// A withdrawn prompt's -32800 is a right answer whatever its key.
	if r.keyState == keyBad && (rp.ok || rp.code != acp.CodeInvalidParams) && len(r.resps) == 1 && !(r.cancel != nil && !rp.ok && rp.code == acp.CodeRequestCancelled) {
		c.bad = append(c.bad, r)
	}
	c.refusedKey(r, rp)
	if r.cancel != nil && (rp.ok || len(r.resps) == 1 && !cancelAnswer(r, rp.code)) {
		c.cancelled = append(c.cancelled, rp)
	}
	if rp.ok && rp.msgID != "" {
		c.promptAnswered(l, r, rp)
	}
	return rp
}

func (c *checker) promptAnswered(l *linkState, r *reqRec, rp *respRec) {
	mk := msgKey{r.sessionH, rp.msgH}
	sr, known := c.msgFor(mk)
	if !known {
		sr.first, sr.firstT = rp.seq, rp.t
		c.noteNamed(r.session, rp.msgID, rp.seq, func() string {
			if r.sub != nil {
				return r.sub.text
			}
			return ""
		})
	}
	// Answered from a binding: the message existed before this request
	// arrived. A request held and answered with the insertion it waited for
	// is not a retry served from a binding, whatever order the Agent writes
	// the response and the user message in.
	if known && r.delivered && sr.first < r.delSeq {
		rp.binding, rp.firstSeen, rp.firstT = true, sr.first, sr.firstT
		sr.bound = true
		if ls := l.ls(r.session); ls.retry == nil {
			ls.retry = rp
		}
	}
	own := sr.owner
	owned := own != nil
	if !owned {
		sr.owner = rp
	}
	s := r.sub
	if s == nil {
		return
	}
	if owned && own.req.sub != nil && own.req.sub != s && !s.hasAnswer(r.session, rp.msgID) {
		c.shared = append(c.shared, rp)
	}
	if r.attempt >= 2 && s.keyed && r.keyState == keyValid && r.key == s.key && s.hasAnswer(r.session, rp.msgID) {
		c.rep.Stats.RetriesFromBinding++
	}
	if !s.hasAnswer(r.session, rp.msgID) {
		s.answers = append(s.answers, answer{r.session, rp.msgID, rp})
	}
}
