package properties

// Rework: a retry answered from the binding, then idle to running with no
// new user message, is a second round of work for a message already
// inserted; seen in the Agent's updates as sent. Whether a user message is
// new, and whether the retry's answer is still waiting for a turn, are
// decided as the updates are read.

// reworkRow is a second round of work after a retry answered from the
// binding (retry): the idle and running states that show it.
type reworkRow struct {
	retry          respRef
	session        int32
	idleSeq, idleT int64
	runSeq, runT   int64
}

// agentState reads a state update the Agent sent (x).
func (lg *ledger) agentState(x *fact) {
	ls := lg.ls(x.link, x.session)
	// States written during a resume are snapshots, not transitions.
	if ls.resumes <= 0 && x.state == wRunning && ls.hasRetry && ls.last == wIdle {
		if !ls.newSinceIdle {
			lg.rework = append(lg.rework, reworkRow{retry: ls.retry, session: x.session, idleSeq: ls.idleSeq, idleT: ls.idleT, runSeq: x.seq, runT: x.t})
		}
		ls.hasRetry = false
	}
	ls.last = x.state
	if x.state == wIdle {
		ls.idleSeq, ls.idleT, ls.newSinceIdle = x.seq, x.t, false
	}
}

// judgeRework reports each second round of work.
func (lg *ledger) judgeRework() {
	for _, w := range lg.rework {
		rp := lg.resp(w.retry)
		r := &lg.reqs[rp.req]
		ev := &evs{}
		ev.add(r.delSeq, rp.firstSeen, rp.seq, w.idleSeq, w.runSeq)
		who := "a request with no submission"
		if r.sub != none {
			who = lg.subName(r.sub) + ": its"
		}
		msg := short(lg.in.IDName(rp.msg))
		lg.report(Rework, r.sub, w.session, ev, "%s %s delivered at %s was answered from the binding with messageId %s at %s (the Agent had already sent %s at %s); the last state the Agent had sent for session %s on %s was idle (at %s), and at %s it sent state running with no new user message in between: a second round of work for a message that was already inserted.",
			who, lg.bareReq(rp.req), ms(r.delT), msg, ms(rp.t), msg, ms(rp.firstT), short(lg.in.IDName(w.session)), lg.in.Link(r.link), ms(w.idleT), ms(w.runT))
	}
}
