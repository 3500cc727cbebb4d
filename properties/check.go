package properties

import (
	"sort"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Check judges a trace. It reads only frames, submissions, outcomes and link
// and process events: events whose Kind is in traces.Bookkeeping are skipped,
// so stripping them never changes the report. Events are taken in Seq order.
func Check(h traces.Header, events []traces.Event) *Report {
	evs := inSeqOrder(events)
	c := newChecker(h, len(evs))
	for i := range evs {
		c.step(&evs[i])
	}
	// Every key is known now: look for them in what the Agent wrote.
	for _, e := range c.agentSends {
		c.scanLeaks(e)
	}
	return c.finish()
}

// inSeqOrder returns the events sorted by Seq, copying only when they are not.
func inSeqOrder(evs []traces.Event) []traces.Event {
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq < evs[i-1].Seq {
			out := append([]traces.Event(nil), evs...)
			sort.SliceStable(out, func(a, b int) bool { return out[a].Seq < out[b].Seq })
			return out
		}
	}
	return evs
}

const (
	c2a = 0
	a2c = 1
)

// Key states of a prompt request.
const (
	keyNone  = iota // omitted or null
	keyValid        // a string of 1..255 code points
	keyBad          // anything else: the Agent owes -32602
)

type msgKey struct{ session, id string }

// seenRec is what the Agent has said about one message of a session so far.
type namedRec struct {
	id       string
	seq      int64
	liveOnly bool
}

// noteNamed records a user message named for the first time, for the
// retention rules (only under "last N"); text gives its text on demand.
func (c *checker) noteNamed(session, id string, seq int64, text func() string) {
	if c.retainN == 0 {
		return
	}
	if c.named == nil {
		c.named = map[string][]namedRec{}
	}
	live := len(c.h.Contract.LiveOnly) > 0 && c.h.Contract.IsLiveOnly(text())
	c.named[session] = append(c.named[session], namedRec{id, seq, live})
}

// namedBetween counts the retained user messages of session (but except)
// that may have
// been inserted after seq from and before seq to: those first named in that
// span, and those a request delivered in that span may have inserted without
// the Agent ever naming them (it died first), since a black box cannot tell.
func (c *checker) namedBetween(session, except string, skip *subState, from, to int64) int {
	n := 0
	for _, r := range c.named[session] {
		if r.seq > from && r.seq < to && !r.liveOnly && r.id != except {
			n++
		}
	}
	for _, s := range c.order {
		if s == skip || c.h.Contract.IsLiveOnly(s.text) {
			continue // the submission's own attempts insert at most its one message
		}
		for _, r := range s.reqs {
			if r.session == session && r.delivered && r.delSeq > from && r.delSeq < to && len(r.resps) == 0 {
				n++
			}
		}
	}
	return n
}

// msgRec is what the Agent has said about one message of a session so far.
type msgRec struct {
	first     int64 // seq of the first response or user message carrying it
	firstT    int64
	firstUser int64 // seq of the first user message update carrying it, 0 if none
	bound     bool  // a retry was answered with it from the binding
	owner     *respRec
}

// msgOf is the record of a message the Agent named, nil if it never did.
// The pointer is good until the next msgFor.
func (c *checker) msgOf(mk msgKey) *msgRec {
	if i, ok := c.msgAt[mk]; ok {
		return &c.msgs[i]
	}
	return nil
}

// msgFor is the record of a message, made if it is new (known false).
func (c *checker) msgFor(mk msgKey) (m *msgRec, known bool) {
	if i, ok := c.msgAt[mk]; ok {
		return &c.msgs[i], true
	}
	c.msgAt[mk] = int32(len(c.msgs))
	c.msgs = append(c.msgs, msgRec{})
	return &c.msgs[len(c.msgs)-1], false
}

// ownerOf is the first success response that named a message.
func (c *checker) ownerOf(mk msgKey) *respRec {
	if m := c.msgOf(mk); m != nil {
		return m.owner
	}
	return nil
}

