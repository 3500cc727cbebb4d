package properties

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// anomaly is an Anomaly plus every submission it concerns (an unattributable
// group concerns several), for the table's anomalies column.
type anomaly struct {
	Anomaly
	subs []*subState
}

func (c *checker) add(kind string, s *subState, session string, ev *evs, format string, args ...any) {
	a := anomaly{Anomaly: Anomaly{Kind: kind, Session: session, Explanation: fmt.Sprintf(format, args...), Events: ev.sorted()}}
	if s != nil {
		a.Sub, a.subs = s.id, []*subState{s}
	}
	c.out = append(c.out, a)
}

func (c *checker) finish() *Report {
	c.rep.Stats.Submissions = len(c.order)
	c.missingReplies()
	for _, s := range c.order {
		c.nameInsertions(s)
	}
	c.attribute()
	for _, s := range c.order {
		if s.byText > 0 {
			// Tell them in transcript order, whichever way they were attributed.
			sort.SliceStable(s.msgs, func(i, j int) bool { return s.msgs[i].m.seq < s.msgs[j].m.seq })
		}
	}
	for _, s := range c.order {
		c.judgeSub(s)
	}
	c.judgeShared()
	c.judgeRework()
	c.judgeLeaks()
	c.judgeReplies()

	for _, s := range c.order {
		for _, r := range s.reqs {
			if lostAfterInsert(r) {
				c.rep.Stats.RespLostAfterInsert++
			}
		}
		if s.byText > 0 {
			c.rep.Stats.RespLostAfterInsert++
		}
	}

	rank := map[string]int{}
	for i, k := range Kinds {
		rank[k] = i
	}
	sort.SliceStable(c.out, func(i, j int) bool {
		a, b := c.out[i], c.out[j]
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] < rank[b.Kind]
		}
		return firstOf(a.Events) < firstOf(b.Events)
	})
	for _, a := range c.out {
		c.rep.Anomalies = append(c.rep.Anomalies, a.Anomaly)
		for _, s := range a.subs {
			if n := len(s.kinds); n == 0 || s.kinds[n-1] != a.Kind {
				s.kinds = append(s.kinds, a.Kind)
			}
		}
	}
	if len(c.order) > 0 {
		c.rep.Submissions = make([]SubmissionResult, 0, len(c.order))
	}
	for _, s := range c.order {
		c.rep.Submissions = append(c.rep.Submissions, s.result())
	}
	return &c.rep
}

func firstOf(seqs []int64) int64 {
	if len(seqs) == 0 {
		return 1<<63 - 1
	}
	return seqs[0]
}

func lostAfterInsert(r *reqRec) bool {
	sent := false
	for _, rp := range r.resps {
		if rp.ok {
			if rp.delivered {
				return false
			}
			sent = true
		}
	}
	return sent
}

func (s *subState) result() SubmissionResult {
	r := SubmissionResult{
		Sub: s.id, Client: s.client, Text: s.text, Sessions: s.sessions,
		Attempts: len(s.reqs), Outcome: s.outcome, MessageID: s.outcomeMsg,
		ByText: s.byText, Anomalies: s.kinds, Mixed: s.mixed,
	}
	if s.keyed && !s.mixed {
		r.Key = s.key
	}
	for _, q := range s.reqs {
		if q.delivered {
			r.Delivered++
		}
	}
	for _, a := range s.answers {
		r.Answered = append(r.Answered, a.id)
	}
	for _, m := range s.msgs {
		r.Transcript = append(r.Transcript, m.m.id)
	}
	return r
}

// --- attribution ---

type groupKey struct{ session, text string }

// group is the transcript messages of one session and text that no response
// named, in transcript order, and the submissions they may belong to.
type group struct {
	groupKey
	msgs  []*tmsg
	cands []cand
}

// cand is a submission that may own messages of a group: its delivered
// requests in the session that no success response named. Each inserted at
// most one message.
type cand struct {
	s    *subState
	reqs []*reqRec
}

// attribute gives each final-transcript message to a submission: by the
// messageId the Agent sent in a success response to one of its requests, else
// by text within the session. A group of same-text messages is resolved only
// when every way of matching it to the candidates' requests gives each
// candidate the same verdict.
func (c *checker) attribute() {
	groups := map[groupKey]*group{}
	var order []*group
	for _, S := range c.sessOrder {
		t := c.final[S]
		c.bound(t)
		inherited := c.inherited(S)
		for i := range t.msgs {
			m := &t.msgs[i]
			if own := m.owner; own != nil && own.req.sub != nil {
				s := own.req.sub
				s.msgs = append(s.msgs, attrMsg{session: S, m: m})
				continue
			}
			if i < inherited {
				continue // a copy the fork made of its parent's history
			}
			k := groupKey{S, m.text}
			g := groups[k]
			if g == nil {
				g = &group{groupKey: k}
				groups[k] = g
				order = append(order, g)
			}
			g.msgs = append(g.msgs, m)
		}
	}
	if len(order) == 0 {
		return
	}
	for _, s := range c.order {
		for _, r := range s.reqs {
			if !r.delivered || namedSuccess(r) {
				continue
			}
			g := groups[groupKey{r.session, s.text}]
			if g == nil {
				continue
			}
			if n := len(g.cands); n > 0 && g.cands[n-1].s == s {
				g.cands[n-1].reqs = append(g.cands[n-1].reqs, r)
			} else {
				g.cands = append(g.cands, cand{s, []*reqRec{r}})
			}
		}
	}
	for _, g := range order {
		c.resolve(g)
	}
}

