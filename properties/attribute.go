package properties

import (
	"cmp"
	"slices"
)

// Attribution gives each final-transcript message to a submission, by the
// messageId a response named or by text, only where every matching agrees
// (resolve.go matches the messages no response named). What it decides of
// each submission is kept in coreState, by submission handle, after the
// pass.
//
// A fork starts with copies of its parent's history that no submission of
// the fork inserted: attribution must skip them, even when the fork's
// answer was lost.

// coreState is the core's judgement of the run.
type coreState struct {
	subs []subCore // by submission handle
	// attrs are the messages attributed to submissions (subCore.msgs);
	// ins what the responses say unkeyed submissions inserted
	// (subCore.named, subCore.extra).
	attrs []attrRow
	ins   []answerRow
	// groups are the same-text messages no response named, in order of
	// first sight; silent the candidates that inserted after a cancel
	// withdrew every request that could have (withdrawnInserted).
	groups []lgroup
	silent []silentRow
	// byText are the submissions that got a messageId, by session and
	// text (answeredByText); reported the anomalies of one submission
	// told so far, for the rules that tell a kind only once.
	byText   map[textKey][]int32
	reported map[ledgerReportKey]bool
	// unjudged are the submissions the run stopped before judging.
	unjudged []Unjudged
	// respLost and forgotten count Stats.RespLostAfterInsert and
	// Stats.ExpectedForgotten.
	respLost, forgotten int
}

// subCore is what the core decides of a submission.
type subCore struct {
	// msgs threads its final-transcript messages (attrRow.next); nMsgs
	// counts them, byText those attributed by text.
	msgs, lastMsg, nMsgs, byText int32
	// named are the messageIds the Agent's responses gave its requests
	// when no key ties them together, extra those of them no final
	// transcript holds (nameInsertions); both thread lg.core.ins.
	named, lastNamed, extra, lastExtra, nExtra int32
	ambiguous, unjudged                        bool
	loss                                       lossJudgement
}

// attrRow is a final-transcript message (fmsgs) attributed to a
// submission.
type attrRow struct {
	session, m int32
	byText     bool
	next       int32
}

// textKey is a text within a session, by handles.
type textKey struct{ session, text int32 }

// ledgerReportKey is an anomaly of one submission, as reported looks it up.
type ledgerReportKey struct {
	kind         string
	session, sub int32
}

// lgroup is the final-transcript messages of one session and text that no
// response named, in transcript order, and the submissions they may
// belong to.
type lgroup struct {
	session, text int32
	msgs          []int32 // fmsgs
	cands         []lcand
}

// lcand is a submission that may own messages of a group: its delivered
// requests in the session that no success response named. Each inserted
// at most one message.
type lcand struct {
	sub  int32
	reqs []int32
}

// silentRow is a candidate (ci) of a group holding at least n messages
// whose every request had been withdrawn by a cancel.
type silentRow struct{ g, ci, n int32 }

// startCore makes the core's table of submissions.
func (lg *ledger) startCore() {
	lg.layFinals()
	cs := &lg.core
	cs.subs = make([]subCore, len(lg.subs))
	for i := range cs.subs {
		cs.subs[i] = subCore{msgs: none, lastMsg: none, named: none, lastNamed: none, extra: none, lastExtra: none}
	}
}

// attach threads a message attributed to submission s.
func (lg *ledger) attach(s int32, a attrRow) {
	c := &lg.core.subs[s]
	a.next = none
	lg.core.attrs = append(lg.core.attrs, a)
	i := int32(len(lg.core.attrs) - 1)
	if c.lastMsg == none {
		c.msgs = i
	} else {
		lg.core.attrs[c.lastMsg].next = i
	}
	c.lastMsg = i
	c.nMsgs++
	if a.byText {
		c.byText++
	}
}

// ownerSub is the submission of the request response ref answers (none).
func (lg *ledger) ownerSub(ref respRef) int32 {
	if r := lg.resp(ref).req; r != none {
		return lg.reqs[r].sub
	}
	return none
}

// attribute gives each final-transcript message to a submission: by the
// messageId the Agent sent in a success response to one of its requests,
// else by text within the session. A group of same-text messages is
// resolved only when every way of matching it to the candidates' requests
// gives each candidate the same verdict.
func (lg *ledger) attribute() {
	var groups map[textKey]int32
	for fi := range lg.fins {
		f := &lg.fins[fi]
		S := lg.trans[f.trans].session
		lg.layBounds(S, f)
		inherited := lg.inherited(S)
		for i := range f.n {
			mi := f.from + i
			m := &lg.fmsgs[mi]
			if m.owned {
				if s := lg.ownerSub(m.owner); s != none {
					if o := lg.misroutedSibling(S, s, m); o != none {
						s = o
					}
					lg.attach(s, attrRow{session: S, m: mi})
					continue
				}
			}
			if i < inherited {
				continue // a copy the fork made of its parent's history
			}
			k := textKey{S, m.text}
			gi, ok := groups[k]
			if !ok {
				if groups == nil {
					groups = map[textKey]int32{}
				}
				gi = int32(len(lg.core.groups))
				groups[k] = gi
				lg.core.groups = append(lg.core.groups, lgroup{session: S, text: m.text})
			}
			lg.core.groups[gi].msgs = append(lg.core.groups[gi].msgs, mi)
		}
	}
	if len(lg.core.groups) == 0 {
		return
	}
	for _, h := range lg.subOrder {
		s := &lg.subs[h]
		for ri := s.firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
			r := &lg.reqs[ri]
			if !r.delivered || lg.namedSuccess(ri) {
				continue
			}
			gi, ok := groups[textKey{r.session, s.text}]
			if !ok {
				continue
			}
			g := &lg.core.groups[gi]
			if n := len(g.cands); n > 0 && g.cands[n-1].sub == h {
				g.cands[n-1].reqs = append(g.cands[n-1].reqs, ri)
			} else {
				g.cands = append(g.cands, lcand{h, []int32{ri}})
			}
		}
	}
	for gi := range lg.core.groups {
		lg.resolve(int32(gi))
	}
}