type checker struct {
	h       traces.Header
	retainN int // the contract keeps each session's last retainN user messages; 0: all
	rep     Report

	subs  map[string]*subState
	order []*subState

	links     map[string]*linkState
	linkOrder []*linkState

	keys       *keyIndex
	agentSends []*traces.Event // frames the Agent sent, for the leak scan

	// byKey threads (by nextKey) the delivered keyed prompts of each
	// session and key, for $/cancel_request; until the first one is
	// delivered they are only listed in keyedPend, in delivery order.
	byKey     map[sessKey]*reqRec
	keyedPend []*reqRec
	cancelled []*respRec  // responses to withdrawn prompts other than -32800
	silent    []silentRec // withdrawn prompts inserted without a response

	// msgs are the messages the Agent named (response or update), with the
	// first success response that named each (its owner).
	msgAt map[msgKey]int32
	msgs  []msgRec
	// named lists, per session, when each user message was first named
	// (response or update) and whether its text is live-only: how many
	// newer messages could have pushed one out under retention by a time.
	named map[string][]namedRec

	final map[string]*transcript // session → final transcript
	// forkOf maps a session made by session/fork to its parent: a fork
	// starts with copies of the parent's history, which no submission of
	// the fork inserted.
	forkOf map[string]string
	forks  []*reqRec // every session/fork request, for forks whose answer was lost
	// sessionUsed are the sessions some Client (not the observer) named in a
	// request: a session no Client knew of can only be an orphan.
	sessionUsed map[string]bool
	sessOrder   []string // sessions in the order their transcript was first read

	shared []*respRec // success responses naming a message another submission already got
	rework []reworkRec
	stray  []*respRec // responses to no delivered request
	bad    []*reqRec  // malformed key not answered -32602
	twice  []*reqRec  // requests answered twice
	leaks  []*leakAcc
	leakBy map[string]*leakAcc

	endSeq int64
	out    []anomaly
	views  []msgView // scratch for parse
	byText map[groupKey][]*subState
	free   []*frameRec // delivered frames, for reuse
	last   *linkState  // the link of the previous frame event
}

// newChecker sizes its tables for a trace of n events: a submission, a
// message, a key per dozen or so events, as traces run.
func newChecker(h traces.Header, n int) *checker {
	// An unknown or invalid retention promises the most: everything.
	retain, all, err := h.Contract.RetainLast()
	if all || err != nil {
		retain = 0
	}
	hint := n/16 + 8
	return &checker{
		agentSends: make([]*traces.Event, 0, n/3),
		h:          h,
		retainN:    retain,
		subs:       make(map[string]*subState, hint),
		order:      make([]*subState, 0, hint),
		links:      map[string]*linkState{},
		msgAt:      make(map[msgKey]int32, hint),
		msgs:       make([]msgRec, 0, hint),
		final:      map[string]*transcript{},
		leakBy:     map[string]*leakAcc{},
		keys:       newKeyIndex(hint),
	}
}

type subState struct {
	id, client, text string
	textFromSubmit   bool
	submitSeq        int64
	reqs             []*reqRec
	sessions         []string
	tos              []namedCount // per Agent process reached: its prompt requests still unanswered there
	key              string
	keyState         int // of the first attempt
	keyed, mixed     bool
	answers          []answer
	// named are the insertions of an unkeyed submission that success
	// responses name (the first one to each request, messages no other
	// submission owns); extra are those not in the final transcript.
	named, extra []answer

	outcome, outcomeMsg string
	outcomeSeq, outT    int64
	nOutcomes           int

	msgs      []attrMsg
	byText    int
	ambiguous bool
	kinds     []string
}

// namedCount counts per session or per process; a submission touches few of
// either, so a slice beats a map.
type namedCount struct {
	name string
	n    int
}

func bump(list []namedCount, name string, d int) ([]namedCount, int) {
	for i := range list {
		if list[i].name == name {
			list[i].n += d
			return list, list[i].n
		}
	}
	return append(list, namedCount{name, d}), d
}

type answer struct {
	session, id string
	resp        *respRec
}

type attrMsg struct {
	session string
	m       *tmsg
	byText  bool
}

func (s *subState) hasAnswer(session, id string) bool {
	for _, a := range s.answers {
		if a.session == session && a.id == id {
			return true
		}
	}
	return false
}

type reqRec struct {
	link     *linkState
	id       acp.ID
	method   string
	sub      *subState
	session  string
	attempt  int
	keyState int
	key      string
	keyRaw   string

	sendSeq, sendT int64
	delivered      bool
	delSeq, delT   int64
	to             string
	lost           string
	lostSeq        int64
	resps          []*respRec
	// cancel is the first cancel the Agent read while this prompt was
	// pending: from then on it owes error -32800 and must not insert it.
	cancel *cancelRec
	// nextPend and nextKey thread the lists a cancel walks (trackPending).
	nextPend, nextKey *reqRec
}