// inherited is how many leading messages of fork S's final transcript are
// copies of its parent's history: the longest prefix that no response named
// and whose texts are, position by position, those of the parent's final
// transcript (a fork copies the parent's history as it was, in order).
//
// A fork whose answer was lost is a session no Client ever sent a request
// for: it may be the fork of any parent whose session/fork request reached
// the Agent unanswered, and the longest match among those parents counts.
func (c *checker) inherited(S string) int {
	if P, ok := c.forkOf[S]; ok {
		return c.copiedPrefix(S, P)
	}
	if c.sessionUsed[S] {
		return 0
	}
	best := 0
	for _, r := range c.forks {
		if r.delivered && len(r.resps) == 0 {
			best = max(best, c.copiedPrefix(S, r.session))
		}
	}
	return best
}

func (c *checker) copiedPrefix(S, P string) int {
	t, parent := c.final[S], c.final[P]
	if parent == nil {
		return 0
	}
	if c.retainN > 0 {
		return c.copiedUnderRetention(S, P)
	}
	n := 0
	for n < len(t.msgs) && n < len(parent.msgs) && t.msgs[n].text == parent.msgs[n].text {
		if own := c.ownerOf(msgKey{S, t.msgs[n].id}); own != nil {
			break
		}
		n++
	}
	return n
}

// copiedUnderRetention is copiedPrefix when retention may have dropped the
// oldest messages of the parent, of the fork or of both, so the copies no
// longer line up: the fork's leading messages that no response named and
// whose text the parent once held (in its final transcript or in a prompt a
// Client sent it) count as copies.
func (c *checker) copiedUnderRetention(S, P string) int {
	// The parent's own copies may be gone too: every ancestor counts.
	line := map[string]bool{}
	for a := P; a != "" && !line[a]; a = c.forkOf[a] {
		line[a] = true
	}
	texts := map[string]bool{}
	for a := range line { // only fills a set: the order cannot show
		if t := c.final[a]; t != nil {
			for _, m := range t.msgs {
				texts[m.text] = true
			}
		}
	}
	for _, s := range c.order {
		for _, r := range s.reqs {
			if line[r.session] && r.delivered {
				texts[s.text] = true
			}
		}
	}
	t, n := c.final[S], 0
	for n < len(t.msgs) && texts[t.msgs[n].text] && c.ownerOf(msgKey{S, t.msgs[n].id}) == nil {
		n++
	}
	return n
}

// bound sets, for each message of t, the seq before which it was inserted:
// the first time the Agent named it or any message after it in the history
// (replay lists the history in order, and a message exists before it is
// named). Only a request delivered before that can have inserted it.
func (c *checker) bound(t *transcript) {
	b := int64(math.MaxInt64)
	for i := len(t.msgs) - 1; i >= 0; i-- {
		m := &t.msgs[i]
		if sr := c.msgOf(msgKey{t.session, m.id}); sr != nil {
			b = min(b, sr.first)
			m.owner = sr.owner
		}
		m.bound = b
	}
}

// namedSuccess reports whether the Agent sent r a success response naming a
// message; such a request's insertion is attributed by that name.
func namedSuccess(r *reqRec) bool {
	for _, rp := range r.resps {
		if rp.ok && rp.msgID != "" {
			return true
		}
	}
	return false
}

// Verdict bits of a class.
const (
	vDup = 1 << iota
	vPhantom
	vLost
)

// vclass is the verdict class of submission s holding k transcript messages
// in all: equal classes give equal anomalies. Insertions only responses name
// count towards a duplicate, not towards a phantom or a loss.
func (c *checker) vclass(s *subState, k int) int {
	v := 0
	if k+len(s.extra) >= 2 {
		v |= vDup
	}
	switch {
	case s.outcome == traces.OutcomeFailed && k >= 1:
		v |= vPhantom
	case s.outcome == traces.OutcomeAbandoned && k == 0 && c.mustRetain(s):
		v |= vLost
	}
	return v
}

