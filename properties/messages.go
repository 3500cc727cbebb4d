package properties

// What the Agent has named of each session's user messages, and when: a
// message exists before it is named, and its first naming response owns it.

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
	mk.session, mk.id = c.name(mk.session), c.own(mk.id) // not the frame's
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