// layBounds sets, for each message of S's final transcript f, the seq
// before which it was inserted: the first time the Agent named it or any
// message after it in the history (replay lists the history in order, and
// a message exists before it is named). Only a request delivered before
// that can have inserted it. It sets the response that owns it too
// (rightfulOwner).
func (lg *ledger) layBounds(S int32, f *finalRow) {
	b := int64(1<<63 - 1)
	for i := f.n - 1; i >= 0; i-- {
		m := &lg.fmsgs[f.from+i]
		if mi, ok := lg.msgIndex(msgKey{S, m.id}); ok {
			sr := &lg.msgs[mi]
			b = min(b, sr.first)
			m.owner, m.owned = lg.rightfulOwner(S, m, sr.owner, sr.owned)
		}
		m.bound = b
	}
}

// rightfulOwner is the response that names m as its submission's
// insertion: own (the first success response naming it; owned false when
// none did) when its submission typed m's text, else the first response
// of a submission that did. A response whose submission typed another
// text names a message it did not insert (judgeAnswers), and owns
// nothing: the message stays a fork's copy, or is attributed by text to
// the submission that did insert it. The submissions with m's text that
// got an answer in S come from the index (answeredByText): walking every
// submission here made a trace of many wrong-id answers quadratic.
func (lg *ledger) rightfulOwner(S int32, m *fmsg, own respRef, owned bool) (respRef, bool) {
	if !owned {
		return own, false
	}
	if s := lg.ownerSub(own); s == none || lg.subs[s].text == m.text {
		return own, true
	}
	var best respRef
	found := false
	for _, s := range lg.answeredByText()[textKey{S, m.text}] {
		for j := lg.subs[s].answers; j != none; j = lg.answers[j].next {
			a := &lg.answers[j]
			if a.session == S && a.msg == m.id && (!found || lg.resp(a.resp).seq < lg.resp(best).seq) {
				best, found = a.resp, true
			}
		}
	}
	return best, found
}

// answeredByText indexes, once, the submissions that got a messageId by
// session and text, so explaining many alien messages stays linear.
func (lg *ledger) answeredByText() map[textKey][]int32 {
	cs := &lg.core
	if cs.byText == nil {
		cs.byText = map[textKey][]int32{}
		for _, h := range lg.subOrder {
			s := &lg.subs[h]
			if s.answers == none {
				continue
			}
			for j := s.sessions; j != none; j = lg.sessions[j].next {
				k := textKey{lg.sessions[j].session, s.text}
				cs.byText[k] = append(cs.byText[k], h)
			}
		}
	}
	return cs.byText
}

// namedSuccess reports whether the Agent sent request ri a success
// response naming a message; such a request's insertion is attributed by
// that name. A name the final transcript holds under another text than
// ri's prompt is no insertion of ri (judgeAnswers), so ri may still have
// inserted its own.
func (lg *ledger) namedSuccess(ri int32) bool {
	found := false
	lg.eachResp(ri, func(rp *respRow) {
		found = found || rp.ok && rp.msg != noID && !lg.otherText(ri, rp.msg)
	})
	return found
}

// otherText says whether request ri's session's final transcript holds id
// under a text other than ri's prompt.
func (lg *ledger) otherText(ri, id int32) bool {
	r := &lg.reqs[ri]
	f := lg.fin(r.session)
	if f == nil || r.sub == none {
		return false
	}
	i, ok := lg.at(f, id)
	return ok && lg.fmsgs[f.from+i].text != lg.subs[r.sub].text
}