// shares says whether the messages (bounds ascending) can all be matched to
// the slots, and how many each candidate holds at least and at most over all
// complete matchings (if none exists: at most over all matchings, at least 0).
// It sorts slots by delivery; the k-th message then takes the k-th slot in
// one complete matching.
func shares(slots []slot, bounds []int64, ncand int) (feasible bool, lo, hi []int) {
	sort.SliceStable(slots, func(i, j int) bool { return slots[i].del < slots[j].del })
	n := len(bounds)
	elig := make([]int, n) // requests eligible for the first k+1 messages
	j := 0
	feasible = true
	for k, b := range bounds {
		for j < len(slots) && slots[j].del < b {
			j++
		}
		elig[k] = j
		feasible = feasible && j >= k+1
	}
	lo, hi = make([]int, ncand), make([]int, ncand)
	for ci := range ncand {
		hi[ci] = n
		p, own := 0, 0
		for k := range n {
			for ; p < elig[k]; p++ {
				if slots[p].cand == ci {
					own++
				}
			}
			// At most: a matching that uses only ci's requests. At least:
			// what the other candidates' requests cannot take.
			hi[ci] = min(hi[ci], own+n-(k+1))
			if feasible {
				lo[ci] = max(lo[ci], k+1-(elig[k]-own))
			}
		}
	}
	return feasible, lo, hi
}

// slot is a candidate request that may have inserted a message of a group.
type slot struct {
	del  int64
	cand int
}

// resolve matches a group's messages to the candidates' requests. A message
// may go to a request delivered before its bound; the messages' bounds only
// grow along the transcript, so each one's eligible requests are a prefix of
// the requests in delivery order, and the prefixes are nested. For nested
// prefixes Hall's condition on prefixes decides everything without search:
// how many messages each candidate holds at least and at most over all
// complete matchings, and every count in between is possible.
func (c *checker) resolve(g *group) {
	var slots []slot
	for ci, x := range g.cands {
		for _, r := range x.reqs {
			slots = append(slots, slot{r.delSeq, ci})
		}
	}
	bounds := make([]int64, len(g.msgs))
	for k, m := range g.msgs {
		bounds[k] = m.bound
	}
	feasible, lo, hi := shares(slots, bounds, len(g.cands))
	if feasible {
		c.withdrawnInserted(g, lo)
	}
	var varying []int
	onlyDup := true // the split decides nothing but which one is a duplicate
	for ci, x := range g.cands {
		base := len(x.s.msgs)
		if c.vclass(x.s, base+lo[ci]) != c.vclass(x.s, base+hi[ci]) {
			varying = append(varying, ci)
			if c.vclass(x.s, base+lo[ci])&^vDup != c.vclass(x.s, base+hi[ci])&^vDup {
				onlyDup = false
			}
		}
	}
	if feasible && len(varying) > 0 {
		dup := c.dupCertain(g, slots, bounds)
		if onlyDup && dup {
			c.someDuplicate(g, varying)
		} else {
			c.unattributable(g, feasible, varying, lo, hi, dup)
		}
	} else if !feasible {
		c.unattributable(g, feasible, varying, lo, hi, false)
	}
	for _, ci := range varying {
		g.cands[ci].s.ambiguous = true
	}
	if !feasible {
		// Some message belongs to no candidate, so each may hold none; those
		// not varying keep the verdict of what they already hold.
		return
	}
	// Any complete matching gives every non-varying candidate the same
	// verdict: take the one that gives each message the earliest request.
	for k, m := range g.msgs {
		ci := slots[k].cand
		if slices.Contains(varying, ci) {
			continue
		}
		s := g.cands[ci].s
		s.msgs = append(s.msgs, attrMsg{session: g.session, m: m, byText: true})
		s.byText++
	}
}

// --- per-submission verdicts ---

