package properties

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Cancelling (RFD "Cancelling", acp-v2-notes §3.3). A session/prompt response
// is sent when, and only when, the prompt is inserted, so a prompt is "not
// inserted yet" at a moment when the Agent had not sent a response to that
// request by then. A prompt the Client cancelled before it was inserted must
// not be inserted afterwards:
//
//   - session/cancel {sessionId} and session/close {sessionId} delivered on a
//     link cancel that link's pending prompts of the session;
//   - $/cancel_request {requestId} delivered on a link withdraws the pending
//     prompt it names there and, when that prompt is keyed, every pending
//     request carrying the same key in the same session, on any link.
//
// Each withdrawn prompt must be answered -32800 (while its link lives: a
// missing answer is the missing-response bad-reply) and never with success.
// An Agent that answers -32800 and inserts the prompt anyway, silently, shows
// in the final transcript: a message no response named that, however the
// attribution splits its group, belongs to a submission whose every request
// that could have inserted it was withdrawn.
//
// "After" is a later Seq: a response sent before the cancel was delivered
// stands, whatever their times.

// How a cancel reached a pending prompt.
const (
	bySessionCancel = iota + 1
	bySessionClose
	byCancelRequest
)

// cancelRec is a cancel the Agent read.
type cancelRec struct {
	how     int
	session string  // session/cancel, session/close
	id      acp.ID  // $/cancel_request: the id it names
	req     *reqRec // session/close: the request itself
	named   *reqRec // $/cancel_request: the pending request it named
	link    *linkState
	sendSeq int64
	delSeq  int64
	delT    int64
}

// sessKey is a key within a session: the RFD scopes keys to sessions.
type sessKey struct{ session, key string }

// readCancel reads a Client notification that cancels: session/cancel or
// $/cancel_request. Anything else, or one naming no request, is nil.
func readCancel(v *msgView) *cancelRec {
	method := v.method
	switch method {
	case acp.MethodSessionCancel:
		return &cancelRec{how: bySessionCancel, session: v.sessionParam()}
	case acp.MethodCancelRequest:
		if id := readRequestID(v.rawParams()); id != "" {
			return &cancelRec{how: byCancelRequest, id: id}
		}
	}
	return nil
}

// waiting reports whether a cancel catches r: not answered, not withdrawn
// yet, and not a retry of a prompt already inserted (the RFD: a cancel
// "withdraws a prompt that is not inserted yet"; a retry of an inserted
// one is answered its messageId, cancel or not).
func (r *reqRec) waiting() bool { return len(r.resps) == 0 && r.cancel == nil && !r.promptInserted() }

// promptInserted reports whether a success response with a messageId was
// sent, by now, to a request of r's keyed submission in r's session: the
// checker reads events in order, so "by now" is before the cancel being
// delivered.
func (r *reqRec) promptInserted() bool {
	s := r.sub
	if s == nil || !s.keyed || r.keyState != keyValid || r.key != s.key {
		return false
	}
	for _, a := range s.answers {
		if a.session == r.session {
			return true
		}
	}
	return false
}

// trackPending files a delivered prompt where a cancel finds it: on its link
// and session's list, and on its session and key's list. The lists are
// threaded through the requests, so filing costs no allocation.
func (c *checker) trackPending(l *linkState, r *reqRec) {
	ls := l.ls(r.session)
	r.nextPend, ls.pend = ls.pend, r
	if r.keyState == keyValid {
		if c.byKey == nil {
			c.keyedPend = append(c.keyedPend, r)
			return
		}
		c.fileByKey(r)
	}
}

func (c *checker) fileByKey(r *reqRec) {
	k := sessKey{r.session, r.key}
	r.nextKey, c.byKey[k] = c.byKey[k], r
}