type respRec struct {
	req       *reqRec
	link      *linkState
	id        acp.ID
	seq, t    int64
	ok        bool
	msgID     string
	code      int
	delivered bool
	delSeq    int64
	lost      string
	lostSeq   int64
	binding   bool
	firstSeen int64 // for a binding answer: when the message was first sent
	firstT    int64
}

// lsState is the rework detector's view of one session on one link.
type lsState struct {
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

type linkState struct {
	name, client, agent string
	observer            bool
	ended               bool
	note                string
	endSeq, endT        int64

	byID       map[acp.ID]reqList // delivered requests by id
	open       []*reqRec          // delivered requests, for the missing-response check
	unanswered int
	nullErrs   int // delivered entries whose id was unreadable: each is owed a null-id error

	q    [2]frameQueue
	cand map[string]*transcript // observer: the transcript being replayed, per session
	sess map[string]*lsState
}

// reqList is the requests delivered with one id on a link, oldest first; a
// link rarely sees an id twice, so the first needs no slice.
type reqList struct {
	one  *reqRec
	more []*reqRec
}

func (x *reqList) add(r *reqRec) {
	if x.one == nil {
		x.one = r
	} else {
		x.more = append(x.more, r)
	}
}

// each calls fn with the requests in delivery order until fn says stop.
func (x reqList) each(fn func(*reqRec) (stop bool)) {
	if x.one == nil || fn(x.one) {
		return
	}
	for _, r := range x.more {
		if fn(r) {
			return
		}
	}
}

func (x reqList) last() *reqRec {
	if n := len(x.more); n > 0 {
		return x.more[n-1]
	}
	return x.one
}

func (l *linkState) ls(session string) *lsState {
	s := l.sess[session]
	if s == nil {
		if l.sess == nil {
			l.sess = map[string]*lsState{}
		}
		s = &lsState{}
		l.sess[session] = s
	}
	return s
}

// frameRec is a sent frame in flight, parsed once at the send so its delivery
// costs no second decode.
type frameRec struct {
	frame   string
	entries []entry
	one     [1]entry // storage for the usual single entry
}

type entry struct {
	req     *reqRec
	resp    *respRec
	cancel  *cancelRec // session/cancel or $/cancel_request
	hasUpd  bool       // upd is an update to the observer
	nullErr bool
	upd     updView
}

// frameQueue holds a link direction's frames in send order; frames on a link
// arrive in that order, so the head is almost always the one delivered.
type frameQueue struct {
	fs   []*frameRec
	head int
}

func (q *frameQueue) push(f *frameRec) { q.fs = append(q.fs, f) }

func (q *frameQueue) take(frame string) *frameRec {
	for i := q.head; i < len(q.fs); i++ {
		if q.fs[i].frame != frame {
			continue
		}
		f := q.fs[i]
		if i == q.head {
			q.fs[i] = nil
			q.head++
		} else {
			copy(q.fs[i:], q.fs[i+1:])
			q.fs[len(q.fs)-1] = nil
			q.fs = q.fs[:len(q.fs)-1]
		}
		if q.head == len(q.fs) {
			q.fs, q.head = q.fs[:0], 0
		}
		return f
	}
	return nil
}

func (q *frameQueue) drain() []*frameRec {
	out := q.fs[q.head:]
	q.fs, q.head = nil, 0
	return out
}

type transcript struct {
	// sealed: messages before this index were followed by another update
	// in the replay; a whole user_message naming one of them again is a
	// second history entry, not a patch.
	sealed  int
	session string
	link    string
	seq, t  int64 // the observer's successful session/resume answer
	msgs    []tmsg
	index   map[string]int
}

type tmsg struct {
	id, text string
	seq      int64    // first delivery of an update carrying it
	bound    int64    // it was inserted before this seq (set by attribute)
	owner    *respRec // the first success response that named it (set by bound)
}

func (t *transcript) apply(u *updView, seq int64) {
	i, ok := t.index[u.msgID]
	if ok && u.kind == acp.UpdateUserMessage && i < t.sealed {
		// The replay came back to a message it had moved past: the
		// history holds this id twice, two messages under one name (an
		// adapter whose runtime appended a repeated id).
		ok = false
	}
	if !ok {
		if t.index == nil {
			t.index = map[string]int{}
		}
		i = len(t.msgs)
		t.index[u.msgID] = i
		t.msgs = append(t.msgs, tmsg{id: u.msgID, seq: seq})
	}
	m := &t.msgs[i]
	switch u.kind {
	case acp.UpdateUserMessage:
		// A whole update without content patches other fields only; with
		// content (even null or []) it replaces what chunks built.
		if u.content != "" {
			m.text = u.text()
		}
	case acp.UpdateUserMessageChunk:
		m.text += u.text()
	}
}

func (t *transcript) has(id string) bool {
	_, ok := t.index[id]
	return ok
}

func (c *checker) step(e *traces.Event) {
	switch e.Kind {
	case traces.KindSubmit:
		s := c.sub(e.Sub, e.Client)
		s.submitSeq, s.text, s.textFromSubmit = e.Seq, e.Text, true
	case traces.KindSend:
		c.send(e)
	case traces.KindDeliver, traces.KindDrop:
		c.arrive(e)
	case traces.KindConnect:
		l := c.link(e.Link)
		l.client, l.agent = e.From, e.To
		l.observer = e.From == traces.Observer
	case traces.KindDisconnect:
		c.disconnect(e)
	case traces.KindOutcome:
		s := c.sub(e.Sub, e.Client)
		s.outcome, s.outcomeMsg, s.outcomeSeq, s.outT = e.Outcome, e.MessageID, e.Seq, e.T
		s.nOutcomes++
	case traces.KindEnd:
		c.rep.End, c.endSeq = e.Note, e.Seq
	}
	// kill, restart and heal show in the link events they cause; bookkeeping
	// kinds (choose, insert, timer) are ignored on purpose.
}

func (c *checker) sub(id, client string) *subState {
	s := c.subs[id]
	if s == nil {
		s = &subState{id: id}
		c.subs[id] = s
		c.order = append(c.order, s)
	}
	if s.client == "" {
		s.client = client
	}
	return s
}

func (c *checker) link(name string) *linkState {
	if l := c.last; l != nil && l.name == name {
		return l
	}
	l := c.links[name]
	if l == nil {
		l = &linkState{name: name, byID: map[acp.ID]reqList{}}
		if i := strings.IndexByte(name, '>'); i >= 0 {
			l.client, l.agent = name[:i], name[i+1:]
			l.observer = l.client == traces.Observer
		}
		c.links[name] = l
		c.linkOrder = append(c.linkOrder, l)
	}
	c.last = l
	return l
}

func dirOf(e *traces.Event, l *linkState) int {
	switch e.Dir {
	case traces.ClientToAgent:
		return c2a
	case traces.AgentToClient:
		return a2c
	}
	if e.From == l.client {
		return c2a
	}
	return a2c
}

func (c *checker) send(e *traces.Event) {
	c.rep.Stats.Frames++
	l := c.link(e.Link)
	d := dirOf(e, l)
	if d == a2c {
		c.agentSends = append(c.agentSends, e)
		if e.Dir != traces.AgentToClient {
			c.keys.addFrameKeys(e.Frame)
		}
	}
	f := c.parse(l, d, e, true)
	l.q[d].push(f)
}

// parse decodes a frame. sent says it is a send event; a delivery of a frame
// never sent (not something the simulator writes) is parsed without the
// send-side bookkeeping so that its contents still count on arrival.
func (c *checker) parse(l *linkState, d int, e *traces.Event, sent bool) *frameRec {
	var f *frameRec
	if n := len(c.free); n > 0 {
		f = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		f = &frameRec{}
	}
	f.frame = e.Frame
	f.entries = f.one[:0]
	c.views = viewFrame(e.Frame, c.views[:0])
	for i := range c.views {
		v := &c.views[i]
		var en entry
		switch v.kind {
		case acp.KindInvalid:
			if d == c2a {
				if v.errID == "" || v.errID == "null" {
					en.nullErr = true
				} else {
					en.req = c.newReq(l, e, v.errID, "", "", sent)
				}
			}
		case acp.KindRequest:
			if d == c2a {
				en.req = c.newReq(l, e, v.id, v.method, v.params, sent)
			}
		case acp.KindNotification:
			if d == c2a {
				en.cancel = readCancel(v.method, v.params)
				if en.cancel != nil && sent {
					en.cancel.sendSeq = e.Seq
				}
			}
			if d == a2c && v.method == acp.MethodSessionUpdate && (sent || l.observer) {
				if u, ok := readUpdate(v.params); ok {
					if sent {
						c.agentUpdate(l, e, &u)
					}
					// Only the observer's updates make the transcript.
					if l.observer {
						en.upd, en.hasUpd = u, true
					}
				}
			}
		case acp.KindResponse:
			if d == a2c {
				en.resp = c.newResp(l, e, v, sent)
			}
		}
		if en.req != nil || en.resp != nil || en.hasUpd || en.cancel != nil || en.nullErr {
			f.entries = append(f.entries, en)
		}
	}
	return f
}

func (c *checker) newReq(l *linkState, e *traces.Event, id acp.ID, method, params string, sent bool) *reqRec {
	r := &reqRec{link: l, id: id, method: method}
	if sent {
		r.sendSeq, r.sendT = e.Seq, e.T
	}
	switch method {
	case acp.MethodSessionPrompt:
		p := readPrompt(params)
		r.session = p.session
		var ki *keyInfo
		if sent && p.key != "" && p.key[0] == '"' {
			if key, ok := stringField(p.key); ok {
				ki = c.keys.add(key)
			}
		}
		switch key, present, bad := promptKey(p.key); {
		case bad:
			r.keyState, r.keyRaw = keyBad, p.key
		case present:
			r.keyState, r.key = keyValid, key
			c.keys.sentBy(ki, key, r, sent)
		}
		if sent {
			c.rep.Stats.Prompts++
		}
		if e.Sub != "" {
			s := c.sub(e.Sub, e.From)
			if !s.textFromSubmit && s.text == "" {
				var blocks []acp.ContentBlock
				_ = json.Unmarshal([]byte(p.prompt), &blocks)
				s.text = acp.PromptText(blocks)
			}
			c.addReq(s, r)
		}
	case acp.MethodSessionClose:
		r.session = readSession(params)
	case acp.MethodSessionFork:
		r.session = readSession(params)
		if sent {
			c.forks = append(c.forks, r)
		}
	case acp.MethodSessionResume:
		r.session = readSession(params)
		if l.observer && sent {
			// A new replay of the session starts from scratch.
			delete(l.cand, r.session)
		}
	}
	if r.session != "" && !l.observer {
		if c.sessionUsed == nil {
			c.sessionUsed = map[string]bool{}
		}
		c.sessionUsed[r.session] = true
	}
	return r
}

func (c *checker) addReq(s *subState, r *reqRec) {
	r.sub = s
	s.reqs = append(s.reqs, r)
	r.attempt = len(s.reqs)
	found := false
	for _, x := range s.sessions {
		found = found || x == r.session
	}
	if !found {
		s.sessions = append(s.sessions, r.session)
	}
	if r.attempt == 1 {
		s.keyState, s.key = r.keyState, r.key
		s.keyed = r.keyState == keyValid
	} else if r.keyState != s.keyState || r.key != s.key {
		s.mixed = true
	}
}

// target picks the delivered request a response with this id answers: the
// oldest one still unanswered, else the newest (which is then answered twice).
func (l *linkState) target(id acp.ID) *reqRec {
	list := l.byID[id]
	var t *reqRec
	list.each(func(r *reqRec) bool {
		if len(r.resps) == 0 {
			t = r
			return true
		}
		return false
	})
	if t == nil {
		t = list.last()
	}
	return t
}

func (c *checker) newResp(l *linkState, e *traces.Event, m *msgView, sent bool) *respRec {
	rp := &respRec{link: l, id: m.id, seq: e.Seq, t: e.T}
	if m.hasErr {
		rp.code = m.errCode
	} else {
		rp.ok = true
	}
	r := l.target(m.id)
	if rp.ok && (r == nil || r.method == acp.MethodSessionPrompt) {
		rp.msgID = readMessageID(m.result)
	}
	if !sent {
		rp.req = r
		return rp
	}
	if r == nil {
		if m.id == "null" && l.nullErrs > 0 && !rp.ok {
			l.nullErrs--
		} else {
			c.stray = append(c.stray, rp)
		}
		return rp
	}
	rp.req = r
	r.resps = append(r.resps, rp)
	if r.method == acp.MethodSessionFork && rp.ok && len(r.resps) == 1 {
		if child := readSession(m.result); child != "" {
			if c.forkOf == nil {
				c.forkOf = map[string]string{}
			}
			if _, seen := c.forkOf[child]; !seen {
				c.forkOf[child] = r.session
			}
		}
	}
	switch len(r.resps) {
	case 1:
		l.unanswered--
		if r.sub != nil && r.method == acp.MethodSessionPrompt {
			r.sub.tos, _ = bump(r.sub.tos, r.to, -1)
		}
		if r.method == acp.MethodSessionResume {
			l.ls(r.session).resumes--
		}
	case 2:
		c.twice = append(c.twice, r)
	}
	if r.method != acp.MethodSessionPrompt {
		return rp
	}
	// A withdrawn prompt's -32800 is a right answer whatever its key.
	if r.keyState == keyBad && (rp.ok || rp.code != acp.CodeInvalidParams) && len(r.resps) == 1 && !(r.cancel != nil && !rp.ok && rp.code == acp.CodeRequestCancelled) {
		c.bad = append(c.bad, r)
	}
	if r.cancel != nil && (rp.ok || len(r.resps) == 1 && !cancelAnswer(r, rp.code)) {
		c.cancelled = append(c.cancelled, rp)
	}
	if rp.ok && rp.msgID != "" {
		c.promptAnswered(l, r, rp)
	}
	return rp
}

func (c *checker) promptAnswered(l *linkState, r *reqRec, rp *respRec) {
	mk := msgKey{r.session, rp.msgID}
	sr, known := c.msgFor(mk)
	if !known {
		sr.first, sr.firstT = rp.seq, rp.t
		c.noteNamed(r.session, rp.msgID, rp.seq, func() string {
			if r.sub != nil {
				return r.sub.text
			}
			return ""
		})
	}
	// Answered from a binding: the message existed before this request
	// arrived. A request held and answered with the insertion it waited for
	// is not a retry served from a binding, whatever order the Agent writes
	// the response and the user message in.
	if known && r.delivered && sr.first < r.delSeq {
		rp.binding, rp.firstSeen, rp.firstT = true, sr.first, sr.firstT
		sr.bound = true
		if ls := l.ls(r.session); ls.retry == nil {
			ls.retry = rp
		}
	}
	own := sr.owner
	owned := own != nil
	if !owned {
		sr.owner = rp
	}
	s := r.sub
	if s == nil {
		return
	}
	if owned && own.req.sub != nil && own.req.sub != s && !s.hasAnswer(r.session, rp.msgID) {
		c.shared = append(c.shared, rp)
	}
	if r.attempt >= 2 && s.keyed && r.keyState == keyValid && r.key == s.key && s.hasAnswer(r.session, rp.msgID) {
		c.rep.Stats.RetriesFromBinding++
	}
	if !s.hasAnswer(r.session, rp.msgID) {
		s.answers = append(s.answers, answer{r.session, rp.msgID, rp})
	}
}

func (c *checker) agentUpdate(l *linkState, e *traces.Event, u *updView) {
	session := u.session
	switch u.kind {
	case acp.UpdateUserMessage, acp.UpdateUserMessageChunk:
		mk := msgKey{session, u.msgID}
		sr, known := c.msgFor(mk)
		if !known {
			sr.first, sr.firstT = e.Seq, e.T
			c.noteNamed(session, u.msgID, e.Seq, u.text)
		}
		ls := l.ls(session)
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

func (c *checker) arrive(e *traces.Event) {
	l := c.link(e.Link)
	d := dirOf(e, l)
	f := l.q[d].take(e.Frame)
	if f == nil {
		f = c.parse(l, d, e, false)
	}
	if e.Kind == traces.KindDrop {
		c.lose(f, "was dropped ("+e.Note+")", e.Seq)
		c.release(f)
		return
	}
	for i := range f.entries {
		en := &f.entries[i]
		switch {
		case en.nullErr:
			l.nullErrs++
		case en.req != nil:
			c.reqDelivered(l, en.req, e)
		case en.cancel != nil:
			c.cancelDelivered(l, en.cancel, e)
		case en.resp != nil:
			rp := en.resp
			rp.delivered, rp.delSeq = true, e.Seq
			if l.observer && rp.ok && rp.req != nil && rp.req.method == acp.MethodSessionResume {
				c.finalize(l, rp.req.session, e)
			}
		case en.hasUpd:
			c.observe(l, &en.upd, e)
		}
	}
	c.release(f)
}

// release keeps a delivered frame's record for the next send: nothing
// points to it once its entries were applied.
func (c *checker) release(f *frameRec) {
	clear(f.one[:])
	f.entries, f.frame = nil, ""
	c.free = append(c.free, f)
}

func (c *checker) reqDelivered(l *linkState, r *reqRec, e *traces.Event) {
	r.delivered, r.delSeq, r.delT = true, e.Seq, e.T
	r.to = e.To
	if r.to == "" {
		r.to = l.agent
	}
	list := l.byID[r.id]
	list.add(r)
	l.byID[r.id] = list
	l.open = append(l.open, r)
	l.unanswered++
	if len(l.open) > 64 && len(l.open) > 4*l.unanswered {
		// Keep the list proportional to what is still unanswered.
		kept := l.open[:0]
		for _, x := range l.open {
			if len(x.resps) == 0 {
				kept = append(kept, x)
			}
		}
		clear(l.open[len(kept):])
		l.open = kept
	}
	switch r.method {
	case acp.MethodSessionResume:
		l.ls(r.session).resumes++
	case acp.MethodSessionClose:
		c.cancelDelivered(l, &cancelRec{how: bySessionClose, session: r.session, req: r, sendSeq: r.sendSeq}, e)
	case acp.MethodSessionPrompt:
		c.trackPending(l, r)
		s := r.sub
		if s == nil {
			break
		}
		if r.keyState == keyValid {
			for _, t := range s.tos {
				if t.name == r.to && t.n > 0 {
					c.rep.Stats.RetriesWhilePending++
					break
				}
			}
			for _, t := range s.tos {
				if t.name != r.to && agentOf(t.name) == agentOf(r.to) {
					c.rep.Stats.RetriesAfterRestart++
					break
				}
			}
		}
		s.tos, _ = bump(s.tos, r.to, 1)
	}
}

// agentOf is the Agent of a process name "a1#2" (incarnation 2 of a1).
func agentOf(proc string) string {
	if i := strings.LastIndexByte(proc, '#'); i >= 0 {
		return proc[:i]
	}
	return proc
}

func (c *checker) lose(f *frameRec, why string, seq int64) {
	for _, en := range f.entries {
		if en.req != nil && en.req.lost == "" && !en.req.delivered {
			en.req.lost, en.req.lostSeq = why, seq
		}
		if en.resp != nil && en.resp.lost == "" && !en.resp.delivered {
			en.resp.lost, en.resp.lostSeq = why, seq
		}
	}
}

func (c *checker) disconnect(e *traces.Event) {
	l := c.link(e.Link)
	l.ended, l.note, l.endSeq, l.endT = true, e.Note, e.Seq, e.T
	for d := range l.q {
		for _, f := range l.q[d].drain() {
			c.lose(f, "was lost when the link ended ("+e.Note+")", e.Seq)
			c.release(f)
		}
	}
}

func (c *checker) observe(l *linkState, u *updView, e *traces.Event) {
	if u.kind != acp.UpdateUserMessage && u.kind != acp.UpdateUserMessageChunk {
		if t := l.cand[u.session]; t != nil {
			t.sealed = len(t.msgs)
		}
		return
	}
	t := l.cand[u.session]
	if t == nil {
		if l.cand == nil {
			l.cand = map[string]*transcript{}
		}
		t = &transcript{session: u.session}
		l.cand[u.session] = t
	}
	t.apply(u, e.Seq)
}

// finalize makes what the observer read on l for session the final transcript;
// a later successful resume of the same session replaces it.
func (c *checker) finalize(l *linkState, session string, e *traces.Event) {
	t := l.cand[session]
	if t == nil {
		if l.cand == nil {
			l.cand = map[string]*transcript{}
		}
		t = &transcript{session: session}
		l.cand[session] = t
	}
	t.link, t.seq, t.t = l.name, e.Seq, e.T
	if c.final[session] == nil {
		c.sessOrder = append(c.sessOrder, session)
	}
	c.final[session] = t
	// Live updates after the resume answer (the observer's probes, work
	// that goes on) are not history: they start a new candidate that only
	// a later resume would make final.
	delete(l.cand, session)
}
