// Agent installations and processes: starting a new incarnation, carrying
// out the outputs of its steps (with a kill possible before each visible
// one) and its end, killed, exited or stopped.

package world

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// agentNode is one Agent installation: its disk outlives its processes.
type agentNode struct {
	name string
	disk *store.Disk
	inc  int
	proc *agentProc
	// nodes are the server processes behind a remote endpoint (--nodes).
	nodes []*agentProc
	link  string // the transport its Client reaches it by
}

type agentProc struct {
	name  string // "a1#3"
	node  *agentNode
	m     agent.Machine
	alive bool
	pipe  *netfault.Pipe
	outs  int // outputs applied, for crash-site names
	// nodeIdx is which node of its installation the process is.
	nodeIdx int
}

// newProc starts a new incarnation of an Agent installation.
func (w *world) newProc(an *agentNode) *agentProc {
	an.inc++
	p := &agentProc{name: fmt.Sprintf("%s#%d", an.name, an.inc), node: an, alive: true, nodeIdx: -1}
	env := agent.Env{Name: p.name, Choose: w.choose, NewID: w.ids.UUID}
	p.m = w.factory(w.cfg.Knobs, agent.ProcessStore(w.cfg.Knobs, an.disk), env)
	an.proc = p
	w.Record(traces.Event{Kind: traces.KindRestart, From: p.name})
	return p
}

// receive hands a frame to the process's machine, with the digest its
// sender made where the machine reads one (agent.DigestReceiver).
func (p *agentProc) receive(conn string, frame []byte, d *acp.Digest) []agent.Output {
	if r, ok := p.m.(agent.DigestReceiver); ok && d != nil {
		return r.ReceiveDigest(conn, frame, d)
	}
	return p.m.Receive(conn, frame)
}

// toClient is the digest a Client or the observer reads a frame with: the
// sender's, or none when a test has them read the bytes.
func (w *world) toClient(d *acp.Digest) *acp.Digest {
	if w.cfg.clientsReadBytes {
		d = nil
	}
	if n := w.cfg.clientFrames; n != nil {
		n.all++
		if d != nil {
			n.digested++
		}
	}
	return d
}

// applyAgent carries out a step's outputs in order. Before each visible one
// the process may be killed: that is how "after the store write, before the
// response" and every other window between two outputs is reached.
func (w *world) applyAgent(p *agentProc, outs []agent.Output) {
	for i := range outs {
		o := &outs[i]
		if !p.alive {
			return
		}
		if o.Kind == agent.OutSend || o.Kind == agent.OutSync {
			p.outs++
			if w.choose(sim.Numbered(netfault.Kill, p.name, p.outs, o.Step, true, 2)) != 0 {
				w.procDied(p, "killed before "+o.Step, true)
				return
			}
		}
		switch o.Kind {
		case agent.OutSend:
			w.digest = o.Digest
			if p.pipe != nil && p.pipe.Name == o.Conn {
				p.pipe.SendToClientDigest(o.Frame, o.Digest)
			} else if pipe := w.wsPipes[o.Conn]; pipe != nil {
				pipe.SendToClientDigest(o.Frame, o.Digest)
			} else if cn := w.httpConns[o.Conn]; cn != nil && cn.http.link.Conn() == o.Conn {
				cn.http.link.FromAgentDigest(o.Frame, "", o.Digest)
			}
			w.digest = nil
		case agent.OutSync:
			p.node.disk.Sync()
		case agent.OutTimer:
			id := o.ID
			w.loop.After(o.After, func() {
				if p.alive {
					w.applyAgent(p, p.m.Timer(id))
				}
			})
		case agent.OutDeferred:
			// The runtime is a process of its own: it finishes the write
			// even if this one dies meanwhile. A refused batch is ignored.
			batch, disk := o.Batch, p.node.disk
			w.loop.After(o.After, func() {
				if disk.Commit(*batch) == nil {
					disk.Sync()
				}
			})
		case agent.OutInsert:
			w.Record(traces.Event{Kind: traces.KindInsert, From: p.name, Session: o.Session, MessageID: o.MessageID, Text: o.Text})
		}
	}
}

// procDied ends an Agent process. A crash may lose unsynced writes; a process
// that reads EOF exits and the OS keeps what it wrote.
func (w *world) procDied(p *agentProc, why string, crash bool) {
	if !p.alive {
		return
	}
	p.alive = false
	lost := false
	if crash && p.node.disk.Unsynced() > 0 {
		lost = w.choose(sim.Decision{Kind: netfault.LoseUnsynced, Site: p.name, N: 2}) != 0
	}
	p.node.disk.Crash(lost)
	w.Record(traces.Event{Kind: traces.KindKill, From: p.name, Note: why, LostUnsynced: lost})
	reason := "exit"
	if crash {
		reason = "kill"
	}
	if p.pipe != nil {
		p.pipe.AgentGone(reason) // a cut pipe has ended already
	}
	if p.node.link != LinkStdio && p.nodeIdx >= 0 {
		w.nodeDied(p, reason)
	}
}

// stopProc is the orderly end of a run: the Client closes the pipe and the
// Agent exits.
func (w *world) stopProc(p *agentProc, why string) {
	if p == nil || !p.alive {
		return
	}
	w.exitProc(p, "")
	p.pipe.OnClosed = nil
	p.pipe.Close(why)
}

// exitProc is an Agent process exiting on its own (it read EOF, or the run
// is over): the OS keeps what it wrote. note, if set, is the trace's kill
// event for it.
func (w *world) exitProc(p *agentProc, note string) {
	p.alive = false
	p.node.disk.Crash(false)
	if note != "" {
		w.Record(traces.Event{Kind: traces.KindKill, From: p.name, Note: note})
	}
}