func (c *checker) judgeSub(s *subState) {
	// One duplicate per submission, whichever evidence shows it: messages
	// in the transcript, responses naming insertions, or both.
	if n := s.inserted(); !s.ambiguous && n >= 2 {
		ev := c.subEvents(s)
		named := ""
		if len(s.extra) > 0 {
			named = "; " + c.namedText(s, ev)
		}
		c.add(Duplicate, s, s.firstSession(), ev, "%s was inserted %s: %s; %s%s; %s.",
			c.subName(s), times(n), c.attempts(s, ev), c.told(s, ev), named, c.transcripts(s, ev))
	}
	// A message the contract lets the Agent drop (live-only, or discarded
	// under "last N") is not lost when it is missing.
	switch s.outcome {
	case traces.OutcomeInserted:
		if S, ok, cands := c.outcomeSession(s); !ok && !c.mayLack(s, cands...) {
			ev := c.subEvents(s)
			c.add(Lost, s, S, ev, "%s is missing from the final transcript although the user was told it was inserted: %s; %s; yet %s%s.",
				c.subName(s), c.attempts(s, ev), c.told(s, ev), c.transcriptOf(s, S, s.outcomeMsg, ev), c.retainedWhy(s, S))
		}
	case traces.OutcomeAbandoned:
		if !s.ambiguous && len(s.msgs) == 0 && c.mustRetain(s) {
			ev := c.subEvents(s)
			why := ""
			if len(s.sessions) == 1 {
				why = c.retainedWhy(s, s.sessions[0])
			}
			c.add(Lost, s, s.firstSession(), ev, "%s is missing from the final transcript and its user was told nothing: %s; %s; %s%s.",
				c.subName(s), c.attempts(s, ev), c.told(s, ev), c.transcripts(s, ev), why)
		}
	}
	if s.outcome == traces.OutcomeFailed && !s.ambiguous && len(s.msgs) >= 1 {
		ev := c.subEvents(s)
		c.add(Phantom, s, s.msgs[0].session, ev, "%s is in the final transcript although the user was told it failed: %s; %s; yet %s.",
			c.subName(s), c.attempts(s, ev), c.told(s, ev), c.transcripts(s, ev))
	}
	if s.nOutcomes == 0 {
		ev := c.subEvents(s)
		tail := "the run ended quiet with it still pending, a liveness failure"
		switch c.rep.End {
		case "cap":
			tail = "inconclusive: the run hit its cap while still busy"
			c.rep.Inconclusive = true
		case "":
			tail = "inconclusive: the trace has no end event"
			c.rep.Inconclusive = true
		}
		c.add(Unresolved, s, s.firstSession(), ev, "%s never got an outcome: %s; %s.", c.subName(s), c.attempts(s, ev), tail)
	}
	if s.keyed && !s.mixed {
		for _, S := range s.sessions {
			n := 0
			for _, a := range s.answers {
				if a.session == S {
					n++
				}
			}
			if n < 2 {
				continue
			}
			var as []answer
			var ids []string
			for _, a := range s.answers {
				if a.session == S {
					as = append(as, a)
					ids = append(ids, a.id)
				}
			}
			// Each new messageId is expected when the contract let the
			// Agent forget the one before it, and the key with it.
			ev := c.subEvents(s)
			var whys []string
			wrong := false
			for i := 1; i < len(as); i++ {
				ok, why := c.forgotten(s, S, as[i-1], as[i], ev)
				if ok {
					c.rep.Stats.ExpectedForgotten++
					continue
				}
				wrong = true
				if why != "" {
					whys = append(whys, fmt.Sprintf("%s after %s: %s", short(as[i].id), short(as[i-1].id), why))
				}
			}
			if !wrong {
				continue
			}
			tail := ""
			if len(whys) > 0 {
				tail = "; the contract does not let the Agent have forgotten the key: " + strings.Join(whys, "; ")
			}
			c.add(WrongID, s, S, ev, "%s got %d different messageIds (%s) for one key in session %s: %s%s.",
				c.subName(s), len(ids), list(shortAll(ids)), short(S), c.attempts(s, ev), tail)
		}
	}
}

// outcomeSession says in which session the inserted(M) outcome should be
// found and whether it is there, and the sessions it may be in.
func (c *checker) outcomeSession(s *subState) (string, bool, []string) {
	cands := s.sessions
	for _, a := range s.answers {
		if a.id == s.outcomeMsg {
			cands = []string{a.session}
			break
		}
	}
	for _, S := range cands {
		t := c.final[S]
		if s.outcomeMsg == "" {
			if len(s.msgs) > 0 {
				return S, true, cands
			}
		} else if t != nil && t.has(s.outcomeMsg) {
			return S, true, cands
		}
	}
	if len(cands) > 0 {
		return cands[0], false, cands
	}
	return "", false, cands
}

func (s *subState) firstSession() string {
	if len(s.sessions) > 0 {
		return s.sessions[0]
	}
	return ""
}

