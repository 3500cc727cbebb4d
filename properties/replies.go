package properties

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/acp/jsonscan"
	"github.com/acpsim/acpsim/traces"
)

// The Agent owes every delivered request one right answer: requests never
// answered, answered twice, a malformed key not refused, a legal key
// refused, responses to nothing, and the cancel rules' answers (cancel.go).
// What each answer shows is noted as it is read (noteReply, answered); the
// judgements run after the pass.
//
// A legal key refused (RFD "The idempotencyKey parameter"): a key is "an
// opaque, case-sensitive string of 1 to 255 characters", counted in code
// points as JSON Schema's maxLength counts (the trace header's
// keyLengthUnit). An Agent that counts UTF-8 bytes or UTF-16 units refuses
// legal keys of non-ASCII code points with -32602, and its Client, told the
// prompt failed, drops the user's input. The one -32602 the RFD allows a
// legal key is for "a recorded key with a different prompt", so a refusal
// stands when an earlier request in the session carried the key with
// another prompt.

// noteReply notes what request ri's response (ref) shows about replies: a
// second answer; for a prompt, a malformed key not refused, or a legal key
// or an explicit null ("Omitted and null are equivalent and mean no key")
// refused with -32602 as its first answer.
func (lg *ledger) noteReply(ri int32, ref respRef) {
	r, rp := &lg.reqs[ri], lg.resp(ref)
	if r.nResps == 2 {
		lg.twice = append(lg.twice, ri)
	}
	if r.method != wSessionPrompt {
		return
	}
	// A withdrawn prompt's -32800 is a right answer whatever its key.
	if r.keyState == keyBad && (rp.ok || rp.code != acp.CodeInvalidParams) && r.nResps == 1 && !(r.cancel != 0 && !rp.ok && rp.code == acp.CodeRequestCancelled) {
		lg.bad = append(lg.bad, ri)
	}
	legal := r.keyState == keyValid || r.keyState == keyNone
	if legal && !rp.ok && rp.code == acp.CodeInvalidParams && r.nResps == 1 && r.sub != none {
		lg.refused = append(lg.refused, ri)
	}
}

// missingReplies finds delivered requests the Agent never answered on a
// link that lived: never ended, or ended by the simulator's orderly close.
func (lg *ledger) missingReplies() {
	stopped := lg.stoppedWhy() != ""
	for _, h := range lg.linkOrder {
		l := &lg.links[h]
		if l.ended && l.note != wClose {
			continue
		}
		for i := l.firstOpen; i != none; i = lg.reqs[i].nextOpen {
			r := &lg.reqs[i]
			if r.nResps > 0 {
				continue
			}
			if !l.ended && stopped || l.note == wClose && lg.endNote() == traces.EndCap {
				// The run stopped while busy (the links closed because a
				// run was cut at its cap among it): a pending request is
				// no verdict.
				lg.inconclusive = true
				continue
			}
			ev := &evs{}
			ev.add(r.sendSeq, r.delSeq, l.endSeq, lg.endSeq)
			life := "the link never ended and the run ended quiet"
			if l.ended {
				life = fmt.Sprintf("the link lived until the simulator closed it at %s", ms(l.endT))
			}
			owed := ""
			if r.cancel != 0 {
				owed = fmt.Sprintf("; it was pending when %s, so the Agent owed it error %d", lg.cancelText(i, ev), acp.CodeRequestCancelled)
			}
			lg.report(BadReply, r.sub, r.session, ev, "%s delivered at %s was never answered: %s%s.", lg.reqOf(i), ms(r.delT), life, owed)
		}
	}
}

// stoppedWhy says how the run stopped before it was done, "" when it
// ended quiet: then nothing was left to read, and a transcript the
// observer lacks is the Agent's to answer for.
func (lg *ledger) stoppedWhy() string {
	switch lg.endNote() {
	case traces.EndCap:
		return "the run hit its cap"
	case "":
		return "the trace has no end event"
	}
	return ""
}

