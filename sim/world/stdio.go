// stdio (--link stdio): the Client spawns its Agent process and talks to
// it over one pipe; a cut or an exit ends both.

package world

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
)

// spawn is the stdio Client starting its Agent: a new process on a new pipe.
func (w *world) spawn(cn *clientNode) {
	if cn.pipe != nil && cn.pipe.Alive() {
		return
	}
	p := w.newProc(cn.agent)
	pipe := netfault.NewPipe(cn.name+":"+p.name, cn.name, p.name, w.loop, w.choose, w, w.cfg.Latency)
	p.pipe, cn.pipe = pipe, pipe
	pipe.ToAgent = func(b []byte, d *acp.Digest) {
		if p.alive {
			w.applyAgent(p, p.receive(pipe.Name, b, d))
		}
	}
	c := cn.c
	pipe.ToClient = func(b []byte, d *acp.Digest) {
		if cn.c == c {
			w.applyClient(cn, c.ReceiveDigest(pipe.Name, b, w.toClient(d)))
		}
	}
	pipe.OnCut = func() { w.procDied(p, "cut", false) }
	pipe.OnClosed = func() {
		w.loop.After(w.cfg.Latency, func() {
			if cn.c == c {
				w.applyClient(cn, c.Disconnected(pipe.Name))
			}
		})
	}
	w.applyAgent(p, p.m.Connect(pipe.Name))
	w.applyClient(cn, c.Connected(pipe.Name))
}
