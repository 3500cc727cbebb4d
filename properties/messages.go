package properties

// What the Agent has named of each session's user messages, and when: a
// message exists before it is named, and its first naming response owns it.

// msgKey is a message by the handles (Interner.ID) of its session and id:
// one id names different messages in different sessions.
type msgKey struct{ session, id int32 }

// idOf is s's handle: h when known (ids, as a digest's step gives it),
// else interned.
func (c *checker) idOf(ids bool, h int32, s string) int32 {
	if ids {
		return h
	}
	return c.in.ID(s)
}

// msgKeyOf is the message id names in session, by their strings: for the
// rarer reads whose records keep no handles. It gives out no handle: an id
// never read names no message (noMsg).
func (c *checker) msgKeyOf(session, id string) msgKey {
	s, ok := c.in.lookup(session)
	m, ok2 := c.in.lookup(id)
	if !ok || !ok2 {
		return noMsg
	}
	return msgKey{s, m}
}

// noMsg is the key of no message.
var noMsg = msgKey{-1, -1}

// updIDs gives u the handles of its session and message id.
func (c *checker) updIDs(u *updView) {
	if !u.ids {
		u.sessionH, u.msgH, u.ids = c.in.ID(u.session), c.in.ID(u.msgID), true
	}
}

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
	c.named[session] = append(c.named[session], namedRec{c.own(id), seq, live})
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
	session   int32 // its session's handle: its id may name others in other sessions
	first     int64 // seq of the first response or user message carrying it
	firstT    int64
	firstUser int64 // seq of the first user message update carrying it, 0 if none
	bound     bool  // a retry was answered with it from the binding
	owner     *respRec
}

// msgOf is the record of a message the Agent named, nil if it never did.
// The pointer is good until the next msgFor.
func (c *checker) msgOf(mk msgKey) *msgRec {
	if i, ok := c.msgIndex(mk); ok {
		return &c.msgs[i]
	}
	return nil
}

// msgIndex finds a message's record: by its id's handle, the first
// session to name that id in msgByID, any other in msgAt (an id two
// sessions share: a fork's copies, an Agent reusing ids).
func (c *checker) msgIndex(mk msgKey) (int32, bool) {
	if mk.id < 0 || int(mk.id) >= len(c.msgByID) || c.msgByID[mk.id] == 0 {
		return 0, false // no session has named the id
	}
	if i := c.msgByID[mk.id] - 1; c.msgs[i].session == mk.session {
		return i, true
	}
	i, ok := c.msgAt[mk]
	return i, ok
}

// msgFor is the record of a message, made if it is new (known false).
func (c *checker) msgFor(mk msgKey) (m *msgRec, known bool) {
	if i, ok := c.msgIndex(mk); ok {
		return &c.msgs[i], true
	}
	i := int32(len(c.msgs))
	if at := byIndex(&c.msgByID, mk.id); *at == 0 {
		*at = i + 1
	} else {
		if c.msgAt == nil {
			c.msgAt = map[msgKey]int32{}
		}
		c.msgAt[mk] = i
	}
	c.msgs = append(c.msgs, msgRec{session: mk.session})
	return &c.msgs[len(c.msgs)-1], false
}

// ownerOf is the first success response that named a message.
func (c *checker) ownerOf(mk msgKey) *respRec {
	if m := c.msgOf(mk); m != nil {
		return m.owner
	}
	return nil
}
