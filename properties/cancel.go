package properties

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
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
// that could have inserted it was withdrawn (withdrawnInserted).
//
// "After" is a later Seq: a response sent before the cancel was delivered
// stands, whatever their times. So which pending prompts each cancel
// caught is decided in the pass, as the cancel arrives; the answers the
// cancel rules judge are noted as they are read, and judged after the
// pass (judgeCancelled, judgeSilent, judgeStrayCancels).

// cancelRow is a cancel the Agent read: session/cancel, session/close, or
// $/cancel_request.
type cancelRow struct {
	how     uint8 // bySessionCancel, bySessionClose, byCancelRequest
	id      rpcID // $/cancel_request: the id it names
	session int32 // session/cancel, session/close
	req     int32 // session/close: the request itself
	named   int32 // $/cancel_request: the pending request it named; none
	link    int32 // where it was delivered, at delSeq
	sendSeq int64
	delSeq  int64
	delT    int64
}

// lsRow is what one link shows of one session.
type lsRow struct {
	link, session int32
	// resumes counts session/resume requests delivered and not yet
	// answered; pend threads (reqRow.nextPend) the prompts delivered for
	// the session, for session/cancel and session/close.
	resumes int32
	pend    int32
	// next threads the link's rows (linkRow.ls).
	next int32
	// For rework: the last state the Agent sent for the session here,
	// when it last sent idle, whether a new user message came since, and
	// the first answer from a binding not yet followed by a new turn
	// (hasRetry).
	last                   word
	newSinceIdle, hasRetry bool
	retry                  respRef
	idleSeq, idleT         int64
}

// lsListed is how many sessions of a link are searched in its list before
// the ledger's map finds them: most links serve a session or two, and the
// observer's, which reads every session, gets the map.
const lsListed = 8

// ls is the row of session on link, made at its first sight.
func (lg *ledger) ls(link, session int32) *lsRow {
	l := &lg.links[link]
	if l.lsN > lsListed {
		if i, ok := lg.lsAt[candKey{link, session}]; ok {
			return &lg.lss[i]
		}
	} else {
		for i := l.ls; i != none; i = lg.lss[i].next {
			if lg.lss[i].session == session {
				return &lg.lss[i]
			}
		}
	}
	i := int32(len(lg.lss))
	lg.lss = append(lg.lss, lsRow{link: link, session: session, pend: none, next: l.ls})
	l.ls = i
	l.lsN++
	switch {
	case l.lsN == lsListed+1:
		if lg.lsAt == nil {
			lg.lsAt = map[candKey]int32{}
		}
		for j := l.ls; j != none; j = lg.lss[j].next {
			lg.lsAt[candKey{link, lg.lss[j].session}] = j
		}
	case l.lsN > lsListed+1:
		lg.lsAt[candKey{link, session}] = i
	}
	return &lg.lss[i]
}

// newCancel is the row of a cancel notification (x), or none when it
// cancels nothing.
func (lg *ledger) newCancel(x *fact, sent bool) int32 {
	cr := cancelRow{req: none, named: none, link: x.link}
	switch {
	case x.method == wSessionCancel:
		cr.how, cr.session = bySessionCancel, x.session
	case x.method == wCancelRequest && x.cancels != 0:
		cr.how, cr.id = byCancelRequest, x.cancels
	default:
		return none
	}
	if sent {
		cr.sendSeq = x.seq
	}
	lg.cancels = append(lg.cancels, cr)
	return int32(len(lg.cancels) - 1)
}

// trackPending files a delivered prompt where a cancel finds it: on its
// link and session's list, and on its session and key's list. The lists
// are threaded through the requests, so filing costs no allocation; the
// key lists are made only when a $/cancel_request first needs them
// (keyedPend until then).
func (lg *ledger) trackPending(i int32) {
	r := &lg.reqs[i]
	ls := lg.ls(r.link, r.session)
	r.nextPend, ls.pend = ls.pend, i
	if r.keyState == keyValid {
		if lg.byKey == nil {
			lg.keyedPend = append(lg.keyedPend, i)
			return
		}
		lg.fileByKey(i)
	}
}

func (lg *ledger) fileByKey(i int32) {
	r := &lg.reqs[i]
	k := msgKey{r.session, r.key}
	head, ok := lg.byKey[k]
	if !ok {
		head = none
	}
	r.nextKey, lg.byKey[k] = head, i
}