// cancelDelivered marks the prompts cr catches pending on its arrival at the
// Agent over l. A cancel empties each list it walks (what it leaves unmarked
// is answered already), so each prompt is walked at most twice in all.
func (c *checker) cancelDelivered(l *linkState, cr *cancelRec, e *traces.Event) {
	cr.link, cr.delSeq, cr.delT = l, e.Seq, e.T
	switch cr.how {
	case bySessionCancel, bySessionClose:
		c.noteSessionCancel(cr.session, e.Seq)
		ls := l.ls(cr.session)
		for r := ls.pend; r != nil; r = r.nextPend {
			if r.waiting() {
				r.cancel = cr
			}
		}
		ls.pend = nil
	case byCancelRequest:
		l.lastCancelReq = cr
		var named *reqRec
		l.reqsOf(cr.id).each(func(r *reqRec) bool {
			if len(r.resps) == 0 {
				named = r // the oldest pending: the one a response would answer
				return true
			}
			return false
		})
		if named != nil {
			named.cancelAsked = true
			cr.named = named
		}
		if named == nil || named.method != acp.MethodSessionPrompt || named.promptInserted() {
			return // answered already (the cancel is ignored), not a prompt, or inserted
		}
		if named.cancel == nil {
			named.cancel = cr
		}
		if named.keyState != keyValid {
			return
		}
		// Withdrawing a keyed prompt withdraws every pending request of
		// its key, even when the named one was already cancelled. The
		// lists are made when the first such cancel needs them.
		if c.byKey == nil {
			c.byKey = map[sessKey]*reqRec{}
			for _, r := range c.keyedPend {
				c.fileByKey(r)
			}
			c.keyedPend = nil
		}
		k := sessKey{named.session, named.key}
		for r := c.byKey[k]; r != nil; r = r.nextKey {
			if r.waiting() {
				r.cancel = cr
			}
		}
		delete(c.byKey, k)
	}
}

// cancelAnswer reports whether an error code is a right answer to a withdrawn
// prompt: -32800, or -32602 for a malformed key, which the Agent owed anyway.
func cancelAnswer(r *reqRec, code int) bool {
	return code == acp.CodeRequestCancelled || r.keyState == keyBad && code == acp.CodeInvalidParams
}

// cancelText tells what withdrew r and when the Agent read it, citing events.
func (c *checker) cancelText(r *reqRec, ev *evs) string {
	cr := r.cancel
	ev.add(cr.sendSeq, cr.delSeq)
	switch cr.how {
	case bySessionCancel:
		return fmt.Sprintf("session/cancel for session %s was delivered on %s at %s", short(cr.session), cr.link.name, ms(cr.delT))
	case bySessionClose:
		return fmt.Sprintf("session/close request %s for session %s was delivered on %s at %s", cr.req.id, short(cr.session), cr.link.name, ms(cr.delT))
	}
	if cr.named == r {
		return fmt.Sprintf("$/cancel_request naming request %s was delivered on %s at %s", r.id, cr.link.name, ms(cr.delT))
	}
	n := cr.named
	ev.add(n.sendSeq, n.delSeq)
	return fmt.Sprintf("$/cancel_request naming %s, still pending with key %s in session %s, was delivered at %s and withdrew every pending request of that key",
		c.reqOf(n), short(n.key), short(n.session), ms(cr.delT))
}

// readBy is, for a trace seen at a proxy or a tap (a real Agent), the first event
// that shows the Agent had read cancel cr: its answer to a request written
// to it after cr, or its -32800 to a prompt cr withdrew. A proxy sees when
// a cancel was written to the Agent, not when the Agent read it, so a
// response sent before that evidence may have been written before the
// Agent read the cancel: it stands, as a response sent before a cancel
// arrives does in the simulator. 0: no such evidence, every later answer
// stands.
func (c *checker) readBy(cr *cancelRec) int64 {
	var first int64
	// The earliest of them: the order the lists are walked in is no matter.
	for reqs := range cr.link.allReqs() {
		reqs.each(func(r *reqRec) bool {
			for _, rp := range r.resps {
				if rp.seq <= cr.delSeq || first != 0 && rp.seq >= first {
					continue
				}
				if r.delSeq > cr.delSeq || r.cancel == cr && !rp.ok && rp.code == acp.CodeRequestCancelled {
					first = rp.seq
				}
			}
			return false
		})
	}
	return first
}

