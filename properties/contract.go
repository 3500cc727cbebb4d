package properties

import (
	"fmt"
	"strings"
)

// What the Agent's declared contract (traces.Contract) lets it forget:
// live-only texts, and "last N" retention. A message the contract lets the
// Agent drop is not lost when it is missing, and a key whose message the
// Agent may have dropped is forgotten with it: the RFD makes a prompt with
// a forgotten key a new submission.

// liveOnly reports whether submission s's text is one the Agent handles
// locally: echoed live, never retained or replayed.
func (lg *ledger) liveOnly(s int32) bool {
	return lg.h.Contract.IsLiveOnly(lg.in.textName(lg.subs[s].text))
}

// full reports whether retention may have discarded messages of session
// S: the contract keeps each session's last N user messages and S's final
// transcript holds N or more. A shorter transcript shows nothing was
// discarded, so S is judged as if everything were retained.
func (lg *ledger) full(S int32) bool {
	if lg.retainN == 0 {
		return false
	}
	f := lg.fin(S)
	return f != nil && int(f.n) >= lg.retainN
}

// mayLack reports whether the contract lets the final transcript of one of
// sessions lack s's message: the Agent had the prompt there (deliveredIn),
// and its text is live-only or retention may have discarded it.
func (lg *ledger) mayLack(s int32, sessions ...int32) bool {
	for _, S := range sessions {
		if lg.deliveredIn(s, S) && (lg.liveOnly(s) || lg.full(S)) {
			return true
		}
	}
	return false
}

// mustRetain reports whether s's absence from every transcript is a loss.
func (lg *ledger) mustRetain(s int32) bool {
	for j := lg.subs[s].sessions; j != none; j = lg.sessions[j].next {
		if lg.mayLack(s, lg.sessions[j].session) {
			return false
		}
	}
	return true
}

// sessionsOf are the sessions submission s's prompts named, in order.
func (lg *ledger) sessionsOf(s int32) []int32 {
	var out []int32
	for j := lg.subs[s].sessions; j != none; j = lg.sessions[j].next {
		out = append(out, lg.sessions[j].session)
	}
	return out
}

// retainedWhy adds to a lost explanation why the contract does not excuse
// s's absence from S: the excuse needs the Agent to have had the prompt,
// and under "last N" a transcript short of N shows nothing was discarded.
func (lg *ledger) retainedWhy(s, S int32) string {
	f := lg.fin(S)
	switch {
	case (lg.liveOnly(s) || lg.full(S)) && !lg.deliveredIn(s, S):
		return "; no request of it reached the Agent in that session, so the Agent had nothing the contract lets it drop"
	case lg.retainN > 0 && f != nil:
		return fmt.Sprintf("; the Agent keeps the last %s of a session and this transcript holds only %d, so it discarded none", plural(lg.retainN, "user message"), f.n)
	}
	return ""
}

// nameInsertions collects what the responses say an unkeyed (or
// mixed-key) submission s inserted: with no key to tie its requests
// together, the Agent inserts anew for each, so every messageId it
// answered one of them with is an insertion, whether or not a transcript
// still holds it (live-only messages never are). A request inserts at
// most once, so only its first success response counts, and a message
// another submission got first is that one's (a wrong-id). Those no final
// transcript holds are s's extra insertions.
func (lg *ledger) nameInsertions(s int32) {
	x := &lg.subs[s]
	if x.keyed && !x.mixed {
		return
	}
	c := &lg.core.subs[s]
	for ri := x.firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
		r := &lg.reqs[ri]
		ref, found := lg.firstOK(ri)
		if !found {
			continue
		}
		rp := lg.resp(ref)
		mi, ok := lg.msgIndex(msgKey{r.session, rp.msg})
		if rp.msg == noID || !ok || !lg.msgs[mi].owned || lg.ownerSub(lg.msgs[mi].owner) != s || lg.hasIns(c.named, r.session, rp.msg) {
			continue
		}
		a := answerRow{session: r.session, msg: rp.msg, resp: ref}
		lg.thread(&c.named, &c.lastNamed, a)
		if !lg.holds(r.session, rp.msg) {
			lg.thread(&c.extra, &c.lastExtra, a)
			c.nExtra++
		}
	}
}

// firstOK is request ri's first success response.
func (lg *ledger) firstOK(ri int32) (respRef, bool) {
	r := &lg.reqs[ri]
	if r.nResps == 0 {
		return 0, false
	}
	if r.resp.ok {
		return respRef(-1 - ri), true
	}
	for j := r.more; j != none; j = lg.resps[j].next {
		if lg.resps[j].ok {
			return respRef(j), true
		}
	}
	return 0, false
}

// thread appends a to the list of core insertions from head to last.
func (lg *ledger) thread(head, last *int32, a answerRow) {
	a.next = none
	lg.core.ins = append(lg.core.ins, a)
	i := int32(len(lg.core.ins) - 1)
	if *last == none {
		*head = i
	} else {
		lg.core.ins[*last].next = i
	}
	*last = i
}

// hasIns says whether the insertions from head name msg in session.
func (lg *ledger) hasIns(head, session, msg int32) bool {
	for j := head; j != none; j = lg.core.ins[j].next {
		if a := &lg.core.ins[j]; a.session == session && a.msg == msg {
			return true
		}
	}
	return false
}

