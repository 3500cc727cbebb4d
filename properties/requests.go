package properties

import (
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

// The Client's requests as the Agent receives them, the Agent's responses
// (which request each answers; what a prompt's messageId says about
// insertions, bindings and ids given to two submissions), and the messages
// they name: a message's first naming success response owns it.

// reqRow is a request a Client sent (or a delivered entry the Agent owes
// an error), with its first response.
type reqRow struct {
	link     int32
	sub      int32 // none: not a prompt of a submission
	id       rpcID
	method   word
	session  int32
	attempt  int32
	keyState int8
	// delivered: it reached the Agent (delSeq, at process to).
	delivered bool
	// cancelAsked: a $/cancel_request named it while it was pending.
	cancelAsked bool
	lost        uint8 // lostDropped or lostLinkEnd, and why (lostNote)
	key         int32
	keyRaw      int32

	sendSeq, sendT int64
	delSeq, delT   int64
	to             word
	lostNote       word
	lostSeq        int64
	// nextOfSub threads its submission's requests, nextSameID those
	// delivered with its id on its link, nextPend and nextKey the lists a
	// cancel walks (trackPending).
	nextOfSub, nextSameID int32
	nextPend, nextKey     int32
	nextOpen              int32 // the next request delivered on its link
	// cancel is 1 + the first cancel the Agent read while this prompt was
	// pending (0: none): from then on it owes -32800 and must not insert.
	cancel int32
	// nResps counts its responses; the first is resp, the others are
	// threaded from more through the ledger's resps (respRow.next).
	nResps     int32
	more, last int32
	resp       respRow
}

// respRow is a response the Agent sent.
type respRow struct {
	req    int32 // the request it answers; none for none
	link   int32
	id     rpcID
	seq, t int64
	msg    int32 // a prompt's messageId (id handle)
	code   int32
	ok     bool
	// delivered: it reached the Client at delSeq.
	delivered bool
	// binding: it named a message first named before its request arrived
	// (at firstSeen).
	binding  bool
	lost     uint8
	lostNote word
	delSeq   int64
	lostSeq  int64
	// firstSeen is, for a binding answer, when the message was first named.
	firstSeen, firstT int64
	next              int32 // the request's next response
}

// respRef names a response: a request's first as -1 - the request's
// index, any other as its index in the ledger's resps.
type respRef int32

func (lg *ledger) resp(ref respRef) *respRow {
	if ref < 0 {
		return &lg.reqs[-1-ref].resp
	}
	return &lg.resps[ref]
}

// message reads one message fact of a frame, sent or (not sent) delivered
// with no send; ok when it became a row.
func (lg *ledger) message(l *linkRow, x *fact, sent bool) (item, bool) {
	if x.entries == 0 {
		return item{}, false
	}
	switch {
	case x.dir == dirC2A && x.msg == acp.KindInvalid:
		if x.id == 0 || x.nullID {
			return item{kind: itemNullErr}, true
		}
		return item{itemReq, lg.newReq(x, sent)}, true
	case x.dir == dirC2A && x.msg == acp.KindRequest:
		return item{itemReq, lg.newReq(x, sent)}, true
	case x.dir == dirC2A && x.msg == acp.KindNotification:
		if ci := lg.newCancel(x, sent); ci != none {
			return item{itemCancel, ci}, true
		}
	case x.dir == dirA2C && x.msg == acp.KindResponse:
		return item{itemResp, int32(lg.newResp(l, x, sent))}, true
	case x.dir == dirA2C && x.msg == acp.KindNotification && x.method == wSessionUpdate && x.update >= 0 && (sent || l.observer):
		if sent {
			lg.agentUpdate(x)
		}
		// Only the observer's updates make the transcript.
		if l.observer {
			lg.upds = append(lg.upds, updRow{session: x.session, message: x.message, text: x.text, kind: x.update, content: x.content})
			return item{itemUpdate, int32(len(lg.upds) - 1)}, true
		}
	}
	return item{}, false
}

// newReq is the row of a request (or of an entry the codec refused, whose
// method is none).
func (lg *ledger) newReq(x *fact, sent bool) int32 {
	method := x.method
	if method == wSessionLoad {
		// v1's session/load is v2's session/resume with replay from the
		// start: it activates the session and replays its history.
		method = wSessionResume
	}
	if x.msg == acp.KindInvalid {
		method = wNone
	}
	r := reqRow{link: x.link, sub: none, id: x.id, method: method, session: x.session,
		nextOfSub: none, nextSameID: none, nextPend: none, nextKey: none, nextOpen: none, more: none, last: none, resp: respRow{req: none, next: none}}
	if sent {
		r.sendSeq, r.sendT = x.seq, x.t
	}
	i := int32(len(lg.reqs))
	if method == wSessionFork && sent {
		lg.forks = append(lg.forks, i)
	}
	if method == wSessionResume && sent && lg.link(x.link).observer {
		// A new replay of the session starts from scratch.
		delete(lg.cand, candKey{x.link, r.session})
	}
	if r.session != noID && !lg.link(x.link).observer {
		*byIndex(&lg.used, r.session) = true
	}
	if method == wSessionPrompt {
		switch x.keyState {
		case keyBad:
			r.keyState, r.keyRaw = keyBad, x.keyRaw
		case keyValid:
			r.keyState, r.key = keyValid, x.key
		case keyNull:
			r.keyState = keyNone // no key, said out loud (keyRaw "null")
			r.keyRaw = lg.in.text("null")
		}
		lg.promptKeySent(x, i, sent)
		if sent {
			lg.stats.Prompts++
		}
		if x.sub >= 0 {
			s := lg.sub(x.sub, x.from)
			if x.textRead && !s.textFromSubmit && s.text == 0 {
				s.text = x.text
			}
			r.sub = x.sub
			lg.reqs = append(lg.reqs, r)
			lg.addReq(s, i)
			return i
		}
	}
	lg.reqs = append(lg.reqs, r)
	return i
}

// addReq threads request i onto submission s.
func (lg *ledger) addReq(s *subRow, i int32) {
	r := &lg.reqs[i]
	if s.lastReq == none {
		s.firstReq = i
	} else {
		lg.reqs[s.lastReq].nextOfSub = i
	}
	s.lastReq = i
	s.attempts++
	r.attempt = s.attempts
	found := false
	last := none
	for j := s.sessions; j != none; j = lg.sessions[j].next {
		found = found || lg.sessions[j].session == r.session
		last = j
	}
	if !found {
		lg.sessions = append(lg.sessions, sessionRow{session: r.session, next: none})
		if last == none {
			s.sessions = int32(len(lg.sessions) - 1)
		} else {
			lg.sessions[last].next = int32(len(lg.sessions) - 1)
		}
	}
	if r.attempt == 1 {
		s.keyState, s.key = r.keyState, r.key
		s.keyed = r.keyState == keyValid
	} else if r.keyState != s.keyState || r.key != s.key {
		s.mixed = true
	}
}

// reqDelivered files request i, delivered on l by x, where a response
// finds it.
func (lg *ledger) reqDelivered(l *linkRow, i int32, x *fact) {
	r := &lg.reqs[i]
	r.delivered, r.delSeq, r.delT = true, x.seq, x.t
	r.to = x.to
	if r.to == wNone {
		r.to = l.agent
	}
	l.file(lg, i)
	if l.lastOpen == none {
		l.firstOpen = i
	} else {
		lg.reqs[l.lastOpen].nextOpen = i
	}
	l.lastOpen = i
	switch r.method {
	case wSessionResume:
		lg.ls(r.link, r.session).resumes++
	case wSessionClose:
		lg.cancels = append(lg.cancels, cancelRow{how: bySessionClose, session: r.session, req: i, named: none, sendSeq: r.sendSeq})
		lg.cancelDelivered(x.link, int32(len(lg.cancels)-1), x)
	case wSessionPrompt:
		lg.trackPending(i)
	}
	if r.method != wSessionPrompt || r.sub == none {
		return
	}
	s := &lg.subs[r.sub]
	if r.keyState == keyValid {
		for j := s.tos; j != none; j = lg.tos[j].next {
			if t := lg.tos[j]; t.proc == r.to && t.n > 0 {
				lg.stats.RetriesWhilePending++
				break
			}
		}
		agent := agentOf(lg.in.wordName(r.to))
		for j := s.tos; j != none; j = lg.tos[j].next {
			if t := lg.tos[j]; t.proc != r.to && agentOf(lg.in.wordName(t.proc)) == agent {
				lg.stats.RetriesAfterRestart++
				break
			}
		}
	}
	lg.bumpTo(s, r.to, 1)
}

// bumpTo adds d to s's prompts unanswered at process proc.
func (lg *ledger) bumpTo(s *subRow, proc word, d int32) {
	last := none
	for j := s.tos; j != none; j = lg.tos[j].next {
		if lg.tos[j].proc == proc {
			lg.tos[j].n += d
			return
		}
		last = j
	}
	lg.tos = append(lg.tos, toRow{proc: proc, n: d, next: none})
	if last == none {
		s.tos = int32(len(lg.tos) - 1)
	} else {
		lg.tos[last].next = int32(len(lg.tos) - 1)
	}
}

// file adds delivered request i to its id's list on l. A small number's
// list goes to byNum while the number stays within a few times the count
// of numbers there (a trace naming one huge id gets no huge table), unless
// byID has it already: an id's list is in one table or the other.
func (l *linkRow) file(lg *ledger, i int32) {
	id := lg.reqs[i].id
	var list *idList
	if n := int(-1 - id); id < 0 && n < len(l.byNum) && l.byNum[n].first != 0 {
		list = &l.byNum[n]
	} else if _, there := l.byID[id]; !there && id < 0 && n < max(64, 4*l.nums) {
		list = byIndex(&l.byNum, int32(n))
		l.nums++
	} else {
		if l.byID == nil {
			l.byID = map[rpcID]idList{}
		}
		x := l.byID[id]
		defer func() { l.byID[id] = x }()
		list = &x
	}
	if list.last == 0 {
		list.first = i + 1
	} else {
		lg.reqs[list.last-1].nextSameID = i
	}
	list.last = i + 1
}

// reqsOf is the first request delivered on l with id (threaded by
// nextSameID, oldest first); none for none.
func (l *linkRow) reqsOf(id rpcID) int32 {
	if n := int(-1 - id); id < 0 && n < len(l.byNum) && l.byNum[n].first != 0 {
		return l.byNum[n].first - 1
	}
	return l.byID[id].first - 1
}

// target is the delivered request a response with id answers on l: the
// oldest one still unanswered, else the newest (then answered twice).
func (lg *ledger) target(l *linkRow, id rpcID) int32 {
	last := none
	for i := l.reqsOf(id); i != none; i = lg.reqs[i].nextSameID {
		if lg.reqs[i].nResps == 0 {
			return i
		}
		last = i
	}
	return last
}

// newResp is the row of a response (x) the Agent sent on l, or, not sent,
// delivered with no send.
func (lg *ledger) newResp(l *linkRow, x *fact, sent bool) respRef {
	ri := lg.target(l, x.id)
	rp := respRow{req: ri, link: x.link, id: x.id, seq: x.seq, t: x.t, next: none}
	if x.hasErr {
		rp.code = x.errCode
	} else {
		rp.ok = true
	}
	if rp.ok && (ri == none || lg.reqs[ri].method == wSessionPrompt) {
		rp.msg = x.message
	}
	var ref respRef
	if sent && ri != none && lg.reqs[ri].nResps == 0 {
		ref = respRef(-1 - ri) // beside its request, where the rules read it
		lg.reqs[ri].resp = rp
	} else {
		ref = respRef(len(lg.resps))
		lg.resps = append(lg.resps, rp)
	}
	if !sent {
		return ref
	}
	if ri == none {
		if x.nullID && l.nullErrs > 0 && !rp.ok {
			l.nullErrs--
		} else {
			lg.strays = append(lg.strays, ref)
		}
		return ref
	}
	r := &lg.reqs[ri]
	if r.nResps > 0 {
		if r.last == none {
			r.more = int32(ref)
		} else {
			lg.resps[r.last].next = int32(ref)
		}
		r.last = int32(ref)
	}
	r.nResps++
	if r.nResps == 1 {
		lg.firstAnswer(r, x)
	}
	lg.answered(ri, ref)
	lg.noteReply(ri, ref)
	if r.method == wSessionPrompt && rp.ok && rp.msg != noID {
		lg.promptAnswered(l, ri, ref)
	}
	return ref
}

// firstAnswer notes what a request's first response (x) says.
func (lg *ledger) firstAnswer(r *reqRow, x *fact) {
	lg.sessionAnswer(r, x)
	switch {
	case r.method == wSessionNew && !x.hasErr && x.session != noID && !lg.link(r.link).observer:
		if created := byIndex(&lg.isCreated, x.session); !*created {
			*created = true
			lg.created = append(lg.created, x.session)
		}
	case r.method == wSessionPrompt && r.sub != none:
		lg.bumpTo(&lg.subs[r.sub], r.to, -1)
	case r.method == wSessionResume:
		lg.ls(r.link, r.session).resumes--
	case r.method == wSessionFork:
		lg.forked(r, x)
	}
	lg.setupAnswered(r, x)
}

// Key states of a prompt request.
const (
	keyNone  = iota // omitted or null
	keyValid        // a string of 1..255 code points
	keyBad          // anything else: the Agent owes -32602
)

// agentOf is the Agent of a process name "a1#2" (incarnation 2 of a1).
func agentOf(proc string) string {
	if i := strings.LastIndexByte(proc, '#'); i >= 0 {
		return proc[:i]
	}
	return proc
}