// waiting reports whether a cancel catches request i: not answered, not
// withdrawn yet, and not a retry of a prompt already inserted (the RFD: a
// cancel "withdraws a prompt that is not inserted yet"; a retry of an
// inserted one is answered its messageId, cancel or not).
func (lg *ledger) waiting(i int32) bool {
	r := &lg.reqs[i]
	return r.nResps == 0 && r.cancel == 0 && !lg.promptInserted(i)
}

// promptInserted reports whether a success response with a messageId was
// sent, by now, to a request of request i's keyed submission in its
// session: the pass reads events in order, so "by now" is before the
// cancel being delivered.
func (lg *ledger) promptInserted(i int32) bool {
	r := &lg.reqs[i]
	if r.sub == none {
		return false
	}
	s := &lg.subs[r.sub]
	if !s.keyed || r.keyState != keyValid || r.key != s.key {
		return false
	}
	for j := s.answers; j != none; j = lg.answers[j].next {
		if lg.answers[j].session == r.session {
			return true
		}
	}
	return false
}

// cancelDelivered marks the prompts cancel ci catches pending on its
// arrival at the Agent over link (x the delivery). A cancel empties each
// list it walks (what it leaves unmarked is answered already), so each
// prompt is walked at most twice in all. A $/cancel_request naming a
// request answered already is ignored.
func (lg *ledger) cancelDelivered(link int32, ci int32, x *fact) {
	cr := &lg.cancels[ci]
	cr.link, cr.delSeq, cr.delT = link, x.seq, x.t
	switch cr.how {
	case bySessionCancel, bySessionClose:
		// Every request of the session pending now may be answered
		// -32800: answered reads this for stray cancels.
		*byIndex(&lg.sessCancel, cr.session) = x.seq
		ls := lg.ls(link, cr.session)
		for r := ls.pend; r != none; r = lg.reqs[r].nextPend {
			if lg.waiting(r) {
				lg.reqs[r].cancel = ci + 1
			}
		}
		ls.pend = none
	case byCancelRequest:
		l := &lg.links[link]
		l.lastCancelReq = ci + 1
		named := none
		for r := l.reqsOf(cr.id); r != none; r = lg.reqs[r].nextSameID {
			if lg.reqs[r].nResps == 0 {
				named = r // the oldest pending: the one a response would answer
				break
			}
		}
		if named != none {
			lg.reqs[named].cancelAsked = true
			cr.named = named
		}
		if named == none || lg.reqs[named].method != wSessionPrompt || lg.promptInserted(named) {
			return // answered already, not a prompt, or inserted
		}
		n := &lg.reqs[named]
		if n.cancel == 0 {
			n.cancel = ci + 1
		}
		if n.keyState != keyValid {
			return
		}
		// Withdrawing a keyed prompt withdraws every pending request of
		// its key, even when the named one was already cancelled. The
		// lists are made when the first such cancel needs them.
		if lg.byKey == nil {
			lg.byKey = map[msgKey]int32{}
			for _, r := range lg.keyedPend {
				lg.fileByKey(r)
			}
			lg.keyedPend = nil
		}
		k := msgKey{n.session, n.key}
		head, ok := lg.byKey[k]
		for r := head; ok && r != none; r = lg.reqs[r].nextKey {
			if lg.waiting(r) {
				lg.reqs[r].cancel = ci + 1
			}
		}
		delete(lg.byKey, k)
	}
}

// A stray cancel: a request answered -32800 that nobody cancelled, where
// the frames show the cancel that landed on it instead. -32800 is a cancel
// at the Client's word: a $/cancel_request naming the request (or, for a
// keyed prompt, another pending attempt of its key: cancelDelivered marks
// those), or a session/cancel or session/close of its session read while
// it was pending (on any link: an Agent withdraws a held prompt with every
// attempt waiting on it). The schema also lets an Agent abort a request
// with -32800 "because of resource constraints or shutdown", so a -32800
// with no cancel in sight is no anomaly: an Agent may shed load so. The
// contract acpsim judges by: a stray cancel is reported where (a) a
// $/cancel_request naming another request was read on the same link while
// this one was pending, which is what a hop that renumbers ids and
// forwards the cancel's requestId unmapped does (the schema: requestId is
// "a request that the sender of this notification issued. Receivers match
// it only against requests they received from that sender."), or (b) its
// key was withdrawn earlier in the session and no new cancel came: an
// Agent that keeps a withdrawn key cancelled, where the RFD leaves it
// unused.

// strayRow is a -32800 no cancel explains, with the evidence of the one
// that landed on it, taken when the answer was read: the $/cancel_request
// naming another request read on its link while it was pending, and when
// its key's earlier attempt was withdrawn (0: not).
type strayRow struct {
	resp        respRef
	misdirected int32 // 1 + the cancel's index; 0: none
	withdrawnAt int64
}