// judgeCancelled reports withdrawn prompts answered with success, or first
// answered with an error other than -32800.
func (c *checker) judgeCancelled() {
	c.judging = byCancelled
	defer func() { c.judging = "" }()
	// A tap, like a proxy, sees a cancel written to the Agent, not read.
	proxy := c.h.Observed == traces.ObservedAtProxy || c.h.Observed == traces.ObservedAtTap
	for _, rp := range c.cancelled {
		r := rp.req
		if proxy {
			if by := c.readBy(r.cancel); by == 0 || rp.seq < by {
				continue
			}
		}
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		why := c.cancelText(r, ev)
		var tail string
		rule := "a prompt cancelled before it was inserted must not be inserted afterwards"
		switch {
		case rp.ok && rp.msgID != "":
			tail = fmt.Sprintf("the Agent inserted it afterwards: it answered messageId %s at %s", short(rp.msgID), ms(rp.t))
		case rp.ok:
			tail = fmt.Sprintf("the Agent answered it with a success result at %s", ms(rp.t))
		default:
			tail = fmt.Sprintf("the Agent answered it with error %d at %s", rp.code, ms(rp.t))
			rule = "a prompt withdrawn before insertion is answered -32800"
		}
		if first := r.resps[0]; first != rp {
			ev.add(first.seq)
			tail += fmt.Sprintf(" (after %s at %s)", answerText(first), ms(first.t))
		}
		sep := " "
		if n := r.cancel.named; n != nil && n != r {
			sep = ", " // the cancel named another request of the key
		}
		c.add(BadReply, r.sub, r.session, ev, "%s%swhile %s (delivered at %s) was pending, yet %s instead of error %d: %s.",
			why, sep, c.reqOf(r), ms(r.delT), tail, acp.CodeRequestCancelled, rule)
	}
}

// silentRec is a candidate of a group whose requests there were all
// withdrawn, yet which holds n of its messages in every complete matching.
type silentRec struct {
	g     *group
	ci, n int
}

// withdrawnInserted notes the candidates of g that hold a message of it
// however the group splits (lo) although every request of theirs that could
// have inserted one was withdrawn before insertion.
//
// Seen at a proxy or a tap, a cancel was written to the Agent, not read: a
// request counts as withdrawn only where the Agent showed it had read the
// cancel (readBy), as judgeCancelled asks. An Agent that died right after
// the cancel was written (a crash after insertion) may never have read it,
// and inserted the prompt before it would have.
func (c *checker) withdrawnInserted(g *group, lo []int) {
	proxy := c.h.Observed == traces.ObservedAtProxy || c.h.Observed == traces.ObservedAtTap
	for ci, x := range g.cands {
		if lo[ci] == 0 {
			continue
		}
		all := true
		for _, r := range x.reqs {
			all = all && r.cancel != nil && (!proxy || c.readBy(r.cancel) != 0)
		}
		if all {
			c.silent = append(c.silent, silentRec{g, ci, lo[ci]})
		}
	}
}

func (c *checker) judgeSilent() {
	for _, sr := range c.silent {
		g, x := sr.g, sr.g.cands[sr.ci]
		ev := &evs{}
		ids, t := c.groupEvidence(g, ev)
		var stories []string
		for _, r := range x.reqs {
			stories = append(stories, fmt.Sprintf("%s, pending when %s", c.story(r, ev), c.cancelText(r, ev)))
		}
		who := fmt.Sprintf("only requests of %s can have inserted %s", x.s.id, pronounObj(len(g.msgs)))
		if len(g.cands) > 1 {
			who = fmt.Sprintf("however %s split among the requests that could have inserted %s, %s holds at least %d", pronoun(len(g.msgs)), pronounObj(len(g.msgs)), x.s.id, sr.n)
		}
		c.add(BadReply, x.s, g.session, ev, "%s was inserted after the Client had cancelled it: the final transcript of session %s (read on %s at %s) holds %s with its text that no response named (%s), and %s; but each of its requests that could have inserted one was withdrawn before insertion: %s; a prompt cancelled before it was inserted must not be inserted afterwards.",
			c.subName(x.s), short(g.session), t.link, ms(t.t), plural(len(g.msgs), "message"), list(ids), who, strings.Join(stories, "; "))
	}
}
