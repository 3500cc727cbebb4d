package world

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
)

// WebSocket (--link ws): one connection per upgrade, text frames, reliable
// and ordered like a pipe, but a connection is not the Agent process: the
// server serves many connections and outlives each (a cut closes only that
// connection and drops what was in flight), and a dead server takes all its
// connections along. Connection state lives in the server: when it dies it
// is gone, and the Client starts over (initialize, session/resume).

// wsConnect opens a new WebSocket connection from cn to its installation's
// server.
func (w *world) wsConnect(cn *clientNode) {
	if cn.pipe != nil && cn.pipe.Alive() {
		if !cn.cfg.FreshConnection {
			return
		}
		// The Client gave up on this connection without closing it: it
		// stays open and its late frames still arrive.
		cn.wsOld = append(cn.wsOld, cn.pipe)
	}
	cn.wsN++
	name := fmt.Sprintf("%s:ws#%d", cn.name, cn.wsN)
	server := w.route(cn, name)
	cn.wsNode = server
	agentName := cn.agent.name
	if server != nil {
		agentName = server.name
	}
	pipe := netfault.NewPipe(name, cn.name, agentName, w.loop, w.choose, w, w.cfg.Latency)
	cn.pipe = pipe
	alive := func() bool { return server != nil && server.alive }
	pipe.ToAgent = func(b []byte, d *acp.Digest) {
		if alive() {
			w.applyAgent(server, server.receive(name, b, d))
		}
	}
	pipe.ToClient = func(b []byte, d *acp.Digest) {
		if cn.c != nil {
			w.applyClient(cn, cn.c.ReceiveDigest(name, b, w.toClient(d)))
		}
	}
	pipe.OnClosed = func() {
		if alive() {
			w.applyAgent(server, server.m.Disconnect(name)) // the server drops the connection's state
		}
		w.loop.After(w.cfg.Latency, func() {
			if cn.c != nil {
				w.applyClient(cn, cn.c.Disconnected(name))
			}
		})
	}
	if !alive() {
		w.applyClient(cn, cn.c.Connected(name))
		pipe.Close("refused") // nobody listens: the upgrade fails
		return
	}
	w.wsPipes[name] = pipe
	w.applyAgent(server, server.m.Connect(name))
	w.applyClient(cn, cn.c.Connected(name))
}
