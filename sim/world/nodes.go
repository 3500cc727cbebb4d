package world

import (
	"fmt"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// Agent nodes (remote links): an installation runs Config.Nodes server
// processes behind one endpoint, sharing one store. Each new connection is
// routed to a node, by the Chooser unless routing is sticky (a cookie brings
// a Client back to the node it had while that node lives). A node that dies
// takes its connections along and its supervisor starts it again.

// startNodes starts every node of an installation.
func (w *world) startNodes(an *agentNode) {
	an.nodes = make([]*agentProc, w.cfg.Nodes)
	for i := range an.nodes {
		w.startNode(an, i)
	}
}

func (w *world) startNode(an *agentNode, i int) {
	p := w.newProc(an)
	p.nodeIdx = i
	an.nodes[i] = p
}

// route picks the node a new connection of cn lands on; nil when every
// node is down (the connection is refused).
func (w *world) route(cn *clientNode, conn string) *agentProc {
	nodes := cn.agent.nodes
	alive := func(i int) bool { return nodes[i] != nil && nodes[i].alive }
	i := 0
	switch {
	case w.cfg.Sticky && cn.lastNode >= 0 && alive(cn.lastNode):
		i = cn.lastNode
	case len(nodes) > 1:
		i = w.choose(sim.Decision{Kind: netfault.Route, Site: conn, N: len(nodes)})
	}
	for k := range nodes { // the next live node, in order
		if j := (i + k) % len(nodes); alive(j) {
			cn.lastNode = j
			w.Record(traces.Event{Kind: traces.KindRoute, Link: conn, From: cn.name, To: nodes[j].name, Note: fmt.Sprintf("node %d of %d", j+1, len(nodes))})
			return nodes[j]
		}
	}
	w.Record(traces.Event{Kind: traces.KindRoute, Link: conn, From: cn.name, To: cn.agent.name, Note: "refused: every node is down"})
	return nil
}

// nodeDied ends the connections a dead node served and restarts it.
func (w *world) nodeDied(p *agentProc, why string) {
	for _, cn := range w.clients {
		if hs := cn.http; hs != nil && hs.node == p {
			hs.link.AgentGone(why)
		}
		if cn.wsNode == p && cn.pipe != nil && cn.pipe.Alive() {
			cn.pipe.AgentGone(why)
		}
		for _, old := range cn.wsOld {
			if old.Alive() && old.Agent == p.name {
				old.AgentGone(why)
			}
		}
	}
	if w.stopping {
		return
	}
	an, i := p.node, p.nodeIdx
	w.loop.After(w.cfg.Spawn, func() {
		if !w.stopping && an.nodes[i] == p {
			w.startNode(an, i)
		}
	})
}

// stopNodes ends every node at the end of a run, quietly: nobody reconnects.
func (w *world) stopNodes() {
	w.stopping = true
	for _, an := range w.agents {
		for _, p := range an.nodes {
			if p != nil && p.alive {
				p.alive = false
				w.Record(traces.Event{Kind: traces.KindKill, From: p.name, Note: "exit: the run ended"})
			}
		}
		an.disk.Crash(false)
	}
	for _, cn := range w.clients {
		if hs := cn.http; hs != nil {
			hs.link.OnGone, hs.link.OnStatus, hs.link.OnStreamClosed = nil, nil, nil
			hs.link.AgentGone("close")
		}
		for _, pipe := range append(cn.wsOld, cn.pipe) {
			if pipe != nil && pipe.Alive() && cn.wsNode != nil {
				pipe.OnClosed = nil
				pipe.Close("close")
			}
		}
	}
}
