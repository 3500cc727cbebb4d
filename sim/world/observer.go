// The observer: after the heal, a fresh process of each Agent
// installation reads its final transcript, starting over on a new
// connection when its initialize fails.

package world

import (
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/traces"
)

// maxObserverTries bounds how often the observer starts over on a new
// connection after its initialize failed.
const maxObserverTries = 5

// observe starts a fresh process of an Agent installation for the observer.
func (w *world) observe(an *agentNode) { w.observeTry(an, 1) }

func (w *world) observeTry(an *agentNode, try int) {
	p := w.newProc(an)
	obs := client.NewObserver("/")
	pipe := netfault.NewPipe(traces.Observer+":"+p.name, traces.Observer, p.name, w.loop, w.choose, w, w.cfg.Latency)
	p.pipe = pipe
	pipe.ToAgent = func(b []byte) {
		if p.alive {
			w.applyAgent(p, p.m.Receive(pipe.Name, b))
		}
	}
	apply := func(outs []client.Output) {
		for _, o := range outs {
			switch o.Kind {
			case client.OutSend:
				if o.Probe {
					pipe.SendProbeToAgent(o.Frame)
				} else {
					pipe.SendToAgent(o.Frame, "")
				}
			case client.OutHangup:
				w.exitProc(p, "exited: the observer hung up")
				pipe.Close("hangup")
				if try < maxObserverTries {
					w.loop.After(w.cfg.Backoff, func() { w.observeTry(an, try+1) })
				}
			}
		}
	}
	pipe.ToClient = func(b []byte) { apply(obs.Receive(pipe.Name, b)) }
	w.applyAgent(p, p.m.Connect(pipe.Name))
	apply(obs.Connected(pipe.Name))
}
