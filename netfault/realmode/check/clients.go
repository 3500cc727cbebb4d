// The model Clients of an acpsim check run: carrying out their outputs,
// the client-restart fault, and opening their connections.

package check

import (
	"strconv"
	"time"

	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

type rclient struct {
	name    string
	cfg     client.Config
	c       *client.Client // nil while the Client process is down
	ids     *sim.IDs       // what it draws ids and keys from, across restarts
	link    *rlink
	steps   int
	dials   int
	waiting []func()
	// unreachableSince is when a connection of this Client was first
	// refused since its last answered initialize (zero: none was).
	unreachableSince time.Time
}

// applyClient carries out a Client step's outputs in order. Before it
// starts, the Client process may die (client-restart), as in the simulator.
func (d *driver) applyClient(cn *rclient, outs []client.Output) {
	if len(outs) == 0 || d.stopping {
		return
	}
	cn.steps++
	if d.choose(sim.Decision{Kind: netfault.ClientRestart, Site: cn.name + "/step/" + strconv.Itoa(cn.steps), N: 2}) != 0 {
		d.restartClient(cn)
		return
	}
	c := cn.c
	for _, o := range outs {
		switch o.Kind {
		case client.OutSend:
			if l := cn.link; l != nil && l.name == o.Conn && l.c == c {
				d.c2a(l, o.Frame, o.Sub, "")
			}
		case client.OutConnect:
			d.post(func() {
				if cn.c == c && !d.stopping {
					d.connect(cn)
				}
			})
		case client.OutTimer:
			id := o.ID
			d.after(o.After, func() {
				if cn.c == c {
					d.applyClient(cn, c.Timer(id))
				}
			})
		case client.OutHangup:
			if l := cn.link; l != nil && l.name == o.Conn && l.alive {
				d.endLink(l, "hangup", true)
			}
		case client.OutOutcome:
			d.record(traces.Event{Kind: traces.KindOutcome, Client: cn.name, Sub: o.Sub, Outcome: o.Outcome, MessageID: o.MessageID})
		}
	}
}

// clientEnv is what a model Client draws from: an id stream of its own (so
// what it draws does not depend on when another Client drew, which on a
// real Agent the OS may order either way), and named streams of the seed
// for the decisions the simulator draws so; a submission's key, as in the
// simulator, from a stream of its own, so a schedule shrink leaves a
// submission out of keeps the others' keys.
func (d *driver) clientEnv(cn *rclient) client.Env {
	return client.Env{NewID: cn.ids.UUID, IntN: cn.ids.IntN, Now: d.now, Draw: sim.NamedDraws(d.cfg.Seed), Sub: sim.SubmissionDraws(d.cfg.Seed, nil)}
}

// restartClient kills the model Client and starts it again from what it
// persisted; its connection (and so its Agent process) ends with it.
func (d *driver) restartClient(cn *rclient) {
	saved := cn.c.Persisted()
	env := d.clientEnv(cn)
	cn.c = nil
	d.record(traces.Event{Kind: traces.KindKill, From: cn.name, Note: "client restarted"})
	if l := cn.link; l != nil && l.alive {
		d.endLink(l, "client-restart", false)
	}
	d.after(d.cfg.Backoff, func() {
		if d.stopping {
			return
		}
		cn.c = client.Restore(cn.cfg, env, saved)
		d.record(traces.Event{Kind: traces.KindRestart, From: cn.name})
		d.applyClient(cn, cn.c.Start())
		waiting := cn.waiting
		cn.waiting = nil
		for _, submit := range waiting {
			submit()
		}
	})
}

// connect starts a new Agent process for cn.
func (d *driver) connect(cn *rclient) {
	if cn.link != nil && cn.link.alive {
		return
	}
	if len(d.cfg.URLs) > 0 {
		d.dial(cn, cn.c, time.Now())
		return
	}
	l, err := d.spawn(cn, cn.name)
	if err != nil {
		d.fatal = err
		return
	}
	cn.link = l
	d.applyClient(cn, l.c.Connected(l.name))
}