// misroutedSibling is the submission a message m of session S belongs to
// when the response that named it went to the wrong one: s, which that
// response answered, already holds a message of S, and a submission of the
// same text holds none there although a success response to one of its
// requests named a message the transcript holds under another text.
// Answers that cross like that are a hop routing them in the wrong order
// (first in, first out instead of by id): the Agent inserted each once,
// and the fault is the wrong ids the answers carry (judgeAnswers), not a
// duplicate of s and a loss of the other. none when nothing shows that.
//
// Only a submission with m's text answered in S can be the sibling (a
// success response naming a message is an answer), and the index holds
// every such one (with others, which the test turns away): it, not every
// submission for each such message, keeps a trace of many duplicates
// linear.
func (lg *ledger) misroutedSibling(S, s int32, m *fmsg) int32 {
	if !lg.holdsIn(s, S) {
		return none
	}
	for _, o := range lg.answeredByText()[textKey{S, m.text}] {
		if o == s || lg.subs[o].text != m.text || lg.holdsIn(o, S) {
			continue
		}
		for ri := lg.subs[o].firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
			if r := &lg.reqs[ri]; r.session != S || !r.delivered {
				continue
			}
			found := false
			lg.eachResp(ri, func(rp *respRow) {
				found = found || rp.ok && rp.msg != noID && lg.otherText(ri, rp.msg)
			})
			if found {
				return o
			}
		}
	}
	return none
}

// holdsIn reports whether submission s holds a message of session S.
func (lg *ledger) holdsIn(s, S int32) bool {
	for j := lg.core.subs[s].msgs; j != none; j = lg.core.attrs[j].next {
		if lg.core.attrs[j].session == S {
			return true
		}
	}
	return false
}

// inherited is how many leading messages of fork S's final transcript are
// copies of its parent's history: the longest prefix that no response
// named and whose texts are, position by position, those of the parent's
// final transcript (a fork copies the parent's history as it was, in
// order). A copy a response named for a submission of another text is
// still a copy (rightfulOwner): the fork's submission did not insert it.
//
// A fork whose answer was lost is a session no Client ever sent a request
// for: it may be the fork of any parent whose session/fork request reached
// the Agent unanswered, and the longest match among those parents counts.
func (lg *ledger) inherited(S int32) int32 {
	if P, ok := lg.forkOf[S]; ok {
		return lg.copiedPrefix(S, P)
	}
	if valueAt(lg.used, S) {
		return 0
	}
	best := int32(0)
	for _, ri := range lg.forks {
		if r := &lg.reqs[ri]; r.delivered && r.nResps == 0 {
			best = max(best, lg.copiedPrefix(S, r.session))
		}
	}
	return best
}

// copiedPrefix is how many leading messages of S's final transcript are
// copies of P's history, S being P's fork.
func (lg *ledger) copiedPrefix(S, P int32) int32 {
	pf := lg.fin(P)
	if pf == nil {
		return 0
	}
	if lg.retainN > 0 {
		return lg.copiedUnderRetention(S, P)
	}
	t, parent := lg.msgsOf(lg.fin(S)), lg.msgsOf(pf)
	n := 0
	for n < len(t) && n < len(parent) && t[n].text == parent[n].text {
		if t[n].owned { // some submission inserted it: not a copy
			break
		}
		n++
	}
	return int32(n)
}

// copiedUnderRetention is copiedPrefix when retention may have dropped the
// oldest messages of the parent, of the fork or of both, so the copies no
// longer line up: the fork's leading messages that no response named and
// whose text the parent once held (in its final transcript or in a prompt
// a Client sent it) count as copies. The parent's own copies may be gone
// too: every ancestor counts.
func (lg *ledger) copiedUnderRetention(S, P int32) int32 {
	var line []int32
	for a := P; a != noID && !slices.Contains(line, a); a = lg.forkOf[a] {
		line = append(line, a)
	}
	texts := map[int32]bool{}
	for _, a := range line {
		for _, m := range lg.msgsOf(lg.fin(a)) {
			texts[m.text] = true
		}
	}
	for _, h := range lg.subOrder {
		for ri := lg.subs[h].firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
			if r := &lg.reqs[ri]; r.delivered && slices.Contains(line, r.session) {
				texts[lg.subs[h].text] = true
			}
		}
	}
	t, n := lg.msgsOf(lg.fin(S)), 0
	for n < len(t) && texts[t[n].text] && !t[n].owned {
		n++
	}
	return int32(n)
}

// sortAttrs orders submission s's messages as their transcripts do.
func (lg *ledger) sortAttrs(s int32) {
	c := &lg.core.subs[s]
	var list []int32
	for j := c.msgs; j != none; j = lg.core.attrs[j].next {
		list = append(list, j)
	}
	slices.SortStableFunc(list, func(a, b int32) int {
		return cmp.Compare(lg.fmsgs[lg.core.attrs[a].m].seq, lg.fmsgs[lg.core.attrs[b].m].seq)
	})
	for k, j := range list {
		next := none
		if k+1 < len(list) {
			next = list[k+1]
		}
		lg.core.attrs[j].next = next
	}
	c.msgs, c.lastMsg = list[0], list[len(list)-1]
}

// lostAfterInsert says whether request ri got a success response and none
// of its success responses reached the Client.
func (lg *ledger) lostAfterInsert(ri int32) bool {
	sent, delivered := false, false
	lg.eachResp(ri, func(rp *respRow) {
		if rp.ok {
			sent = true
			delivered = delivered || rp.delivered
		}
	})
	return sent && !delivered
}
