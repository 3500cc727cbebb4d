// The end of a history: the heal and the observer's final read of every
// transcript, replayed so every frame is sent before the first arrives.

package bench

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// observe heals the run and reads every final transcript, as the simulator's
// observer does: a fresh Agent process per installation, initialize,
// session/list, then a replaying session/resume per session.
func (g *gen) observe() {
	var t int64
	for _, c := range g.clients {
		t = max(t, c.t)
	}
	t += 1000
	g.emit(traces.Event{T: t, Kind: traces.KindHeal})
	for _, c := range g.clients {
		if c.link != "" {
			g.emit(traces.Event{T: t, Kind: traces.KindDisconnect, Link: c.link, From: c.name, To: c.proc, Note: "close"})
		}
	}
	g.h.Read.Call = -1
	for _, c := range g.clients {
		o := &client{g: g, name: traces.Observer, agent: c.agent, inc: c.inc, t: t}
		o.connect()
		id := o.id()
		var infos []acp.SessionInfo
		for _, s := range c.sessions {
			infos = append(infos, acp.SessionInfo{SessionID: s, Cwd: "/work/" + c.name})
		}
		tt := o.exchange(o.t, traces.ClientToAgent, -1, acp.Request(id, acp.MethodSessionList, acp.ListSessionsParams{}))
		tt = o.exchange(tt, traces.AgentToClient, -1, acp.Result(id, acp.ListSessionsResult{Sessions: infos}))
		o.flush()
		for _, s := range c.sessions {
			id := o.id()
			if g.h.Read.Call < 0 {
				g.h.Read.Call = tt
			}
			tt = o.exchange(tt, traces.ClientToAgent, -1, o.g.request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: s, Cwd: "/", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}))
			o.flush()
			msgs := g.transcripts[s]
			for i := 0; i < len(msgs); i += 1024 { // in batches, to keep the buffer small
				batch := make([][]byte, 0, 1024)
				for _, m := range msgs[i:min(i+1024, len(msgs))] {
					batch = append(batch, g.update(s, acp.MessageUpdate(acp.UpdateUserMessage, m.id, m.text)))
					g.h.Read.Subs = append(g.h.Read.Subs, m.sub)
				}
				o.exchange(tt, traces.AgentToClient, -1, batch...)
				o.flushSends()
			}
			tt = o.exchange(tt, traces.AgentToClient, -1, g.update(s, acp.StateUpdate(acp.StateIdle, "")), g.result(id, nil))
			o.flushSends()
			o.flush()
			g.h.Read.Return = tt
		}
		t = tt
	}
	g.emit(traces.Event{T: t + 1000, Kind: traces.KindEnd, Note: traces.EndQuiet})
}

// flush emits the observer's buffered events.
func (c *client) flush() {
	for _, e := range c.held {
		c.g.emit(e)
	}
	for _, e := range c.buf[c.head:] {
		c.g.emit(e)
	}
	c.buf, c.head = c.buf[:0], 0
	c.held = c.held[:0]
}

// flushSends emits the buffered sends of a replay and holds its deliveries
// back, so that every frame of the replay is sent before the first arrives.
func (c *client) flushSends() {
	for _, e := range c.buf[c.head:] {
		if e.Kind == traces.KindSend {
			c.g.emit(e)
		} else {
			c.held = append(c.held, e)
		}
	}
	c.buf, c.head = c.buf[:0], 0
}