// judgeReplies reports the wrong answers: withdrawn prompts answered
// otherwise, stray cancels, legal keys refused, requests answered twice,
// malformed keys not refused, responses to nothing.
func (lg *ledger) judgeReplies() {
	if !lg.v1 { // v1's cancel answers a turn, not an insertion
		lg.judgeCancelled()
		lg.judgeSilent()
		lg.judgeStrayCancels()
	}
	lg.judgeRefusedKeys()
	for _, ri := range lg.twice {
		r := &lg.reqs[ri]
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq)
		var rs []string
		lg.eachResp(ri, func(rp *respRow) {
			ev.add(rp.seq)
			rs = append(rs, fmt.Sprintf("%s at %s", lg.answerText(rp), ms(rp.t)))
		})
		lg.report(BadReply, r.sub, r.session, ev, "%s delivered at %s got %d responses: %s.", lg.reqOf(ri), ms(r.delT), r.nResps, list(rs))
	}
	for _, ri := range lg.bad {
		r := &lg.reqs[ri]
		rp := &r.resp
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		lg.report(BadReply, r.sub, r.session, ev, "%s carried the malformed idempotencyKey %s (delivered at %s) and was answered with %s at %s instead of error %d.",
			lg.reqOf(ri), badKey(lg.in.textName(r.keyRaw)), ms(r.delT), lg.answerText(rp), ms(rp.t), acp.CodeInvalidParams)
	}
	for _, ref := range lg.strays {
		rp := lg.resp(ref)
		ev := &evs{}
		ev.add(rp.seq)
		lg.report(BadReply, none, noID, ev, "the Agent sent a response with id %s on %s at %s (%s), but no request with that id had been delivered on that link.",
			lg.in.rpcIDName(rp.id), lg.in.Link(rp.link), ms(rp.t), lg.answerText(rp))
	}
}

// answerText tells what a response answered.
func (lg *ledger) answerText(rp *respRow) string {
	switch {
	case !rp.ok:
		return fmt.Sprintf("error %d", rp.code)
	case rp.msg != noID:
		return "messageId " + short(lg.in.IDName(rp.msg))
	}
	return "a success result"
}

// judgeRefusedKeys reports each legal key refused without a different
// prompt sent earlier with it in its session.
func (lg *ledger) judgeRefusedKeys() {
	for _, ri := range lg.refused {
		r := &lg.reqs[ri]
		rp := &r.resp
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		if r.keyState == keyNone && r.keyRaw == 0 {
			lg.report(BadReply, r.sub, r.session, ev, "%s carried no idempotencyKey (delivered at %s) and was answered with error %d at %s: the field is optional (the RFD: \"The field is optional\"), so a prompt without it is never a malformed one; a hop that turned the omitted key into \"\" would get exactly this answer.",
				lg.reqOf(ri), ms(r.delT), acp.CodeInvalidParams, ms(rp.t))
			continue
		}
		if r.keyState == keyNone {
			lg.report(BadReply, r.sub, r.session, ev, "%s carried \"idempotencyKey\": null (delivered at %s) and was answered with error %d at %s: the RFD makes null the same as an omitted key, no key at all, never a malformed one.",
				lg.reqOf(ri), ms(r.delT), acp.CodeInvalidParams, ms(rp.t))
			continue
		}
		if lg.keyUsedForOtherPrompt(ri) {
			continue
		}
		key := lg.in.IDName(r.key)
		lg.report(BadReply, r.sub, r.session, ev, "%s carried the legal idempotencyKey %q (delivered at %s) and was answered with error %d at %s: a key of 1 to %d code points is legal (the key is %s), and no earlier request in session %s carried it with another prompt, the one case where the RFD lets an Agent refuse a legal key.",
			lg.reqOf(ri), clip(key, 40), ms(r.delT), acp.CodeInvalidParams, ms(rp.t), acp.MaxKeyLength, keyMeasures(key), short(lg.in.IDName(r.session)))
	}
}

// keyUsedForOtherPrompt reports whether a request delivered before ri, in
// its session, carried its key with a prompt other than its own. The
// delivered keyed requests are indexed by session and key once
// (keyedReqs), so that judging many refused keys stays linear.
func (lg *ledger) keyUsedForOtherPrompt(ri int32) bool {
	if lg.keyedReqs == nil {
		lg.keyedReqs = map[msgKey][]int32{}
		for _, h := range lg.subOrder {
			for i := lg.subs[h].firstReq; i != none; i = lg.reqs[i].nextOfSub {
				if o := &lg.reqs[i]; o.delivered && o.keyState == keyValid {
					k := msgKey{o.session, o.key}
					lg.keyedReqs[k] = append(lg.keyedReqs[k], i)
				}
			}
		}
	}
	r := &lg.reqs[ri]
	for _, oi := range lg.keyedReqs[msgKey{r.session, r.key}] {
		if o := &lg.reqs[oi]; lg.subs[o.sub].text != lg.subs[r.sub].text && o.delSeq < r.delSeq {
			return true
		}
	}
	return false
}

