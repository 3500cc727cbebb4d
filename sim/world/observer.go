// The observer: after the heal, a fresh process of each Agent
// installation reads its final transcript, starting over on a new
// connection when its initialize fails.

package world

import (
	"github.com/acpsim/acpsim/actors/acp"
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
	obs.Protocol, obs.Canonical = w.cfg.Protocol(), w.names.Canonical
	pipe := netfault.NewPipe(traces.Observer+":"+p.name, traces.Observer, p.name, w.loop, w.choose, w, w.cfg.Latency)
	p.pipe = pipe
	pipe.ToAgent = func(b []byte, d *acp.Digest) {
		if p.alive {
			w.applyAgent(p, p.receive(pipe.Name, b, d))
		}
	}
	apply := func(outs []client.Output) {
		for i := range outs {
			o := &outs[i]
			switch o.Kind {
			case client.OutSend:
				w.digest = o.Digest
				if o.Probe {
					pipe.SendProbeToAgent(o.Frame, o.Digest)
				} else {
					pipe.SendToAgentDigest(o.Frame, "", o.Digest)
				}
				w.digest = nil
			case client.OutHangup:
				w.exitProc(p, "exited: the observer hung up")
				pipe.Close("hangup")
				if try < maxObserverTries {
					w.loop.After(w.cfg.Backoff, func() { w.observeTry(an, try+1) })
				}
			}
		}
	}
	pipe.ToClient = func(b []byte, d *acp.Digest) { apply(obs.ReceiveDigest(pipe.Name, b, w.toClient(d))) }
	w.applyAgent(p, p.m.Connect(pipe.Name))
	apply(obs.Connected(pipe.Name))
}

// liveIDPrefix starts the ids of the observer's requests on a Client's
// live pipe: strings, where the Clients number theirs.
const liveIDPrefix = "acpsim-observer-"

// readLive starts, on every stdio Client's pipe still up after the heal,
// an observer that reads back the Client's sessions before the pipe closes
// and its Agent process ends: an Agent that keeps sessions in memory
// (--sessions-in memory) shows them nowhere else, and acpsim check reads
// the same way (netfault/realmode/check). The Client hears nothing of it:
// it is done.
func (w *world) readLive() {
	for _, cn := range w.clients {
		if cn.c == nil || cn.link != LinkStdio || cn.pipe == nil || !cn.pipe.Alive() {
			continue
		}
		var sessions []string
		for _, s := range cn.c.Persisted().Sessions {
			if s != "" {
				sessions = append(sessions, s)
			}
		}
		if len(sessions) == 0 {
			continue
		}
		obs := client.NewObserver("/")
		obs.Protocol, obs.Canonical = w.cfg.Protocol(), w.names.Canonical
		pipe := cn.pipe
		apply := func(outs []client.Output) {
			for i := range outs {
				o := &outs[i]
				switch {
				case o.Kind != client.OutSend:
				case o.Probe:
					w.digest = o.Digest
					pipe.SendProbeToAgent(o.Frame, o.Digest)
					w.digest = nil
				default:
					w.digest = o.Digest
					pipe.SendObserveToAgent(o.Frame, o.Digest)
					w.digest = nil
				}
			}
		}
		pipe.ToClient = func(b []byte, d *acp.Digest) { apply(obs.ReceiveDigest(pipe.Name, b, w.toClient(d))) }
		apply(obs.ReadLive(pipe.Name, liveIDPrefix, sessions))
	}
}
