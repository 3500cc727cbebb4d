// SSE streams of an HTTPLink: GET /acp opening a stream, the Agent's frames
// routed to the stream they belong to (initialize's in its 200 body), their
// faults (stream-break, delay) and a stream closing.

package netfault

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// OpenStream is GET /acp with Accept: text/event-stream: session "" opens
// the connection-scoped stream, otherwise the stream of that session on the
// live connection. The stream is open at the Agent's end one latency later;
// events written before that are lost. Opening an open stream does nothing;
// with no live connection the GET is refused and OnStreamClosed follows.
func (h *HTTPLink) OpenStream(session string) {
	if h.conn == "" {
		h.loop.At(h.loop.Now()+2*h.latency, func() {
			if h.OnStreamClosed != nil {
				h.OnStreamClosed(session)
			}
		})
		return
	}
	st := h.streams[session]
	if st == nil {
		st = &sseStream{session: session, conn: h.conn}
		h.streams[session] = st
		h.order = append(h.order, st)
	}
	if st.open || st.opening {
		return
	}
	st.opening = true
	h.loop.At(h.loop.Now()+h.latency, func() {
		st.opening = false
		if h.streams[session] != st || h.conn != st.conn {
			h.loop.At(h.loop.Now()+h.latency, func() {
				if h.OnStreamClosed != nil {
					h.OnStreamClosed(session)
				}
			})
			return
		}
		st.open, st.last = true, h.loop.Now()
		h.rec.Record(traces.Event{Kind: traces.KindStream, Link: st.conn, From: h.Client, To: h.Agent, Note: "open " + streamName(session)})
	})
}

// FromAgent sends an Agent frame on the stream it belongs to. A response
// goes where the request it answers says: initialize's in the body of its
// 200, a session-scoped request's (params.sessionId, method not in
// ConnectionStreamMethods) on that session's stream, others on the
// connection stream. Any other frame goes on the stream of session, or of
// its params.sessionId when session is "", or else on the connection stream.
func (h *HTTPLink) FromAgent(frame []byte, session string) { h.FromAgentDigest(frame, session, nil) }

// FromAgentDigest is FromAgent of a frame whose digest (acp.Digest) the
// Agent made: the link reads its route from it (HTTPRouteOf).
func (h *HTTPLink) FromAgentDigest(frame []byte, session string, d *acp.Digest) {
	m := &httpMsg{dir: a2c, bytes: frame, text: frameText(frame), conn: h.conn, link: h, digest: d}
	if h.conn == "" {
		h.record(traces.KindDrop, m, "connection closed")
		return
	}
	m.route = HTTPRouteOf(frame, d)
	msg, psession := m.route, m.route.Session
	key := session
	if msg.Method == "" && msg.ID != "" { // a response
		r, ok := h.reqs[msg.ID]
		if ok && r.post > 0 && !r.answered {
			r.answered = true
			h.reqs[msg.ID] = r
			h.answerInit(m, r)
			return
		}
		key = ""
		if ok && !ConnectionStreamMethods[r.method] {
			key = r.session
		}
	} else if key == "" {
		key = psession
	}
	h.events++
	h.record(traces.KindSend, m, "")
	st := h.streams[key]
	if st == nil || !st.open {
		h.record(traces.KindDrop, m, "stream not open")
		return
	}
	if h.choose(sim.Numbered(StreamBreak, h.site(a2c), h.events, "", false, 2)) != 0 {
		h.record(traces.KindDrop, m, "stream-break")
		h.closeStream(st, "stream-break")
		return
	}
	extra := DelaySteps[h.choose(sim.Numbered(Delay, h.site(a2c), h.events, "", false, len(DelaySteps)))]
	at := max(h.loop.Now()+h.latency+extra, st.last) // one stream never reorders
	st.last = at
	m.stream = st
	h.inflight = append(h.inflight, m)
	h.loop.AtHandler(at, m)
}

// answerInit carries initialize's response back as the body of its 200.
func (h *HTTPLink) answerInit(m *httpMsg, r httpReq) {
	m.post = r.post
	h.record(traces.KindSend, m, "")
	back := h.loop.Now() + h.latency
	if r.lost {
		h.record(traces.KindDrop, m, "200 lost")
		h.status(r.post, StatusNone, back)
		return
	}
	h.inflight = append(h.inflight, m)
	h.loop.AtHandler(back, m)
}

func (h *HTTPLink) arriveEvent(m *httpMsg) {
	if m.gone {
		return
	}
	m.gone = true
	h.unflight(m)
	if m.stream == nil { // initialize's 200 body
		h.record(traces.KindDeliver, m, "200")
		if h.OnStatus != nil {
			h.OnStatus(m.post, StatusOK)
		}
	} else {
		h.record(traces.KindDeliver, m, "")
	}
	if h.OnEvent != nil {
		h.OnEvent(m.bytes, m.digest)
	}
}

// closeStream ends st at the Agent's end: its events in flight are lost and
// the Client hears OnStreamClosed a latency later.
func (h *HTTPLink) closeStream(st *sseStream, why string) {
	st.open = false
	h.rec.Record(traces.Event{Kind: traces.KindStream, Link: st.conn, From: h.Client, To: h.Agent, Note: "closed " + streamName(st.session) + ": " + why})
	kept := h.inflight[:0]
	for _, x := range h.inflight {
		if x.stream == st && !x.gone {
			x.gone = true
			h.record(traces.KindDrop, x, why)
			continue
		}
		kept = append(kept, x)
	}
	clear(h.inflight[len(kept):])
	h.inflight = kept
	session := st.session
	h.loop.At(h.loop.Now()+h.latency, func() {
		if h.OnStreamClosed != nil {
			h.OnStreamClosed(session)
		}
	})
}

func streamName(session string) string {
	if session == "" {
		return "connection"
	}
	return "session " + session
}