// judgeCancelled reports withdrawn prompts answered with success, or first
// answered with an error other than -32800.
func (lg *ledger) judgeCancelled() {
	// A tap, like a proxy, sees a cancel written to the Agent, not read.
	proxy := lg.h.Observed == traces.ObservedAtProxy || lg.h.Observed == traces.ObservedAtTap
	for _, ref := range lg.cancelled {
		rp := lg.resp(ref)
		ri := rp.req
		r := &lg.reqs[ri]
		if proxy {
			if by := lg.readBy(r.cancel - 1); by == 0 || rp.seq < by {
				continue
			}
		}
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		why := lg.cancelText(ri, ev)
		var tail string
		rule := "a prompt cancelled before it was inserted must not be inserted afterwards"
		switch {
		case rp.ok && rp.msg != noID:
			tail = fmt.Sprintf("the Agent inserted it afterwards: it answered messageId %s at %s", short(lg.in.IDName(rp.msg)), ms(rp.t))
		case rp.ok:
			tail = fmt.Sprintf("the Agent answered it with a success result at %s", ms(rp.t))
		default:
			tail = fmt.Sprintf("the Agent answered it with error %d at %s", rp.code, ms(rp.t))
			rule = "a prompt withdrawn before insertion is answered -32800"
		}
		if first := &r.resp; ref != respRef(-1-ri) {
			ev.add(first.seq)
			tail += fmt.Sprintf(" (after %s at %s)", lg.answerText(first), ms(first.t))
		}
		sep := " "
		if n := lg.cancels[r.cancel-1].named; n != none && n != ri {
			sep = ", " // the cancel named another request of the key
		}
		lg.report(BadReply, r.sub, r.session, ev, "%s%swhile %s (delivered at %s) was pending, yet %s instead of error %d: %s.",
			why, sep, lg.reqOf(ri), ms(r.delT), tail, acp.CodeRequestCancelled, rule)
	}
}

// cancelText tells what withdrew request ri and when the Agent read it,
// citing events.
func (lg *ledger) cancelText(ri int32, ev *evs) string {
	r := &lg.reqs[ri]
	cr := &lg.cancels[r.cancel-1]
	ev.add(cr.sendSeq, cr.delSeq)
	switch cr.how {
	case bySessionCancel:
		return fmt.Sprintf("session/cancel for session %s was delivered on %s at %s", short(lg.in.IDName(cr.session)), lg.in.Link(cr.link), ms(cr.delT))
	case bySessionClose:
		return fmt.Sprintf("session/close request %s for session %s was delivered on %s at %s", lg.in.rpcIDName(lg.reqs[cr.req].id), short(lg.in.IDName(cr.session)), lg.in.Link(cr.link), ms(cr.delT))
	}
	if cr.named == ri {
		return fmt.Sprintf("$/cancel_request naming request %s was delivered on %s at %s", lg.in.rpcIDName(r.id), lg.in.Link(cr.link), ms(cr.delT))
	}
	n := &lg.reqs[cr.named]
	ev.add(n.sendSeq, n.delSeq)
	return fmt.Sprintf("$/cancel_request naming %s, still pending with key %s in session %s, was delivered at %s and withdrew every pending request of that key",
		lg.reqOf(cr.named), short(lg.in.IDName(n.key)), short(lg.in.IDName(n.session)), ms(cr.delT))
}

// readBy is, for a trace seen at a proxy or a tap (a real Agent), the
// first event that shows the Agent had read cancel ci: its answer to a
// request written to it after the cancel, or its -32800 to a prompt the
// cancel withdrew. A proxy sees when a cancel was written to the Agent,
// not when the Agent read it, so a response sent before that evidence may
// have been written before the Agent read the cancel: it stands, as a
// response sent before a cancel arrives does in the simulator. 0: no such
// evidence, every later answer stands.
func (lg *ledger) readBy(ci int32) int64 {
	cr := &lg.cancels[ci]
	var first int64
	for i := lg.links[cr.link].firstOpen; i != none; i = lg.reqs[i].nextOpen {
		r := &lg.reqs[i]
		lg.eachResp(i, func(rp *respRow) {
			if rp.seq <= cr.delSeq || first != 0 && rp.seq >= first {
				return
			}
			if r.delSeq > cr.delSeq || r.cancel == ci+1 && !rp.ok && rp.code == acp.CodeRequestCancelled {
				first = rp.seq
			}
		})
	}
	return first
}

// eachResp calls fn with request i's responses, in order.
func (lg *ledger) eachResp(i int32, fn func(*respRow)) {
	r := &lg.reqs[i]
	if r.nResps == 0 {
		return
	}
	fn(&r.resp)
	for j := r.more; j != none; j = lg.resps[j].next {
		fn(&lg.resps[j])
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

// keyMeasures tells a key's length in each unit an Agent might count in.
func keyMeasures(key string) string {
	return fmt.Sprintf("%d code points, %d bytes of UTF-8, %d UTF-16 units",
		utf8.RuneCountInString(key), len(key), len(utf16.Encode([]rune(key))))
}
