// Client processes: a Client's node, carrying out the outputs of its steps
// (sends, connects, timers, hangups, outcomes) and the client-restart
// fault that kills it and starts it again from what it saved.

package world

import (
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

type clientNode struct {
	name string
	// stepSite is the prefix of the sites of its restart decisions,
	// name/step.
	stepSite string
	cfg      client.Config
	c        *client.Client // nil while the Client process is down
	agent    *agentNode
	pipe     *netfault.Pipe
	http     *httpState       // with --link http
	link     string           // the transport this Client uses (--link, or its share of mixed)
	wsN      int              // WebSocket connections opened (--link ws)
	wsOld    []*netfault.Pipe // connections the Client left open when it opened a fresh one
	// wsNode is the node serving the WebSocket connection; lastNode the
	// node of the Client's last connection (sticky routing), -1 for none.
	wsNode   *agentProc
	lastNode int
	steps    int // Client steps applied, for client-restart site names
	// waiting are user submissions made while the Client was down: the user
	// makes them once it is back.
	waiting []func()
}

// applyClient carries out a Client step's outputs in order. Before it
// starts, the Client process may die (client-restart): the step's state
// change is made, its outputs never are, which is the window where the
// Client's disk and the wire disagree.
func (w *world) applyClient(cn *clientNode, outs []client.Output) {
	if len(outs) == 0 {
		return
	}
	cn.steps++
	if w.choose(sim.Numbered(netfault.ClientRestart, cn.stepSite, cn.steps, "", false, 2)) != 0 {
		w.restartClient(cn)
		return
	}
	// Callbacks belong to this Client process: after a restart its timers
	// and reconnects are gone with it.
	c := cn.c
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case client.OutSend:
			w.digest = o.Digest
			switch {
			case cn.link == LinkHTTP:
				w.httpSend(cn, *o)
			case cn.pipe == nil || cn.pipe.Name != o.Conn:
				// written to a connection that is gone: nobody reads it
			default:
				cn.pipe.SendToAgentDigest(o.Frame, o.Sub, o.Digest)
			}
			w.digest = nil
		case client.OutConnect:
			w.loop.After(w.cfg.Spawn, func() {
				if cn.c != c {
					return
				}
				switch cn.link {
				case LinkHTTP:
					w.httpConnect(cn)
					return
				case LinkWS:
					w.wsConnect(cn)
					return
				}
				w.spawn(cn)
			})
		case client.OutTimer:
			id := o.ID
			w.loop.After(o.After, func() {
				if cn.c == c {
					w.applyClient(cn, c.Timer(id))
				}
			})
		case client.OutHangup:
			if pipe := w.wsPipes[o.Conn]; pipe != nil && pipe.Alive() {
				pipe.Close("hangup") // the server survives; the connection ends
				continue
			}
			if hs := cn.http; hs != nil && hs.conn == o.Conn {
				hs.link.Delete() // DELETE /acp; the Client hears OnGone
				continue
			}
			if p := cn.agent.proc; p != nil && p.alive && p.pipe != nil && p.pipe.Name == o.Conn {
				w.exitProc(p, "exited: the Client hung up")
				p.pipe.Close("hangup")
			}
		case client.OutOutcome:
			w.Record(traces.Event{Kind: traces.KindOutcome, Client: cn.name, Sub: o.Sub, Outcome: o.Outcome, MessageID: o.MessageID})
		}
	}
}

// restartClient kills the Client process and starts it again after the
// spawn delay from what it had saved. Its stdio pipe ends with it: the
// Agent reads EOF and exits, and nobody reads what was in flight.
func (w *world) restartClient(cn *clientNode) {
	saved := cn.c.Died()
	cn.c = nil
	w.Record(traces.Event{Kind: traces.KindKill, From: cn.name, Note: "client restarted"})
	if pipe := cn.pipe; pipe != nil && pipe.Alive() {
		if p := cn.agent.proc; p != nil && p.alive && p.pipe == pipe {
			w.exitProc(p, "exited: its Client died")
		}
		if cn.link != LinkWS {
			pipe.OnClosed = nil // no Client is left to tell (a WebSocket server still hears the close)
		}
		pipe.Close("client-restart")
	}
	w.loop.After(w.cfg.Spawn, func() {
		if w.stopping { // the run is over: its Clients are done
			return
		}
		cn.c = client.Restore(cn.cfg, w.cenv, saved)
		w.Record(traces.Event{Kind: traces.KindRestart, From: cn.name})
		w.applyClient(cn, cn.c.Start())
		waiting := cn.waiting
		cn.waiting = nil
		for _, submit := range waiting {
			submit() // waits again if the Client died once more
		}
	})
}
