package properties

import (
	"fmt"
)

// A success response must name its own submission's message: a user
// message of the prompt's text that this submission inserted, not another
// submission's, not a copy a fork inherited from its parent. Naming a
// message in the transcript is not enough: an Agent that answers a retry
// with the wrong message tells the user their input is there when it is
// not.
//
// Live ids agree with responses and the transcript: the user_message the
// Agent announces for a submission carries the messageId the response gave
// it. A retry answered with the original id that is also announced under a
// new one is a second insertion visible only in the updates. It is a
// duplicate, not a wrong-id: the response and the transcript agree with
// each other, and what is wrong is that every Client on the session was
// shown the prompt inserted once more, under an id no response names and
// the history does not hold. The kind says what the users saw happen
// twice.

// judgeShared reports each success answer naming a message another
// submission's response had named first: one message cannot be the
// insertion of two submissions.
func (lg *ledger) judgeShared() {
	for _, ref := range lg.shared {
		rp := lg.resp(ref)
		ri := rp.req
		r := &lg.reqs[ri]
		mi, _ := lg.msgIndex(msgKey{r.session, rp.msg})
		ownRef := lg.msgs[mi].owner
		own := lg.resp(ownRef)
		if lg.misnamedFirst(ref, ownRef) {
			continue
		}
		ev := &evs{}
		ev.add(own.seq, rp.seq, r.delSeq, lg.reqs[own.req].delSeq)
		lg.report(WrongID, r.sub, r.session, ev, "the Agent answered %s with messageId %s at %s, the id it had already given %s at %s (%s): one message cannot be the insertion of two submissions.",
			lg.reqOf(ri), short(lg.in.IDName(rp.msg)), ms(rp.t), lg.subName(lg.reqs[own.req].sub), ms(own.t), lg.reqOf(own.req))
	}
}

// misnamedFirst says whether own, the response that named ref's message
// first, named a message of another submission's text, and ref's
// submission typed it: the wrong answer is own's, which judgeAnswers
// reports.
func (lg *ledger) misnamedFirst(ref, own respRef) bool {
	rp := lg.resp(ref)
	r := &lg.reqs[rp.req]
	f := lg.fin(r.session)
	i, ok := lg.at(f, rp.msg)
	o := lg.ownerSub(own)
	if !ok || o == none {
		return false
	}
	text := lg.fmsgs[f.from+i].text
	return text == lg.subs[r.sub].text && text != lg.subs[o].text
}

// judgeAnswers reports each message a submission's success response named
// that the final transcript holds under another text: wrong-id, or lost
// when the submission's own text is nowhere in that transcript and the
// contract says it must be. A message the transcript lacks (lost,
// live-only, discarded or unreadable) is judged elsewhere. A reused key is
// exempt: the RFD lets an Agent that does not compare prompts answer a key
// recorded for another prompt as a retry (the Client that reused it is the
// one at fault, and the message two submissions share is reported once, by
// judgeShared). A submission told wrong-id in the session already (several
// ids for one key, a shared id) is not told again.
func (lg *ledger) judgeAnswers() {
	var byKey map[msgKey]int // keyed submissions by session and key, made on the first mismatch
	for _, s := range lg.subOrder {
		x := &lg.subs[s]
		if x.mixed {
			continue
		}
		for j := x.answers; j != none; j = lg.answers[j].next {
			a := &lg.answers[j]
			f := lg.fin(a.session)
			i, ok := lg.at(f, a.msg)
			if !ok || lg.fmsgs[f.from+i].text == x.text {
				continue
			}
			if byKey == nil {
				byKey = lg.keyedSubs()
			}
			if x.keyed && byKey[msgKey{a.session, x.key}] > 1 {
				continue // a reused key
			}
			if lg.core.reported[ledgerReportKey{WrongID, a.session, s}] {
				continue
			}
			lg.misnamed(s, a, f, i)
		}
	}
}

// keyedSubs counts the keyed submissions per session and key: more than
// one is a reused key.
func (lg *ledger) keyedSubs() map[msgKey]int {
	out := map[msgKey]int{}
	for _, s := range lg.subOrder {
		x := &lg.subs[s]
		if !x.keyed || x.mixed {
			continue
		}
		for j := x.sessions; j != none; j = lg.sessions[j].next {
			out[msgKey{lg.sessions[j].session, x.key}]++
		}
	}
	return out
}

