package world

import (
	"fmt"
	"strconv"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// ToolVersion is written into every trace header.
const ToolVersion = "acpsim 0.1.0"

// world is one simulation in progress.
type world struct {
	cfg     Config
	loop    sim.Loop
	faults  *sim.Recorder
	ids     *sim.IDs
	log     *traces.Log
	healing bool

	factory agent.Factory
	cenv    client.Env
	clients []*clientNode
	agents  []*agentNode

	httpConns map[string]*clientNode    // HTTP connection id → its Client
	wsPipes   map[string]*netfault.Pipe // WebSocket connection → its pipe
	stopping  bool                      // the run is over: dead servers stay dead
}

type clientNode struct {
	name  string
	cfg   client.Config
	c     *client.Client // nil while the Client process is down
	agent *agentNode
	pipe  *netfault.Pipe
	http  *httpState       // with --link http
	link  string           // the transport this Client uses (--link, or its share of mixed)
	wsN   int              // WebSocket connections opened (--link ws)
	wsOld []*netfault.Pipe // connections the Client left open when it opened a fresh one
	// wsNode is the node serving the WebSocket connection; lastNode the
	// node of the Client's last connection (sticky routing), -1 for none.
	wsNode   *agentProc
	lastNode int
	steps    int // Client steps applied, for client-restart site names
	// waiting are user submissions made while the Client was down: the user
	// makes them once it is back.
	waiting []func()
}

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

// Record implements netfault.Recorder.
func (w *world) Record(e traces.Event) {
	e.T = int64(w.loop.Now() / time.Microsecond)
	w.log.Append(e)
}

func (w *world) choose(d sim.Decision) int {
	if w.healing {
		return 0
	}
	return w.faults.Choose(d)
}

// Result is what one run produced: its trace and how often each kind of
// fault was asked for and injected.
type Result struct {
	Log    *traces.Log
	Faults []sim.KindCount
}

// Run simulates one run and returns its trace.
func Run(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pol, _ := client.LookupPolicy(cfg.Policy)
	factory, _ := agent.Lookup(cfg.Agent)
	factory = proxy.Wrap(factory, cfg.Proxies, cfg.ProxyMode)
	chooser := cfg.Chooser
	source := traces.SourceSchedule
	if chooser == nil {
		chooser = sim.NewSeeded(cfg.Seed, cfg.Rates)
		source = traces.SourceSeed
	}
	w := &world{cfg: cfg, httpConns: map[string]*clientNode{}, wsPipes: map[string]*netfault.Pipe{}, ids: sim.NewIDs(cfg.Seed), factory: factory, log: &traces.Log{Events: make([]traces.Event, 0, 40*(cfg.Prompts+4)*cfg.Clients)}}
	w.faults = &sim.Recorder{Inner: chooser, OnFault: func(c sim.Choice) {
		w.Record(traces.Event{Kind: traces.KindChoose, Decision: c.Kind, Site: c.Site, Option: c.Option})
	}}
	w.log.Header = traces.Header{
		Format: traces.FormatVersion, Tool: ToolVersion, Source: source, Seed: cfg.Seed,
		Policy: cfg.Policy, Agent: cfg.Agent, Link: cfg.Link,
		Clients: cfg.Clients, Sessions: cfg.Sessions, Prompts: cfg.Prompts, Actions: cfg.actions(),
		Rates: cfg.Rates, Knobs: cfg.Knobs.Map(),
		Contract:      contract(cfg.Knobs),
		KeyLengthUnit: acp.KeyLengthUnit,
		Command:       cfg.Command,
	}
	w.cenv = client.Env{NewID: w.ids.UUID, IntN: w.ids.IntN, Now: w.loop.Now, Sub: func(sub string) (func() string, func(int) int) {
		ids := sim.NewNamedIDs(cfg.Seed, sub)
		return ids.UUID, ids.IntN
	}}
	for i := range cfg.Clients {
		link := cfg.Link
		if link == LinkMixed { // per Client, in turn
			link = []string{LinkStdio, LinkHTTP, LinkWS}[i%3]
		}
		an := &agentNode{name: fmt.Sprintf("a%d", i+1), disk: store.NewDisk(), link: link}
		cn := &clientNode{name: fmt.Sprintf("c%d", i+1), agent: an, lastNode: -1, link: link}
		cn.cfg = client.Config{
			Name: cn.name, Policy: pol, Sessions: cfg.Sessions, Cwd: "/work/" + cn.name,
			Timeout: cfg.Timeout, Backoff: cfg.Backoff, MaxAttempts: cfg.MaxAttempts, StaleAfter: cfg.StaleAfter,
			FreshConnection: cfg.FreshConnection && link == LinkWS,
		}
		cn.c = client.New(cn.cfg, w.cenv)
		w.agents = append(w.agents, an)
		w.clients = append(w.clients, cn)
	}
	for i := range cfg.ExtraDraws {
		w.choose(sim.Decision{Kind: netfault.Delay, Site: "extra/" + strconv.Itoa(i), N: len(netfault.DelaySteps)})
	}
	last := w.schedule()
	for _, an := range w.agents {
		if an.link != LinkStdio {
			w.startNodes(an)
		}
	}
	for _, cn := range w.clients {
		w.applyClient(cn, cn.c.Start())
	}

	// Chaos, then heal: faults stop, dead processes come back, the run goes on
	// until nothing is left to do.
	w.loop.RunUntil(last+cfg.ChaosFor, w.overBudget)
	w.healing = true
	w.Record(traces.Event{Kind: traces.KindHeal})
	end := w.runQuiet(w.loop.Now() + cfg.HealCap)

	// The observer reads the final transcript from a fresh Agent process.
	w.stopNodes()
	for _, cn := range w.clients {
		if cn.pipe != nil && cn.pipe.Alive() {
			w.stopProc(cn.agent.proc, "close")
		}
	}
	for _, an := range w.agents {
		w.observe(an)
	}
	if e := w.runQuiet(w.loop.Now() + cfg.HealCap); e != traces.EndQuiet {
		end = e
	}
	w.Record(traces.Event{Kind: traces.KindEnd, Note: end})
	return &Result{Log: w.log, Faults: w.faults.Tally()}, nil
}

func (w *world) overBudget() bool { return len(w.log.Events) >= w.cfg.MaxEvents }

// runQuiet runs until no event is left ("quiet") or the cap is hit ("cap").
func (w *world) runQuiet(capAt time.Duration) string {
	w.loop.RunUntil(capAt, w.overBudget)
	if w.loop.Pending() > 0 {
		return traces.EndCap
	}
	return traces.EndQuiet
}

// contract is what the Agent promises a black-box checker about retention.
func contract(k agent.Knobs) traces.Contract {
	c := traces.Contract{Retention: k.Retention(), LiveOnly: []string{}}
	if k.LiveOnly != "" {
		c.LiveOnly = append(c.LiveOnly, k.LiveOnly)
	}
	return c
}

// Scenario is the users' part of cfg.
func (cfg *Config) Scenario() users.Spec {
	return users.Spec{Clients: cfg.Clients, Prompts: cfg.Prompts, Sessions: cfg.Sessions,
		Forks: cfg.Forks, Cancels: cfg.Cancels, Closes: cfg.Closes, MaxGap: cfg.MaxGap}
}

// userActions are what a user does besides typing prompts, as data: what
// the Client does for each.
var userActions = map[users.Action]func(c *client.Client, sess int, alt bool) []client.Output{
	users.Cancel: func(c *client.Client, sess int, alt bool) []client.Output { return c.Cancel(sess, alt) },
	users.Close:  func(c *client.Client, sess int, _ bool) []client.Output { return c.Close(sess) },
	users.Fork:   func(c *client.Client, sess int, _ bool) []client.Output { return c.Fork(sess) },
}

// schedule draws every Client's submissions and actions (the users) from the
// id stream, puts them on the loop and returns the time of the last
// submission.
func (w *world) schedule() time.Duration {
	evs := users.Draw(w.ids, w.cfg.Scenario())
	for _, e := range evs {
		if users.Skipped(e, w.cfg.Skip) {
			continue
		}
		cn := w.clients[e.Client]
		if e.Action != users.Submit {
			do := userActions[e.Action]
			w.loop.At(e.At, func() {
				if cn.c != nil { // a Client that is restarting misses it: so would its user
					w.applyClient(cn, do(cn.c, e.Sess, e.Alt))
				}
			})
			continue
		}
		var submit func()
		submit = func() {
			if cn.c == nil {
				cn.waiting = append(cn.waiting, submit)
				return
			}
			w.Record(traces.Event{Kind: traces.KindSubmit, Client: cn.name, Sub: e.Sub, Text: e.Text})
			w.applyClient(cn, cn.c.Submit(e.Sub, e.Text, e.Sess))
		}
		w.loop.At(e.At, submit)
	}
	return users.Last(evs)
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
	if w.choose(sim.Decision{Kind: netfault.ClientRestart, Site: cn.name + "/step/" + strconv.Itoa(cn.steps), N: 2}) != 0 {
		w.restartClient(cn)
		return
	}
	// Callbacks belong to this Client process: after a restart its timers
	// and reconnects are gone with it.
	c := cn.c
	for _, o := range outs {
		switch o.Kind {
		case client.OutSend:
			if cn.link == LinkHTTP {
				w.httpSend(cn, o)
				continue
			}
			if cn.pipe == nil || cn.pipe.Name != o.Conn {
				continue // written to a connection that is gone: nobody reads it
			}
			cn.pipe.SendToAgent(o.Frame, o.Sub)
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
	saved := cn.c.Persisted()
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

// newProc starts a new incarnation of an Agent installation.
func (w *world) newProc(an *agentNode) *agentProc {
	an.inc++
	p := &agentProc{name: fmt.Sprintf("%s#%d", an.name, an.inc), node: an, alive: true, nodeIdx: -1}
	env := agent.Env{Name: p.name, Choose: w.choose, NewID: w.ids.UUID}
	p.m = w.factory(w.cfg.Knobs, func() store.Store { return an.disk }, env)
	an.proc = p
	w.Record(traces.Event{Kind: traces.KindRestart, From: p.name})
	return p
}

// spawn is the stdio Client starting its Agent: a new process on a new pipe.
func (w *world) spawn(cn *clientNode) {
	if cn.pipe != nil && cn.pipe.Alive() {
		return
	}
	p := w.newProc(cn.agent)
	pipe := netfault.NewPipe(cn.name+":"+p.name, cn.name, p.name, &w.loop, w.choose, w, w.cfg.Latency)
	p.pipe, cn.pipe = pipe, pipe
	pipe.ToAgent = func(b []byte) {
		if p.alive {
			w.applyAgent(p, p.m.Receive(pipe.Name, b))
		}
	}
	c := cn.c
	pipe.ToClient = func(b []byte) {
		if cn.c == c {
			w.applyClient(cn, c.Receive(pipe.Name, b))
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

// applyAgent carries out a step's outputs in order. Before each visible one
// the process may be killed: that is how "after the store write, before the
// response" and every other window between two outputs is reached.
func (w *world) applyAgent(p *agentProc, outs []agent.Output) {
	for _, o := range outs {
		if !p.alive {
			return
		}
		if o.Kind == agent.OutSend || o.Kind == agent.OutSync {
			p.outs++
			site := p.name + "/" + strconv.Itoa(p.outs) + "/" + o.Step
			if w.choose(sim.Decision{Kind: netfault.Kill, Site: site, N: 2}) != 0 {
				w.procDied(p, "killed before "+o.Step, true)
				return
			}
		}
		switch o.Kind {
		case agent.OutSend:
			if p.pipe != nil && p.pipe.Name == o.Conn {
				p.pipe.SendToClient(o.Frame)
			} else if pipe := w.wsPipes[o.Conn]; pipe != nil {
				pipe.SendToClient(o.Frame)
			} else if cn := w.httpConns[o.Conn]; cn != nil && cn.http.link.Conn() == o.Conn {
				cn.http.link.FromAgent(o.Frame, "")
			}
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
				if disk.Commit(batch) == nil {
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

// maxObserverTries bounds how often the observer starts over on a new
// connection after its initialize failed.
const maxObserverTries = 5

// observe starts a fresh process of an Agent installation for the observer.
func (w *world) observe(an *agentNode) { w.observeTry(an, 1) }

func (w *world) observeTry(an *agentNode, try int) {
	p := w.newProc(an)
	obs := client.NewObserver("/")
	pipe := netfault.NewPipe(traces.Observer+":"+p.name, traces.Observer, p.name, &w.loop, w.choose, w, w.cfg.Latency)
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
				pipe.SendToAgent(o.Frame, "")
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
