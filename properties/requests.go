package properties

import (
	"iter"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/acp/jsonscan"
	"github.com/acpsim/acpsim/traces"
)

// The Client's requests as the Agent receives them: their keys, the
// submission each one retries, and what a delivery says about retries.

// Key states of a prompt request.
const (
	keyNone  = iota // omitted or null
	keyValid        // a string of 1..255 code points
	keyBad          // anything else: the Agent owes -32602
)

type reqRec struct {
	link     *linkState
	id       acp.ID
	method   string
	sub      *subState
	session  string
	sessionH int32 // session's handle (Interner.ID)
	attempt  int32
	keyState int8
	// delivered and cancelAsked (below) sit here, beside the small
	// fields: packed, a record is a tenth smaller.
	delivered   bool
	cancelAsked bool // a $/cancel_request named it while it was pending
	key         string
	keyRaw      string // a malformed key's JSON, or "null" for an explicit no key

	sendSeq, sendT int64
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
	// resps1 holds the first response: most requests get one; resp1 is
	// its record, when it was sent (newResp).
	resps1 [1]*respRec
	resp1  respRec
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

// newReq is the record of request id; v is its message (nil for an entry
// the codec refused).
func (c *checker) newReq(l *linkState, st *Step, id acp.ID, method string, v *msgView, sent bool) *reqRec {
	e := st.Event
	if method == acp.MethodSessionLoad {
		// v1's session/load is v2's session/resume with replay from the
		// start: it activates the session and replays its history.
		method = acp.MethodSessionResume
	}
	r := c.reqSlab.New()
	r.resps = r.resps1[:0]
	r.link, r.id, r.method = l, acp.ID(c.own(string(id))), c.name(method)
	if sent {
		r.sendSeq, r.sendT = e.Seq, e.T
	}
	switch method {
	case acp.MethodSessionPrompt:
		p := v.prompt()
		r.session = c.name(p.session)
		var ki *keyInfo
		key, present, bad := promptKey(p.key)
		if sent && p.key != "" && p.key[0] == '"' {
			// Any string is indexed, a legal key or not: the legal one is
			// read already.
			if k, ok := key, present; ok && v.ids && k == v.dig.Key() {
				ki = c.keys.addByHandle(v.keyH, k)
			} else if ok {
				ki = c.keys.add(k)
			} else if k, ok := jsonscan.StringField(p.key); ok {
				ki = c.keys.add(k)
			}
		}
		switch {
		case bad:
			r.keyState, r.keyRaw = keyBad, c.own(p.key)
		case !present && p.key == "null":
			r.keyRaw = "null" // no key, said out loud
		case present:
			if ki != nil && ki.key == key {
				key = ki.key // the index's copy
			} else {
				key = c.own(key)
			}
			r.keyState, r.key = keyValid, key
			c.keys.sentBy(ki, key, r, sent)
		}
		if sent {
			c.rep.Stats.Prompts++
		}
		if st.Sub >= 0 {
			s := c.sub(st.Sub, e.From)
			if !s.textFromSubmit && s.text == "" {
				if p.hasText {
					s.text = c.own(p.text)
				} else {
					var blocks []acp.ContentBlock
					_ = json.Unmarshal([]byte(p.prompt), &blocks)
					s.text = acp.PromptText(blocks)
				}
			}
			c.addReq(s, r)
		}
	case acp.MethodSessionClose:
		r.session = c.name(v.sessionParam())
	case acp.MethodSessionFork:
		r.session = c.name(v.sessionParam())
		if sent {
			c.forks = append(c.forks, r)
		}
	case acp.MethodSessionResume:
		r.session = c.name(v.sessionParam())
		if l.observer && sent {
			// A new replay of the session starts from scratch.
			delete(l.cand, r.session)
		}
	}
	if r.session != "" {
		// The digest's session is the one read above (prompt,
		// sessionParam): its step's handle, when it has one.
		r.sessionH = c.idOf(v.ids, v.sessH, r.session)
	}
	if r.session != "" && !l.observer {
		if c.sessionUsed == nil {
			c.sessionUsed = map[string]bool{}
		}
		c.sessionUsed[r.session] = true
	}
	return r
}

// reqsOf is the requests delivered on l with id, oldest first.
func (l *linkState) reqsOf(id acp.ID) reqList {
	if n, ok := id.SmallNum(); ok && n < len(l.byNum) && l.byNum[n].one != nil {
		return l.byNum[n]
	}
	return l.byID[id]
}

// fileReq adds a delivered request to its id's list. A small number goes
// to byNum while it stays within a few times the numbers there (a trace
// naming one huge id gets no huge table), unless byID has it already: an
// id's list is in one table or the other, and reqsOf looks in byNum first.
func (l *linkState) fileReq(r *reqRec) {
	if n, ok := r.id.SmallNum(); ok {
		if n < len(l.byNum) && l.byNum[n].one != nil {
			l.byNum[n].add(r)
			return
		}
		if _, there := l.byID[r.id]; !there && n < max(64, 4*l.nums) {
			if l.byNum == nil {
				l.byNum = make([]reqList, 0, 16)
			}
			byIndex(&l.byNum, int32(n)).add(r)
			l.nums++
			return
		}
	}
	if l.byID == nil {
		l.byID = map[acp.ID]reqList{}
	}
	list := l.byID[r.id]
	list.add(r)
	l.byID[r.id] = list
}

// allReqs are the lists of l's delivered requests, an id each, in no order.
func (l *linkState) allReqs() iter.Seq[reqList] {
	return func(yield func(reqList) bool) {
		for _, list := range l.byNum {
			if list.one != nil && !yield(list) {
				return
			}
		}
		for _, list := range l.byID {
			if !yield(list) {
				return
			}
		}
	}
}

func (c *checker) addReq(s *subState, r *reqRec) {
	r.sub = s
	s.reqs = append(s.reqs, r)
	r.attempt = int32(len(s.reqs))
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

func (c *checker) reqDelivered(l *linkState, r *reqRec, e *traces.Event) {
	r.delivered, r.delSeq, r.delT = true, e.Seq, e.T
	r.to = c.name(e.To)
	if r.to == "" {
		r.to = l.agent
	}
	l.fileReq(r)
	if l.open == nil {
		l.open = make([]*reqRec, 0, 8)
	}
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