func (c *checker) judgeShared() {
	for _, rp := range c.shared {
		r := rp.req
		own := c.ownerOf(msgKey{r.session, rp.msgID})
		ev := &evs{}
		ev.add(own.seq, rp.seq, r.delSeq, own.req.delSeq)
		c.add(WrongID, r.sub, r.session, ev, "the Agent answered %s with messageId %s at %s, the id it had already given %s at %s (%s): one message cannot be the insertion of two submissions.",
			c.reqOf(r), short(rp.msgID), ms(rp.t), c.subName(own.req.sub), ms(own.t), c.reqOf(own.req))
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

func (c *checker) judgeLeaks() {
	for _, a := range c.leaks {
		ev := &evs{}
		ev.add(a.seqs...)
		where := "a string value"
		if a.asKey {
			where = "an object key"
		}
		more := ""
		if a.count > 1 {
			more = fmt.Sprintf(", and %d Agent-to-Client frames in all", a.count)
		}
		f := a.first
		at := fmt.Sprintf("%s on %s sent at %s", describeFrame(f.Frame), f.Link, ms(f.T))
		if a.key == nil {
			c.add(KeyLeak, nil, "", ev, "the Agent wrote the field name %q as an object key in %s%s.", keyField, at, more)
			continue
		}
		var s *subState
		origin := "a Client sent it"
		if r := a.key.first; r != nil {
			s = r.sub
			ev.add(r.sendSeq)
			origin = fmt.Sprintf("%s sent it as the idempotencyKey of %s at %s", r.link.client, c.reqOf(r), ms(r.sendT))
		}
		c.add(KeyLeak, s, "", ev, "key %q leaked: %s; the Agent wrote it inside %s %q in %s%s.",
			a.key.key, origin, where, clip(a.where, 60), at, more)
	}
}

// describeFrame names what a frame is, for prose; leaks are rare, so it may
// decode again.
func describeFrame(frame string) string {
	line := parseLine(frame)
	var parts []string
	for _, p := range line.Entries {
		m := &p.Msg
		switch {
		case p.Err != nil:
			parts = append(parts, "an invalid message")
		case m.Kind() == acp.KindResponse && m.Error != nil:
			parts = append(parts, fmt.Sprintf("the error response to request %s", m.ID))
		case m.Kind() == acp.KindResponse:
			parts = append(parts, fmt.Sprintf("the response to request %s", m.ID))
		case m.Method == acp.MethodSessionUpdate:
			var up acp.SessionUpdateParams
			_ = acp.DecodeParams(m.Params, &up)
			parts = append(parts, fmt.Sprintf("a session/update %s", up.Update.Kind))
		default:
			parts = append(parts, "a "+m.Method)
		}
	}
	if line.Batch {
		return "a batch of " + list(parts)
	}
	return list(parts)
}

// missingReplies finds delivered requests the Agent never answered on a link
// that lived: never ended, or ended by the simulator's orderly close.
func (c *checker) missingReplies() {
	for _, l := range c.linkOrder {
		if l.ended && l.note != "close" {
			continue
		}
		for _, r := range l.open {
			if len(r.resps) > 0 {
				continue
			}
			if !l.ended && c.rep.End != "quiet" {
				// The run stopped while busy: a pending request is no verdict.
				c.rep.Inconclusive = true
				continue
			}
			ev := &evs{}
			ev.add(r.sendSeq, r.delSeq, l.endSeq, c.endSeq)
			life := "the link never ended and the run ended quiet"
			if l.ended {
				life = fmt.Sprintf("the link lived until the simulator closed it at %s", ms(l.endT))
			}
			owed := ""
			if r.cancel != nil {
				owed = fmt.Sprintf("; it was pending when %s, so the Agent owed it error %d", c.cancelText(r, ev), acp.CodeRequestCancelled)
			}
			c.add(BadReply, r.sub, r.session, ev, "%s delivered at %s was never answered: %s%s.", c.reqOf(r), ms(r.delT), life, owed)
		}
	}
}

func (c *checker) judgeReplies() {
	c.judgeCancelled()
	c.judgeSilent()
	for _, r := range c.twice {
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq)
		var rs []string
		for _, rp := range r.resps {
			ev.add(rp.seq)
			rs = append(rs, fmt.Sprintf("%s at %s", answerText(rp), ms(rp.t)))
		}
		c.add(BadReply, r.sub, r.session, ev, "%s delivered at %s got %d responses: %s.", c.reqOf(r), ms(r.delT), len(r.resps), list(rs))
	}
	for _, r := range c.bad {
		rp := r.resps[0]
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		c.add(BadReply, r.sub, r.session, ev, "%s carried the malformed idempotencyKey %s (delivered at %s) and was answered with %s at %s instead of error %d.",
			c.reqOf(r), badKey(r.keyRaw), ms(r.delT), answerText(rp), ms(rp.t), acp.CodeInvalidParams)
	}
	for _, rp := range c.stray {
		ev := &evs{}
		ev.add(rp.seq)
		c.add(BadReply, nil, "", ev, "the Agent sent a response with id %s on %s at %s (%s), but no request with that id had been delivered on that link.",
			rp.id, rp.link.name, ms(rp.t), answerText(rp))
	}
}

// badKey describes a malformed key value for prose.
func badKey(raw string) string {
	if k, ok := stringField(raw); ok && raw != "null" && len(raw) > 0 && raw[0] == '"' {
		if n := utf8.RuneCountInString(k); n > acp.MaxKeyLength {
			return fmt.Sprintf("(a string of %d code points, over %d)", n, acp.MaxKeyLength)
		}
		return strconv.Quote(k)
	}
	return clip(raw, 40)
}

func answerText(rp *respRec) string {
	switch {
	case !rp.ok:
		return fmt.Sprintf("error %d", rp.code)
	case rp.msgID != "":
		return "messageId " + short(rp.msgID)
	}
	return "a success result"
}

func (c *checker) unattributable(g *group, feasible bool, varying, lo, hi []int, dupSure bool) {
	ev := &evs{}
	var ids []string
	for _, m := range g.msgs {
		ids = append(ids, short(m.id))
		ev.add(m.seq)
	}
	if t := c.final[g.session]; t != nil {
		ev.add(t.seq)
	}
	head := fmt.Sprintf("the final transcript of session %s holds %s with text %q that no response named (%s)",
		short(g.session), plural(len(g.msgs), "message"), clip(g.text, 40), list(ids))
	var cands []string
	for ci, x := range g.cands {
		for _, r := range x.reqs {
			ev.add(r.delSeq)
		}
		held := ""
		if n := len(x.s.msgs); n > 0 {
			held = ", already holding " + plural(n, "message")
		}
		if len(x.s.extra) > 0 {
			var ids []string
			for _, a := range x.s.extra {
				ids = append(ids, short(a.id))
				ev.add(a.resp.seq)
			}
			held += ", already answered " + list(ids) + " (not in the transcript)"
		}
		could := fmt.Sprintf("%d to %d of them", lo[ci], hi[ci])
		if lo[ci] == hi[ci] {
			could = fmt.Sprintf("exactly %d", lo[ci])
		}
		cands = append(cands, fmt.Sprintf("%s (%s%s, %s without a messageId; could hold %s)", x.s.id, outcomeText(x.s), held, plural(len(x.reqs), "delivered request"), could))
	}
	var why string
	switch {
	case len(g.cands) == 0:
		why = "no submission of that session with that text has a delivered request the Agent did not answer with a messageId"
		var others []string
		for _, s := range c.answeredByText()[g.groupKey] {
			for _, a := range s.answers {
				if a.session == g.session {
					others = append(others, fmt.Sprintf("%s (which got %s)", s.id, short(a.id)))
					break
				}
			}
		}
		if len(others) > 0 {
			why += "; it would take a request inserting twice to make it a copy of " + list(others)
		}
	case !feasible:
		why = fmt.Sprintf("the candidates %s cannot hold them all (a request inserts at most one message, and only before the Agent named that message or any later one)", list(cands))
	default:
		what := make([]string, 0, len(varying))
		for _, ci := range varying {
			s := g.cands[ci].s
			v := "a duplicate"
			switch {
			case s.outcome == traces.OutcomeFailed:
				v = "a phantom"
			case s.outcome == traces.OutcomeAbandoned && c.mustRetain(s):
				v = "lost"
			}
			what = append(what, fmt.Sprintf("whether %s is %s", s.id, v))
		}
		why = fmt.Sprintf("%s may belong to %s, and how they split decides %s", pronoun(len(g.msgs)), list(cands), list(what))
		if dupSure {
			why += " (and some submission was inserted twice either way)"
		}
	}
	a := anomaly{Anomaly: Anomaly{Kind: Unattributable, Session: g.session, Events: ev.sorted(),
		Explanation: head + "; " + why + ", so the checker cannot pass it."}}
	for _, ci := range varying {
		a.subs = append(a.subs, g.cands[ci].s)
	}
	if len(a.subs) > 0 {
		a.Sub = a.subs[0].id
	}
	c.out = append(c.out, a)
}

// dupCertain reports whether every complete matching makes some candidate a
// duplicate: none exists in which the candidates already holding a message
// take none and the others at most one. slots are sorted by delivery, so
// keeping each other candidate's earliest request keeps the most options.
func (c *checker) dupCertain(g *group, slots []slot, bounds []int64) bool {
	kept := make([]bool, len(g.cands))
	var one []slot
	for _, sl := range slots {
		if g.cands[sl.cand].s.inserted() == 0 && !kept[sl.cand] {
			kept[sl.cand] = true
			one = append(one, sl)
		}
	}
	ok, _, _ := shares(one, bounds, len(g.cands))
	return !ok
}

// someDuplicate reports a duplicate the frames prove without telling whose:
// every way of matching the group's messages to requests inserts one of the
// candidates twice.
func (c *checker) someDuplicate(g *group, varying []int) {
	ev := &evs{}
	var names, held, stories []string
	var subs []*subState
	for _, ci := range varying {
		x := g.cands[ci]
		subs = append(subs, x.s)
		names = append(names, x.s.id)
		var ids, answered []string
		for _, m := range x.s.msgs {
			ids = append(ids, short(m.m.id))
			ev.add(m.m.seq)
		}
		for _, a := range x.s.extra {
			answered = append(answered, short(a.id))
			ev.add(a.resp.seq)
		}
		h := fmt.Sprintf("%s holds %s", x.s.id, list(ids))
		switch {
		case len(answered) > 0 && len(ids) == 0:
			h = fmt.Sprintf("%s was answered %s (not in the transcript)", x.s.id, list(answered))
		case len(answered) > 0:
			h += fmt.Sprintf(" and was answered %s (not in the transcript)", list(answered))
		}
		held = append(held, h)
		for _, r := range x.reqs {
			stories = append(stories, fmt.Sprintf("%s's %s", x.s.id, c.story(r, ev)))
		}
	}
	ids, t := c.groupEvidence(g, ev)
	a := anomaly{Anomaly: Anomaly{Kind: Duplicate, Session: g.session,
		Explanation: fmt.Sprintf("one of %s (%q) was inserted twice, and the frames cannot tell which: the final transcript of session %s (read on %s at %s) holds %s that no response named (%s); only these requests, which no response named either, can have inserted %s: %s; but %s already, so whichever it was, that submission is in the transcript twice.",
			list(names), clip(g.text, 40), short(g.session), t.link, ms(t.t), plural(len(g.msgs), "message"), list(ids), pronounObj(len(g.msgs)), strings.Join(stories, "; "), list(held)),
		Events: ev.sorted()}, subs: subs}
	c.out = append(c.out, a)
}

func pronounObj(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}

// answeredByText indexes, once, the submissions that got a messageId by
// session and text, so explaining many alien messages stays linear.
func (c *checker) answeredByText() map[groupKey][]*subState {
	if c.byText == nil {
		c.byText = map[groupKey][]*subState{}
		for _, s := range c.order {
			for _, S := range s.sessions {
				if len(s.answers) > 0 {
					k := groupKey{S, s.text}
					c.byText[k] = append(c.byText[k], s)
				}
			}
		}
	}
	return c.byText
}

// --- prose ---

// evs collects the seqs an explanation cites.
type evs struct{ s []int64 }

func (e *evs) add(seqs ...int64) {
	for _, q := range seqs {
		if q > 0 {
			e.s = append(e.s, q)
		}
	}
}

func (e *evs) sorted() []int64 {
	sort.Slice(e.s, func(i, j int) bool { return e.s[i] < e.s[j] })
	out := e.s[:0]
	for i, q := range e.s {
		if i == 0 || q != e.s[i-1] {
			out = append(out, q)
		}
	}
	return out
}

func (c *checker) subEvents(s *subState) *evs {
	ev := &evs{}
	ev.add(s.submitSeq)
	return ev
}

func (c *checker) subName(s *subState) string {
	if s == nil {
		return "a request with no submission"
	}
	key := "no key"
	switch {
	case s.mixed:
		key = "mixed keys"
	case s.keyed:
		key = "key " + short(s.key)
	}
	return fmt.Sprintf("%s (%q, %s)", s.id, clip(s.text, 40), key)
}

func (c *checker) reqOf(r *reqRec) string {
	what := "request"
	if r.method != "" {
		what = r.method + " request"
	}
	if r.sub != nil && r.method == acp.MethodSessionPrompt {
		return fmt.Sprintf("%s's %s %s on %s", r.sub.id, what, r.id, r.link.name)
	}
	return fmt.Sprintf("%s %s on %s", what, r.id, r.link.name)
}

// bareReq names a request without its submission.
func (c *checker) bareReq(r *reqRec) string {
	if r.method == "" {
		return fmt.Sprintf("request %s on %s", r.id, r.link.name)
	}
	return fmt.Sprintf("%s request %s on %s", r.method, r.id, r.link.name)
}

// attempts tells each prompt request of s and what became of it, in order.
func (c *checker) attempts(s *subState, ev *evs) string {
	if len(s.reqs) == 0 {
		return "no prompt request was ever sent"
	}
	var parts []string
	for _, r := range s.reqs {
		parts = append(parts, c.story(r, ev))
	}
	return strings.Join(parts, "; ")
}

func (c *checker) story(r *reqRec, ev *evs) string {
	ev.add(r.sendSeq, r.delSeq, r.lostSeq)
	var b strings.Builder
	fmt.Fprintf(&b, "request %s on %s", r.id, r.link.name)
	if r.sub != nil && r.sub.keyed && r.sub.mixed {
		switch r.keyState {
		case keyValid:
			fmt.Fprintf(&b, " (key %s)", short(r.key))
		case keyBad:
			b.WriteString(" (malformed key)")
		default:
			b.WriteString(" (no key)")
		}
	}
	if !r.delivered {
		if r.sendSeq > 0 {
			fmt.Fprintf(&b, " sent at %s", ms(r.sendT))
		}
		if r.lost != "" {
			b.WriteString(" " + r.lost)
		} else {
			b.WriteString(" never arrived")
		}
		return b.String()
	}
	fmt.Fprintf(&b, " delivered at %s", ms(r.delT))
	if r.to != "" && r.to != r.link.agent {
		fmt.Fprintf(&b, " to %s", r.to)
	}
	if len(r.resps) == 0 {
		b.WriteString(", never answered")
		if l := r.link; l.ended {
			fmt.Fprintf(&b, " before the link ended (%s) at %s", l.note, ms(l.endT))
			ev.add(l.endSeq)
		}
		return b.String()
	}
	for i, rp := range r.resps {
		ev.add(rp.seq, rp.delSeq, rp.lostSeq)
		if i == 0 {
			b.WriteString(", Agent answered ")
		} else {
			b.WriteString(" and again ")
		}
		fmt.Fprintf(&b, "%s at %s", answerText(rp), ms(rp.t))
		if rp.binding {
			b.WriteString(" from the binding")
		}
		switch {
		case rp.delivered:
		case rp.lost != "":
			b.WriteString(" but the response " + rp.lost)
		default:
			b.WriteString(" but the response never arrived")
		}
	}
	return b.String()
}

func outcomeText(s *subState) string {
	switch s.outcome {
	case "":
		return "no outcome"
	case traces.OutcomeInserted:
		return "inserted " + short(s.outcomeMsg)
	}
	return s.outcome
}

// told says what the Client told its user.
func (c *checker) told(s *subState, ev *evs) string {
	ev.add(s.outcomeSeq)
	who := s.client
	if who == "" {
		who = "the Client"
	}
	switch s.outcome {
	case "":
		return who + " never reported an outcome"
	case traces.OutcomeInserted:
		return fmt.Sprintf("%s told the user inserted(%s) at %s", who, short(s.outcomeMsg), ms(s.outT))
	case traces.OutcomeAbandoned:
		return fmt.Sprintf("%s stopped tracking it at %s without telling the user", who, ms(s.outT))
	}
	return fmt.Sprintf("%s told the user %s at %s", who, s.outcome, ms(s.outT))
}

// transcripts tells what the final transcripts of s's sessions hold of it.
func (c *checker) transcripts(s *subState, ev *evs) string {
	sessions := s.sessions
	for _, m := range s.msgs {
		found := false
		for _, S := range sessions {
			found = found || S == m.session
		}
		if !found {
			sessions = append(sessions[:len(sessions):len(sessions)], m.session)
		}
	}
	if len(sessions) == 0 {
		return "it named no session, so no transcript holds it"
	}
	var parts []string
	for _, S := range sessions {
		parts = append(parts, c.transcriptOf(s, S, "", ev))
	}
	return strings.Join(parts, "; ")
}

// transcriptOf tells what session S's final transcript holds of s; want, when
// set, is a messageId the transcript should hold.
func (c *checker) transcriptOf(s *subState, S, want string, ev *evs) string {
	t := c.final[S]
	if t == nil {
		return fmt.Sprintf("session %s has no final transcript (the observer got no successful session/resume for it)", short(S))
	}
	ev.add(t.seq)
	var ids []string
	for _, m := range s.msgs {
		if m.session != S {
			continue
		}
		ev.add(m.m.seq)
		id := short(m.m.id)
		if m.byText {
			id += " (by text: no response named it)"
		}
		ids = append(ids, id)
	}
	head := fmt.Sprintf("the final transcript of session %s (read on %s at %s)", short(S), t.link, ms(t.t))
	switch {
	case want != "":
		if len(ids) == 0 {
			return fmt.Sprintf("%s holds %s, not %s", head, plural(len(t.msgs), "message"), short(want))
		}
		return fmt.Sprintf("%s holds %s of it, not %s", head, list(ids), short(want))
	case len(ids) == 0:
		return fmt.Sprintf("%s holds none of it (%s in all)", head, plural(len(t.msgs), "message"))
	case len(ids) >= 2:
		return fmt.Sprintf("%s holds all of %s", head, list(ids))
	}
	return fmt.Sprintf("%s holds %s", head, ids[0])
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

func list(xs []string) string {
	switch len(xs) {
	case 0:
		return "nothing"
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// short abbreviates long opaque ids (UUIDs) for prose and tables.
func short(id string) string {
	r := []rune(id)
	if len(r) <= 12 {
		return id
	}
	return string(r[:8]) + "…"
}

func shortAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = short(id)
	}
	return out
}

// clip shortens text to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ms formats virtual microseconds as milliseconds, exactly.
func ms(us int64) string {
	return strconv.FormatFloat(float64(us)/1000, 'f', -1, 64) + "ms"
}

// groupEvidence names a group's messages and adds them and the transcript
// that holds them to ev.
func (c *checker) groupEvidence(g *group, ev *evs) (ids []string, t *transcript) {
	for _, m := range g.msgs {
		ids = append(ids, short(m.id))
		ev.add(m.seq)
	}
	t = c.final[g.session]
	ev.add(t.seq)
	return ids, t
}