// answered notes what a request's response (ref, the nth) says about
// cancels: a first answer -32800 no cancel explains (a stray); a keyed
// prompt a cancel withdrew answered -32800, whose key then stays unused
// (RFD), so a later attempt with it that nobody cancels must not be
// answered -32800 for it; a withdrawn prompt answered with success, or
// first answered with an error other than -32800.
func (lg *ledger) answered(ri int32, ref respRef) {
	r, rp := &lg.reqs[ri], lg.resp(ref)
	if !rp.ok && rp.code == acp.CodeRequestCancelled && r.nResps == 1 && r.cancel == 0 && !r.cancelAsked &&
		(r.session == noID || valueAt(lg.sessCancel, r.session) <= r.delSeq) {
		sr := strayRow{resp: ref}
		if c := lg.links[r.link].lastCancelReq; c != 0 && lg.cancels[c-1].delSeq > r.delSeq {
			sr.misdirected = c
		}
		if r.keyState == keyValid {
			sr.withdrawnAt = lg.withdrawnKeys[msgKey{r.session, r.key}]
		}
		if sr.misdirected != 0 || sr.withdrawnAt != 0 {
			lg.strayCancels = append(lg.strayCancels, sr)
		}
	}
	if r.cancel != 0 && !rp.ok && rp.code == acp.CodeRequestCancelled && r.keyState == keyValid {
		if lg.withdrawnKeys == nil {
			lg.withdrawnKeys = map[msgKey]int64{}
		}
		lg.withdrawnKeys[msgKey{r.session, r.key}] = rp.seq
	}
	if r.method == wSessionPrompt && r.cancel != 0 && (rp.ok || r.nResps == 1 && !cancelAnswered(r.keyState, rp.code)) {
		lg.cancelled = append(lg.cancelled, ref)
	}
}

// cancelAnswered reports whether an error code is a right answer to a
// withdrawn prompt: -32800, or -32602 for a malformed key, owed anyway.
func cancelAnswered(keyState int8, code int32) bool {
	return code == acp.CodeRequestCancelled || keyState == keyBad && code == acp.CodeInvalidParams
}

// valueAt is table[i], or the zero value past its end.
func valueAt[T any](table []T, i int32) T {
	var zero T
	if int(i) >= len(table) || i < 0 {
		return zero
	}
	return table[i]
}

// judgeStrayCancels reports the -32800s nobody asked for, naming the
// $/cancel_request read on the same link while the request was pending,
// if any: the cancel that most likely landed on it.
func (lg *ledger) judgeStrayCancels() {
	for _, sr := range lg.strayCancels {
		rp := lg.resp(sr.resp)
		r := &lg.reqs[rp.req]
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		why := "no $/cancel_request named it"
		if r.sub != none && r.keyState == keyValid {
			why += " or another pending attempt of its key"
		}
		if r.session != noID {
			why += fmt.Sprintf(", and no session/cancel or session/close of session %s was read while it was pending", short(lg.in.IDName(r.session)))
		}
		if at := sr.withdrawnAt; at != 0 {
			ev.add(at)
			why += fmt.Sprintf("; an earlier attempt with its key was withdrawn by a cancel (answered -32800 at event %d), which leaves the key unused, yet this new attempt was answered -32800 with no new cancel", at)
		}
		if sr.misdirected != 0 {
			cr := &lg.cancels[sr.misdirected-1]
			ev.add(cr.sendSeq, cr.delSeq)
			why += fmt.Sprintf("; the $/cancel_request read on %s at %s named request %s", lg.in.Link(r.link), ms(cr.delT), lg.in.rpcIDName(cr.id))
			if cr.named != none && lg.reqs[cr.named].sub != none && lg.reqs[cr.named].sub != r.sub {
				why += fmt.Sprintf(" (%s's)", lg.in.Sub(lg.reqs[cr.named].sub))
			}
			why += ", not this one"
		}
		lg.report(StrayCancel, r.sub, r.session, ev, "%s, delivered at %s, was answered error %d (request cancelled) at %s, but nobody cancelled it: %s. A cancel withdraws only the request it names (the schema: requestId is \"a request that the sender of this notification issued. Receivers match it only against requests they received from that sender.\"), so the user's input was dropped although the user never withdrew it.",
			lg.reqOf(rp.req), ms(r.delT), acp.CodeRequestCancelled, ms(rp.t), why)
	}
}

// How a cancel reached a pending prompt.
const (
	bySessionCancel = iota + 1
	bySessionClose
	byCancelRequest
)
