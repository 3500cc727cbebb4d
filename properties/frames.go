package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Frames in flight: parsed once when sent and queued per link direction, then
// applied on delivery or marked lost when dropped or the link ends.

const (
	c2a = 0
	a2c = 1
)

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

func (c *checker) send(st *Step) {
	e := st.Event
	c.rep.Stats.Frames++
	l := c.link(st.Link)
	d := dirOf(e, l)
	if d == a2c {
		c.scanLeaks(e)
		if e.Dir != traces.AgentToClient {
			// Scanned first: the keys this frame sends are not sent yet.
			c.keys.addFrameKeys(e.Frame)
		}
	}
	f := c.parse(l, d, st, true)
	l.q[d].push(f)
}

// parse decodes a frame. sent says it is a send event; a delivery of a frame
// never sent (not something the simulator writes) is parsed without the
// send-side bookkeeping so that its contents still count on arrival.
func (c *checker) parse(l *linkState, d int, st *Step, sent bool) *frameRec {
	e := st.Event
	var f *frameRec
	if n := len(c.free); n > 0 {
		f = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		f = &frameRec{}
	}
	f.frame = e.Frame
	f.entries = f.one[:0]
	if v, ok := digestView(e); ok && sent {
		v.ids, v.sessH, v.msgH, v.keyH = true, st.Session, st.Msg, st.Key
		c.views = append(c.views[:0], v)
	} else {
		c.views = viewFrame(e.Frame, c.views[:0])
	}
	if sent {
		c.readVersion(l, d, e, c.views) // before the entries: v1 changes how they read
	}
	for i := range c.views {
		v := &c.views[i]
		var en entry
		switch v.kind {
		case acp.KindInvalid:
			if d == c2a {
				if v.errID == "" || v.errID == "null" {
					en.nullErr = true
				} else {
					en.req = c.newReq(l, st, v.errID, "", nil, sent)
				}
			}
		case acp.KindRequest:
			if d == c2a {
				en.req = c.newReq(l, st, v.id, v.method, v, sent)
			}
		case acp.KindNotification:
			if d == c2a {
				en.cancel = readCancel(v)
				if en.cancel != nil {
					en.cancel.session, en.cancel.id = c.name(en.cancel.session), acp.ID(c.own(string(en.cancel.id)))
					if sent {
						en.cancel.sendSeq = e.Seq
					}
				}
			}
			if d == a2c && v.method == acp.MethodSessionUpdate && (sent || l.observer) {
				if u, ok := v.update(); ok {
					u.session = c.name(u.session)
					c.updIDs(&u)
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

func (c *checker) arrive(st *Step) {
	e := st.Event
	l := c.link(st.Link)
	d := dirOf(e, l)
	f, _ := l.q[d].take(func(f **frameRec) bool { return (*f).frame == e.Frame })
	if f == nil {
		f = c.parse(l, d, st, false)
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

func (c *checker) disconnect(st *Step) {
	e := st.Event
	l := c.link(st.Link)
	l.ended, l.note, l.endSeq, l.endT = true, c.own(e.Note), e.Seq, e.T
	for d := range l.q {
		for _, f := range l.q[d].all() {
			c.lose(f, "was lost when the link ended ("+e.Note+")", e.Seq)
			c.release(f)
		}
		l.q[d].clear()
	}
}