// namedText tells, for a duplicate, the responses that name insertions no
// transcript holds.
func (lg *ledger) namedText(s int32, ev *evs) string {
	c := &lg.core.subs[s]
	var parts, gone []string
	for j := c.named; j != none; j = lg.core.ins[j].next {
		a := &lg.core.ins[j]
		rp := lg.resp(a.resp)
		ev.add(rp.seq)
		r := &lg.reqs[rp.req]
		parts = append(parts, fmt.Sprintf("%s (to request %s on %s at %s)", short(lg.in.IDName(a.msg)), lg.in.rpcIDName(r.id), lg.in.Link(r.link), ms(rp.t)))
	}
	for j := c.extra; j != none; j = lg.core.ins[j].next {
		gone = append(gone, short(lg.in.IDName(lg.core.ins[j].msg)))
	}
	why := ""
	switch {
	case lg.liveOnly(s):
		why = " (its text is live-only: the Agent never retains it)"
	case lg.full(lg.core.ins[c.extra].session):
		why = fmt.Sprintf(" (the Agent keeps only the last %s of a session)", plural(lg.retainN, "user message"))
	}
	verb := "is"
	if len(gone) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("no key ties its requests together, so each messageId the Agent answered them with is an insertion: %s; %s %s not in the final transcript%s",
		list(parts), list(gone), verb, why)
}

// forgotten reports whether the contract let the Agent forget prev's
// message, and the key with it, before next's request arrived, so that
// next is a new submission and its new messageId is expected. A live-only
// message's key lasts while the session stays active on the link it was
// answered on: it is forgotten once that link has ended, or when the
// session is used on another link. Under "last N" a message is gone when
// S's final transcript lacks it and holds N or more messages. When the
// contract does not excuse next, why tells why not ("" when it has
// nothing to say), citing events in ev.
func (lg *ledger) forgotten(s, S int32, prev, next *answerRow, ev *evs) (ok bool, why string) {
	ri := lg.resp(next.resp).req
	r := &lg.reqs[ri]
	var whys []string
	if lg.liveOnly(s) {
		li := lg.resp(prev.resp).link
		l := &lg.links[li]
		if r.link != li || (l.ended && l.endSeq < r.delSeq) {
			return true, ""
		}
		whys = append(whys, fmt.Sprintf("its text is live-only, but request %s was delivered at %s on %s, the link %s had been answered on, while that link was still up", lg.in.rpcIDName(r.id), ms(r.delT), lg.in.Link(li), short(lg.in.IDName(prev.msg))))
	}
	if lg.retainN > 0 {
		f := lg.fin(S)
		prevID, sID := short(lg.in.IDName(prev.msg)), short(lg.in.IDName(S))
		switch {
		case f == nil:
			whys = append(whys, fmt.Sprintf("session %s has no final transcript to show that %s was discarded", sID, prevID))
		case lg.holds(S, prev.msg):
			ev.add(lg.finSeq(f))
			whys = append(whys, fmt.Sprintf("%s is still in the final transcript of session %s", prevID, sID))
		case int(f.n) < lg.retainN:
			ev.add(lg.finSeq(f))
			whys = append(whys, fmt.Sprintf("the final transcript of session %s holds %s, fewer than the %d the Agent keeps, so it discarded none", sID, plural(int(f.n), "user message"), lg.retainN))
		default:
			// Discarded by the end is not enough: it must have been
			// pushed out before the retry arrived, by N newer retained
			// messages. prev may have been inserted long before it was
			// first named (its process died first): count from the
			// submission's first delivered request in S, the earliest it
			// can have been.
			var from int64
			if mi, ok := lg.msgIndex(msgKey{S, prev.msg}); ok {
				from = lg.msgs[mi].first
			}
			for qi := lg.subs[s].firstReq; qi != none; qi = lg.reqs[qi].nextOfSub {
				if q := &lg.reqs[qi]; q.session == S && q.delivered && q.delSeq < from {
					from = q.delSeq
				}
			}
			if n := lg.namedBetween(S, prev.msg, s, from, r.delSeq); n < lg.retainN {
				whys = append(whys, fmt.Sprintf("only %s newer than %s had been inserted in session %s when request %s arrived at %s, fewer than the %d it keeps, so %s was still kept then",
					plural(n, "user message"), prevID, sID, lg.in.rpcIDName(r.id), ms(r.delT), lg.retainN, prevID))
				break
			}
			return true, ""
		}
	}
	return false, strings.Join(whys, ", and ")
}

// namedBetween counts the retained user messages of session (but except)
// that may have been inserted after seq from and before seq to: those
// first named in that span, and those a request delivered in that span may
// have inserted without the Agent ever naming them (it died first), since
// a black box cannot tell. Submission skip's own attempts insert at most
// its one message, and a live-only text is never retained.
func (lg *ledger) namedBetween(session, except, skip int32, from, to int64) int {
	n := 0
	for _, r := range lg.named {
		if r.session == session && r.seq > from && r.seq < to && !r.liveOnly && r.id != except {
			n++
		}
	}
	for _, h := range lg.subOrder {
		if h == skip || lg.liveOnly(h) {
			continue
		}
		for ri := lg.subs[h].firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
			if r := &lg.reqs[ri]; r.session == session && r.delivered && r.delSeq > from && r.delSeq < to && r.nResps == 0 {
				n++
			}
		}
	}
	return n
}
