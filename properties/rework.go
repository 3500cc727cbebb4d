package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Rework: a retry answered from the binding, then idle to running with no new
// user message, is a second round of work; seen in the Agent's updates as sent.

// lsState is the rework detector's view of one session on one link.
type lsState struct {
	session      string
	last         string
	idleSeq      int64
	idleT        int64
	newSinceIdle bool
	resumes      int      // session/resume requests delivered and not yet answered
	retry        *respRec // first binding answer not yet followed by a new turn
	pend         *reqRec  // prompts delivered for the session (threaded by nextPend), for session/cancel and session/close
}

type reworkRec struct {
	retry        *respRec
	idleSeq      int64
	idleT        int64
	runSeq, runT int64
	session      string
}

// ls is what l shows of session. Most links serve a session or two (a
// map each was a tenth of the checker's allocations), so the first
// lsScan are searched in a list; the observer's, which reads every
// session, gets a map beyond them.
func (l *linkState) ls(session string) *lsState {
	if l.sessBy != nil {
		if s := l.sessBy[session]; s != nil {
			return s
		}
	} else {
		for _, s := range l.sess {
			if s.session == session {
				return s
			}
		}
	}
	s := &lsState{session: session}
	l.sess = append(l.sess, s)
	if l.sessBy != nil {
		l.sessBy[session] = s
	} else if len(l.sess) > lsScan {
		l.sessBy = make(map[string]*lsState, 2*len(l.sess))
		for _, x := range l.sess {
			l.sessBy[x.session] = x
		}
	}
	return s
}

// lsScan is how many sessions of a link are searched in a list.
const lsScan = 8

func (c *checker) agentUpdate(l *linkState, e *traces.Event, u *updView) {
	session := u.session
	switch u.kind {
	case acp.UpdateUserMessage, acp.UpdateUserMessageChunk:
		mk := msgKey{u.sessionH, u.msgH}
		sr, known := c.msgFor(mk)
		if !known {
			sr.first, sr.firstT = e.Seq, e.T
			c.noteNamed(session, u.msgID, e.Seq, u.text)
		}
		ls := l.ls(session)
		c.noteLive(l, e, u, sr, ls.resumes > 0)
		// New on this link: first announced as a user message after the
		// link's last idle (so a broadcast to several links counts on each),
		// and never handed out from a binding.
		if (sr.firstUser == 0 || sr.firstUser > ls.idleSeq) && !sr.bound {
			ls.newSinceIdle = true
		}
		if sr.firstUser == 0 {
			sr.firstUser = e.Seq
		}
	case acp.UpdateState:
		ls := l.ls(session)
		// States written during a resume are snapshots, not transitions.
		if ls.resumes <= 0 && u.state == acp.StateRunning && ls.retry != nil && ls.last == acp.StateIdle {
			if !ls.newSinceIdle {
				c.rework = append(c.rework, reworkRec{retry: ls.retry, idleSeq: ls.idleSeq, idleT: ls.idleT, runSeq: e.Seq, runT: e.T, session: session})
			}
			ls.retry = nil
		}
		ls.last = u.state
		if u.state == acp.StateIdle {
			ls.idleSeq, ls.idleT, ls.newSinceIdle = e.Seq, e.T, false
		}
	}
}

func (c *checker) judgeRework() {
	for _, w := range c.rework {
		rp, r := w.retry, w.retry.req
		ev := &evs{}
		ev.add(r.delSeq, rp.firstSeen, rp.seq, w.idleSeq, w.runSeq)
		who := "a request with no submission"
		if r.sub != nil {
			who = c.subName(r.sub) + ": its"
		}
		c.add(Rework, r.sub, w.session, ev, "%s %s delivered at %s was answered from the binding with messageId %s at %s (the Agent had already sent %s at %s); the last state the Agent had sent for session %s on %s was idle (at %s), and at %s it sent state running with no new user message in between: a second round of work for a message that was already inserted.",
			who, c.bareReq(r), ms(r.delT), short(rp.msgID), ms(rp.t), short(rp.msgID), ms(rp.firstT), short(w.session), r.link.name, ms(w.idleT), ms(w.runT))
	}
}
