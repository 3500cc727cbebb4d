// The Client's POSTs on an HTTPLink: POST /acp and its faults (post-lost,
// accepted-lost, conn-expired, delay), and the Agent reading each POST
// or refusing it.

package netfault

import (
	"strconv"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// Post sends a Client frame as POST /acp and returns the POST's number, which
// OnStatus reports its status under; sub names the submission of a prompt.
// initialize needs no connection; every other POST carries the live
// connection id (400 when there never was one, 404 when it is gone). A batch
// is answered 501.
func (h *HTTPLink) Post(frame []byte, sub string) int { return h.PostDigest(frame, sub, nil) }

// PostDigest is Post of a frame whose digest (acp.Digest) the sender made:
// the link reads its route from it (HTTPRouteOf).
func (h *HTTPLink) PostDigest(frame []byte, sub string, d *acp.Digest) int {
	h.posts++
	n := h.posts
	m := &httpMsg{dir: c2a, bytes: frame, text: frameText(frame), sub: sub, post: n, conn: h.conn, route: HTTPRouteOf(frame, d), link: h, digest: d}
	batch := m.route.Batch
	m.init = !batch && m.route.Method == acp.MethodInitialize
	if m.init { // the connection it creates is named after this POST
		m.conn = h.Name + "#" + strconv.Itoa(n)
	}
	h.record(traces.KindSend, m, "")
	back := h.loop.Now() + 2*h.latency
	switch {
	case batch:
		h.record(traces.KindDrop, m, "501")
		h.status(n, StatusNotImplemented, back)
		return n
	case !m.init && h.conn == "" && h.nconn == 0:
		h.record(traces.KindDrop, m, "400")
		h.status(n, StatusBadRequest, back)
		return n
	case !m.init && h.conn == "":
		h.record(traces.KindDrop, m, "404")
		h.status(n, StatusNotFound, back)
		return n
	}
	site := h.site(c2a)
	if !m.init && h.choose(sim.Numbered(ConnExpired, site, n, "", false, 2)) != 0 {
		m.expire = true
	} else if h.choose(sim.Numbered(PostLost, site, n, "", false, 2)) != 0 {
		h.record(traces.KindDrop, m, "post-lost")
		h.status(n, StatusNone, back)
		return n
	} else {
		m.lost = h.choose(sim.Numbered(AcceptedLost, site, n, "", false, 2)) != 0
	}
	extra := DelaySteps[h.choose(sim.Numbered(Delay, site, n, "", false, len(DelaySteps)))]
	h.inflight = append(h.inflight, m)
	h.loop.AtHandler(h.loop.Now()+h.latency+extra, m) // POSTs may overtake each other
	return n
}

func (h *HTTPLink) arrivePost(m *httpMsg) {
	back := h.loop.Now() + h.latency
	if m.gone {
		if m.refuse {
			h.status(m.post, StatusNotFound, back)
		}
		return
	}
	m.gone = true
	h.unflight(m)
	if m.expire && h.conn != "" && h.conn == m.conn {
		// The id expired just before this POST: it is the first to get 404.
		h.record(traces.KindDrop, m, "404")
		h.status(m.post, StatusNotFound, back)
		h.endConn("conn-expired", true)
		return
	}
	msg, session := m.route, m.route.Session
	if m.init {
		if h.conn != "" {
			h.endConn("superseded", true)
		}
		h.nconn++
		h.conn = m.conn
		h.rec.Record(traces.Event{Kind: traces.KindConnect, Link: h.conn, From: h.Client, To: h.Agent, Note: h.conn})
		if msg.ID != "" {
			h.reqs[msg.ID] = httpReq{method: msg.Method, post: m.post, lost: m.lost}
		}
		note := "200"
		if m.lost {
			note = "200 lost"
		}
		h.record(traces.KindDeliver, m, note)
		if h.OnAgentConnect != nil {
			h.OnAgentConnect(h.conn)
		}
		if h.ToAgent != nil {
			h.ToAgent(h.conn, m.bytes, m.digest)
		}
		return
	}
	if h.conn == "" || h.conn != m.conn {
		h.record(traces.KindDrop, m, "404")
		h.status(m.post, StatusNotFound, back)
		return
	}
	if msg.ID != "" && msg.Method != "" {
		h.reqs[msg.ID] = httpReq{session: session, method: msg.Method}
	}
	note, code := "202", StatusAccepted
	if m.lost {
		note, code = "202 lost", StatusNone
	}
	h.record(traces.KindDeliver, m, note)
	h.status(m.post, code, back)
	if h.ToAgent != nil {
		h.ToAgent(h.conn, m.bytes, m.digest)
	}
}