// misnamed reports answer a of s, which names message i of final
// transcript f whose text is not s's: lost when s's text is nowhere there
// although its user was told inserted (or nothing: a user told unknown or
// failed lost nothing silently) and neither the contract nor a vanished
// session excuses it, else wrong-id.
func (lg *ledger) misnamed(s int32, a *answerRow, f *finalRow, i int32) {
	x := &lg.subs[s]
	m := &lg.fmsgs[f.from+i]
	rp := lg.resp(a.resp)
	ri := rp.req
	r := &lg.reqs[ri]
	S := lg.trans[f.trans].session
	ev := lg.subEvents(s)
	ev.add(r.delSeq, rp.seq, m.seq, lg.finSeq(f))
	whose := ""
	o := none
	if m.owned {
		o = lg.ownerSub(m.owner)
	}
	switch {
	case o != none && o != s:
		whose = fmt.Sprintf(", %s's message", lg.in.Sub(o))
		ev.add(lg.resp(m.owner).seq)
	case !m.owned && i < lg.inherited(S):
		whose = fmt.Sprintf(", a copy the fork inherited from its parent %s", short(lg.in.IDName(lg.forkOf[S])))
	}
	id := short(lg.in.IDName(a.msg))
	head := fmt.Sprintf("%s: its %s delivered at %s was answered with messageId %s at %s, but the final transcript of session %s (read on %s at %s) holds %s as %q%s, not the prompt %q",
		lg.subName(s), lg.bareReq(ri), ms(r.delT), id, ms(rp.t), short(lg.in.IDName(S)), lg.finLink(f), ms(lg.finT(f)), id, clip(lg.in.textName(m.text), 60), whose, clip(lg.in.textName(x.text), 60))
	var own []string
	for _, tm := range lg.msgsOf(f) {
		if tm.text == x.text {
			own = append(own, short(lg.in.IDName(tm.id)))
			ev.add(tm.seq)
		}
	}
	told := x.outcome == wInserted || x.outcome == wAbandoned
	if len(own) == 0 && told && !lg.mayLack(s, S) && !lg.allGone([]int32{S}) {
		lg.report(Lost, s, S, ev, "%s; the prompt's text is nowhere in that transcript, so it was never inserted although the user was told it was: %s.",
			head, lg.attempts(s, ev))
		return
	}
	where := "its text is nowhere in that transcript"
	if len(own) > 0 {
		where = fmt.Sprintf("its text is the transcript's %s", list(own))
	}
	lg.report(WrongID, s, S, ev, "%s: a response must name the message its own submission inserted, and %s: %s.",
		head, where, lg.attempts(s, ev))
}

// judgeLiveIDs reports each live user message that no response named and
// the final transcript does not hold, announced after a response gave its
// text's submission another messageId in that session: the same prompt
// announced inserted a second time. One in the history (or in a
// transcript never read) is attribution's to judge.
func (lg *ledger) judgeLiveIDs() {
	for i := range lg.live {
		x := &lg.live[i]
		if mi, ok := lg.msgIndex(msgKey{x.session, x.id}); ok && lg.msgs[mi].owned {
			continue // a response named it after all
		}
		f := lg.fin(x.session)
		if f == nil || lg.holds(x.session, x.id) {
			continue
		}
		s, a := lg.answeredBefore(x)
		if s == none || lg.core.reported[ledgerReportKey{Duplicate, x.session, s}] {
			continue
		}
		rp := lg.resp(a.resp)
		ri := rp.req
		r := &lg.reqs[ri]
		ev := lg.subEvents(s)
		ev.add(r.delSeq, rp.seq, x.seq, lg.finSeq(f))
		held := "does not hold it either"
		if lg.holds(x.session, a.msg) {
			held = "holds " + short(lg.in.IDName(a.msg)) + " once"
		}
		lg.report(Duplicate, s, x.session, ev, "%s was announced inserted twice: its %s delivered at %s was answered with messageId %s at %s, then at %s the Agent announced on %s a user_message %q under another messageId, %s, which no response names and the final transcript of session %s (read on %s at %s) does not hold (it %s): every Client on the session was shown the prompt twice; %s.",
			lg.subName(s), lg.bareReq(ri), ms(r.delT), short(lg.in.IDName(a.msg)), ms(rp.t), ms(x.t), lg.in.Link(x.link), clip(lg.in.textName(x.text), 60), short(lg.in.IDName(x.id)), short(lg.in.IDName(x.session)), lg.finLink(f), ms(lg.finT(f)), held, lg.attempts(s, ev))
	}
}

// answeredBefore is the submission of x's text whose latest answer in x's
// session came before x was announced, and that answer, if it named
// another message. An announcement before any answer may be the insertion
// of a request whose response never came, which attribution judges; a
// live-only text is never kept, so its absence from the transcript shows
// nothing.
func (lg *ledger) answeredBefore(x *liveRow) (int32, *answerRow) {
	best := none
	var ba *answerRow
	for _, s := range lg.answeredByText()[textKey{x.session, x.text}] {
		if lg.liveOnly(s) {
			continue
		}
		for j := lg.subs[s].answers; j != none; j = lg.answers[j].next {
			a := &lg.answers[j]
			if seq := lg.resp(a.resp).seq; a.session == x.session && seq < x.seq && a.msg != x.id && (best == none || seq > lg.resp(ba.resp).seq) {
				best, ba = s, a
			}
		}
	}
	return best, ba
}
