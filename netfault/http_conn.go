// How an HTTPLink's connection ends: DELETE /acp, the Agent process going
// away, and endConn, which refuses or drops what is in flight on it.

package netfault

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Delete is DELETE /acp: the connection (and its streams) ends when the
// request reaches the Agent, and the Client hears OnGone a latency later.
func (h *HTTPLink) Delete() {
	conn := h.conn
	if conn == "" {
		return
	}
	h.loop.At(h.loop.Now()+h.latency, func() {
		if h.conn == conn {
			h.endConn("delete", true)
		}
	})
}

// AgentGone is the Agent process behind the endpoint dying: the connection's
// state dies with it (later requests get 404), its streams close and what is
// in flight is lost. OnAgentDisconnect is not called.
func (h *HTTPLink) AgentGone(why string) {
	if h.conn != "" {
		h.endConn(why, false)
	}
}

// endConn ends the live connection: POSTs in flight on it are refused (404
// when they arrive), everything the Agent wrote that is in flight is lost,
// open streams close, and the Client hears OnGone a latency later (not when
// a new initialize superseded the connection).
func (h *HTTPLink) endConn(why string, tellAgent bool) {
	conn := h.conn
	kept := h.inflight[:0]
	for _, x := range h.inflight {
		if x.gone || x.conn != conn || (x.dir == c2a && x.init) {
			kept = append(kept, x)
			continue
		}
		x.gone = true
		if x.dir == c2a {
			x.refuse = true
			h.record(traces.KindDrop, x, "404 "+why)
			continue
		}
		h.record(traces.KindDrop, x, why)
		if x.stream == nil {
			h.status(x.post, StatusNone, h.loop.Now()+h.latency)
		}
	}
	clear(h.inflight[len(kept):])
	h.inflight = kept
	for _, st := range h.order {
		if st.open {
			h.closeStream(st, why)
		}
	}
	h.conn = ""
	h.streams = map[string]*sseStream{}
	h.order = nil
	h.reqs = map[acp.ID]httpReq{}
	h.rec.Record(traces.Event{Kind: traces.KindDisconnect, Link: conn, From: h.Client, To: h.Agent, Note: why})
	if tellAgent && h.OnAgentDisconnect != nil {
		h.OnAgentDisconnect(conn, why)
	}
	if why != "superseded" {
		h.loop.At(h.loop.Now()+h.latency, func() {
			if h.OnGone != nil {
				h.OnGone()
			}
		})
	}
}
