package realmode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// CheckConfig is one run of acpsim check: the model Clients and users of the
// simulator, against a real Agent process, through a fault proxy, in real
// time.
type CheckConfig struct {
	// Agent is the Agent's command line (stdio): one process per Client
	// connection, started again after every kill.
	Agent []string
	// URLs, instead of Agent, are remote endpoints of one Agent (several:
	// nodes sharing a store): each new connection goes to one of them, by
	// the route decision. Restart, if set, is a shell command that kills
	// and restarts the Agent behind URLs[$ACPSIM_NODE] and returns once it
	// serves again: the remote kill.
	URLs    []string
	Restart string
	// Env is the Agent's environment (nil: acpsim's own).
	Env  []string
	Seed uint64
	// Policy names the Clients' retry policy (client.Policies).
	Policy string
	// Users: Clients, sessions per Client, submissions per Client, actions.
	Clients, Sessions, Prompts int
	Cancels, Closes, Forks     int
	// Timeout is the Clients' prompt timeout, Backoff their wait before a
	// reconnect or retry, MaxGap the longest pause between two submissions
	// of one user. ChaosFor is how long faults go on after the last
	// submission.
	Timeout, Backoff, MaxGap, ChaosFor time.Duration
	// StartTimeout is how long a new connection's initialize may go
	// unanswered before the Agent is called hung.
	StartTimeout time.Duration
	// Cap ends a run that has not finished by then (inconclusive).
	Cap time.Duration
	// Rates are the fault rates (CheckFaults); Chooser, when set, replaces
	// the seeded choices (a recorded schedule).
	Rates   map[string]float64
	Chooser sim.Chooser
	// Contract is what the Agent promises about retention (the checker's
	// default, "all", for an Agent that keeps every message).
	Contract traces.Contract
	// Command is the command line that reruns this run, and AgentLabel how
	// the trace header names the Agent (default: its argv joined by spaces).
	Command, AgentLabel string
}

// DefaultCheckConfig is acpsim check with no flags: small and fast, so that
// a run of 30 seeds fits in CI.
func DefaultCheckConfig() CheckConfig {
	return CheckConfig{
		Policy: "keyed", Clients: 2, Sessions: 2, Prompts: 5,
		Timeout: 150 * time.Millisecond, Backoff: 20 * time.Millisecond,
		MaxGap: 40 * time.Millisecond, ChaosFor: 300 * time.Millisecond,
		StartTimeout: 5 * time.Second, Cap: 60 * time.Second,
		Rates:    CheckRates(),
		Contract: traces.Contract{Retention: "all", LiveOnly: []string{}},
	}
}

// CheckResult is one run's trace, its fault tally and, when the Agent broke
// the transport itself, what it did.
type CheckResult struct {
	Log    *traces.Log
	Faults []sim.KindCount
	Broken *BrokenAgent
}

// BrokenAgent is an Agent failing below the properties: it cannot be talked
// to at all, so the run was stopped.
type BrokenAgent struct {
	Kind    string // one of the Broken* kinds
	Process string // the Agent process ("a1#3")
	Detail  string // in plain words, with what it wrote or said
}

func (b *BrokenAgent) Error() string { return b.Detail }

// Kinds of BrokenAgent.
const (
	BrokenExitedAtStart = "exited-at-start"
	BrokenNotJSON       = "not-json"
	BrokenNotJSONRPC    = "not-jsonrpc"
	BrokenInitError     = "initialize-error"
	BrokenNoAnswer      = "no-answer"
	BrokenUnknownID     = "unknown-id"
	BrokenStdin         = "not-reading"
)

// AgentName is the Agent installation's name in traces: its processes are
// a1#1, a1#2, … in the order they start.
const AgentName = "a1"

// Check runs one seed against the real Agent. An error means acpsim could
// not run it at all (the command cannot be started, a bad config); an Agent
// that misbehaves gives a result with Broken set.
func Check(cfg CheckConfig) (*CheckResult, error) {
	pol, err := client.LookupPolicy(cfg.Policy)
	if err != nil {
		return nil, err
	}
	if len(cfg.Agent) == 0 && len(cfg.URLs) == 0 {
		return nil, errors.New("no Agent command: give it after --, or --url")
	}
	if cfg.Clients < 1 || cfg.Sessions < 1 || cfg.Prompts < 0 {
		return nil, fmt.Errorf("clients %d, sessions %d, prompts %d: expected at least 1, 1 and 0", cfg.Clients, cfg.Sessions, cfg.Prompts)
	}
	d := newDriver(cfg, pol)
	return d.run()
}

// driver is one run in progress. Everything it owns is touched only by the
// goroutine in run; the Agent processes' readers and the timers post
// closures to inbox.
type driver struct {
	cfg    CheckConfig
	start  time.Time
	inbox  chan func()
	done   chan struct{}
	log    *traces.Log
	faults *sim.Recorder
	ids    *sim.IDs

	clients []*rclient
	links   []*rlink // every link ever opened, in order
	procs   int      // Agent processes started
	live    int      // Agent processes not yet reaped

	warming, healing, stopping, finished bool
	phase                                func() // checked on every tick until the run ends
	lastActivity                         time.Time
	broken                               *BrokenAgent
	fatal                                error
	timers                               []*time.Timer
	observer                             *client.Observer
	// sessions are the sessions this run's Clients created or forked: the
	// observer reads only those (the store may hold other runs' too).
	sessions map[string]bool
	// incarnation counts the remote kills (restarts) of each URL's Agent.
	incarnation []int
	observerTry int
	restarting  bool // a --restart command is running
	pumps       sync.WaitGroup
	conns       int // remote connections opened
}

type rclient struct {
	name    string
	cfg     client.Config
	c       *client.Client // nil while the Client process is down
	link    *rlink
	steps   int
	dials   int
	waiting []func()
}

// rlink is one connection through the fault proxy.
type rlink struct {
	name          string
	client, agent string
	cn            *rclient // nil for the observer's link
	c             *client.Client
	conn          Conn
	proc          *Process // stdio: the Agent process the link is
	node          int      // remote: the index in URLs
	sendq         chan []byte
	alive         bool   // carries frames
	gone          string // the Agent side ended; a2c frames still drain
	cutBy         string // the proxy ended it: later Agent output is not read
	killed        bool
	seq           [2]int
	queue         [2][]*rframe
	last          [2]time.Time
	methods       map[acp.ID]string // requests the Client side sent, by id
	initID        acp.ID
	initAnswered  bool
	sentInit      []byte
	lastA2C       []byte // the last line the Agent wrote, for a hung Agent's verdict
	linesA2C      int
}

type rframe struct {
	bytes []byte
	sub   string
	ready bool
	done  bool
	kill  time.Duration // c2a: SIGKILL this long after writing it (-1: none)
}

const (
	dirC2A = 0
	dirA2C = 1
)

var dirNames = [2]string{traces.ClientToAgent, traces.AgentToClient}

func newDriver(cfg CheckConfig, pol client.Policy) *driver {
	d := &driver{cfg: cfg, inbox: make(chan func(), 4096), done: make(chan struct{}), log: &traces.Log{}, ids: sim.NewIDs(cfg.Seed), sessions: map[string]bool{}, incarnation: make([]int, len(cfg.URLs))}
	chooser, source := cfg.Chooser, traces.SourceSchedule
	if chooser == nil {
		chooser, source = sim.NewSeeded(cfg.Seed, cfg.Rates), traces.SourceSeed
	}
	d.faults = &sim.Recorder{Inner: chooser, OnFault: func(c sim.Choice) {
		d.record(traces.Event{Kind: traces.KindChoose, Decision: c.Kind, Site: c.Site, Option: c.Option})
	}}
	label, link := cfg.AgentLabel, "stdio"
	if label == "" {
		label = strings.Join(cfg.Agent, " ")
	}
	if len(cfg.URLs) > 0 {
		label, link = strings.Join(cfg.URLs, " "), "remote"
	}
	d.log.Header = traces.Header{
		Format: traces.FormatVersion, Tool: "acpsim check", Source: source, Seed: cfg.Seed,
		Policy: cfg.Policy, Agent: label, Link: link,
		Clients: cfg.Clients, Sessions: cfg.Sessions, Prompts: cfg.Prompts,
		Actions: fmt.Sprintf("cancels=%d closes=%d forks=%d", cfg.Cancels, cfg.Closes, cfg.Forks),
		Rates:   cfg.Rates, Knobs: map[string]string{}, Contract: cfg.Contract,
		KeyLengthUnit: acp.KeyLengthUnit, Command: cfg.Command, Observed: traces.ObservedAtProxy,
	}
	if d.log.Header.Actions == "cancels=0 closes=0 forks=0" {
		d.log.Header.Actions = ""
	}
	env := client.Env{NewID: d.ids.UUID, IntN: d.ids.IntN, Now: func() time.Duration { return time.Since(d.start) }}
	for i := range cfg.Clients {
		name := fmt.Sprintf("c%d", i+1)
		cc := client.Config{Name: name, Policy: pol, Sessions: cfg.Sessions, Cwd: "/work/" + name,
			Timeout: cfg.Timeout, Backoff: cfg.Backoff}
		d.clients = append(d.clients, &rclient{name: name, cfg: cc, c: client.New(cc, env)})
	}
	return d
}

func (d *driver) record(e traces.Event) {
	e.T = int64(time.Since(d.start) / time.Microsecond)
	d.log.Append(e)
	d.lastActivity = time.Now()
}

func (d *driver) choose(dec sim.Decision) int {
	if d.warming || d.healing || d.stopping {
		return 0
	}
	return d.faults.Choose(dec)
}

// post hands fn to the driver's goroutine; after the run it is dropped.
func (d *driver) post(fn func()) {
	select {
	case d.inbox <- fn:
	case <-d.done:
	}
}

// after runs fn on the driver's goroutine after wait.
func (d *driver) after(wait time.Duration, fn func()) {
	d.timers = append(d.timers, time.AfterFunc(wait, func() { d.post(fn) }))
}

func (d *driver) run() (*CheckResult, error) {
	d.start = time.Now()
	d.lastActivity = d.start
	defer d.shutdown()
	evs := users.Draw(d.ids, users.Spec{Clients: d.cfg.Clients, Prompts: d.cfg.Prompts, Sessions: d.cfg.Sessions,
		Forks: d.cfg.Forks, Cancels: d.cfg.Cancels, Closes: d.cfg.Closes, MaxGap: d.cfg.MaxGap})
	// The users start once every Client's first connection is up, so a
	// slow-starting Agent (node takes half a second) meets the same
	// scenario as a fast one; until then no faults.
	d.warming = true
	d.phase = func() {
		for _, cn := range d.clients {
			if cn.link == nil || !cn.link.initAnswered {
				return
			}
		}
		d.warming = false
		for _, e := range evs {
			d.after(e.At, d.userEvent(e))
		}
		healAt := time.Now().Add(users.Last(evs) + d.cfg.ChaosFor)
		d.phase = func() {
			if time.Now().After(healAt) {
				d.heal()
			}
		}
	}
	for _, cn := range d.clients {
		d.applyClient(cn, cn.c.Start())
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !d.finished {
		select {
		case fn := <-d.inbox:
			fn()
		case <-tick.C:
			if time.Since(d.start) > d.cfg.Cap {
				d.finish(traces.EndCap)
				break
			}
			d.phase()
		}
		if d.fatal != nil {
			return nil, d.fatal
		}
		if d.broken != nil && !d.finished {
			d.finish(traces.EndCap)
		}
	}
	return &CheckResult{Log: d.log, Faults: d.faults.Tally(), Broken: d.broken}, nil
}

// userEvent is what a model user does at e.At.
func (d *driver) userEvent(e users.Event) func() {
	cn := d.clients[e.Client]
	if e.Action != users.Submit {
		return func() {
			if cn.c == nil || d.stopping {
				return
			}
			var outs []client.Output
			switch e.Action {
			case users.Cancel:
				outs = cn.c.Cancel(e.Sess, e.Alt)
			case users.Close:
				outs = cn.c.Close(e.Sess)
			case users.Fork:
				outs = cn.c.Fork(e.Sess)
			}
			d.applyClient(cn, outs)
		}
	}
	var submit func()
	submit = func() {
		if cn.c == nil {
			cn.waiting = append(cn.waiting, submit)
			return
		}
		d.record(traces.Event{Kind: traces.KindSubmit, Client: cn.name, Sub: e.Sub, Text: e.Text})
		d.applyClient(cn, cn.c.Submit(e.Sub, e.Text, e.Sess))
	}
	return submit
}

// heal ends the chaos: no more faults; the run goes on until every
// submission has an outcome and nothing has happened for a while.
func (d *driver) heal() {
	d.healing = true
	d.record(traces.Event{Kind: traces.KindHeal})
	d.phase = func() {
		if d.busy() || time.Since(d.lastActivity) < d.cfg.Timeout {
			return
		}
		d.stopClients()
	}
}

func (d *driver) busy() bool {
	for _, cn := range d.clients {
		if cn.c == nil || cn.c.Pending() {
			return true
		}
	}
	for _, l := range d.links {
		if l.alive && (len(l.queue[dirC2A]) > 0 || len(l.queue[dirA2C]) > 0) {
			return true
		}
	}
	return false
}

// stopClients closes every Client's connection; once every Agent process has
// exited, the observer starts a fresh one and reads the transcript.
func (d *driver) stopClients() {
	d.stopping = true
	for _, l := range d.links {
		if l.alive {
			d.endLink(l, "close", false)
		}
	}
	waitFrom := time.Now()
	d.phase = func() {
		if d.live > 0 {
			if time.Since(waitFrom) > 2*time.Second {
				d.killAll() // a process that ignores end of file on stdin
			}
			return
		}
		d.observe(1)
	}
}

// maxObserverTries bounds how often the observer starts over after its
// initialize failed.
const maxObserverTries = 5

func (d *driver) observe(try int) {
	d.observerTry = try
	if len(d.cfg.URLs) > 0 {
		d.phase = func() {}
		d.dial(nil, nil, time.Now())
		return
	}
	l, err := d.spawn(nil, traces.Observer)
	if err != nil {
		d.fatal = err
		return
	}
	d.observerConnected(l)
}

func (d *driver) observerConnected(l *rlink) {
	try := d.observerTry
	d.observer = client.NewObserver("/")
	d.observer.Only = func(id string) bool { return d.sessions[id] }
	d.applyObserver(l, d.observer.Connected(l.name), try)
	d.phase = func() {
		if d.observer.Done() && time.Since(d.lastActivity) >= d.cfg.Timeout {
			d.endLink(l, "close", false)
			d.phase = func() {
				if d.live == 0 {
					d.finish(traces.EndQuiet)
				}
			}
		}
	}
}

func (d *driver) applyObserver(l *rlink, outs []client.Output, try int) {
	for _, o := range outs {
		switch o.Kind {
		case client.OutSend:
			d.c2a(l, o.Frame, "")
		case client.OutHangup:
			d.endLink(l, "hangup", false)
			if try < maxObserverTries {
				d.after(d.cfg.Backoff, func() { d.observe(try + 1) })
			} else {
				d.phase = func() {
					if d.live == 0 {
						d.finish(traces.EndCap)
					}
				}
			}
		}
	}
}

// finish ends the run: every process is killed, the end event written.
func (d *driver) finish(end string) {
	if d.finished {
		return
	}
	d.finished = true
	d.stopping = true
	d.record(traces.Event{Kind: traces.KindEnd, Note: end})
}

func (d *driver) killAll() {
	for _, l := range d.links {
		if l.proc != nil && l.proc.Status() == "" {
			l.proc.Kill()
		}
	}
}

// shutdown leaves nothing running: processes killed and reaped, timers
// stopped, posts after this dropped.
func (d *driver) shutdown() {
	close(d.done)
	for _, t := range d.timers {
		t.Stop()
	}
	d.killAll()
	for _, l := range d.links {
		if l.alive {
			l.alive = false
			_ = l.conn.Close()
			if l.sendq != nil {
				close(l.sendq)
			}
		}
	}
	for _, l := range d.links {
		if l.proc != nil {
			<-l.proc.Exited()
		}
	}
	// Every pump ends once its Conn has: nothing of this run outlives it.
	waitFor(&d.pumps, 5*time.Second)
}

func waitFor(wg *sync.WaitGroup, limit time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
	}
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
				d.c2a(l, o.Frame, o.Sub)
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

// restartClient kills the model Client and starts it again from what it
// persisted; its connection (and so its Agent process) ends with it.
func (d *driver) restartClient(cn *rclient) {
	saved := cn.c.Persisted()
	env := client.Env{NewID: d.ids.UUID, IntN: d.ids.IntN, Now: func() time.Duration { return time.Since(d.start) }}
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

// dial opens a remote connection for cn (nil: the observer, on the first
// URL). Dialing waits on the network, so it runs beside the loop; a failed
// dial is tried again after the backoff until StartTimeout has passed.
func (d *driver) dial(cn *rclient, c *client.Client, since time.Time) {
	node, from := 0, traces.Observer
	if cn != nil {
		from = cn.name
		if len(d.cfg.URLs) > 1 {
			cn.dials++
			node = d.choose(sim.Decision{Kind: netfault.Route, Site: cn.name + "/dial/" + strconv.Itoa(cn.dials), N: len(d.cfg.URLs)})
		}
	}
	u := d.cfg.URLs[node]
	if cn == nil {
		// Over Streamable HTTP a resume's replay (session stream) and its
		// response (connection stream) race, and the observer would read
		// the transcript before it arrived. Every remote Agent serves
		// WebSocket on the same endpoint, where they keep their order.
		u = wsURL(u)
	}
	opts := DialOptions{Timeout: d.cfg.StartTimeout}
	go func() {
		conn, err := Dial(context.Background(), u, opts)
		d.post(func() {
			switch {
			case d.finished:
				if conn != nil {
					_ = conn.Close()
				}
			case err != nil:
				if time.Since(since) > d.cfg.StartTimeout {
					d.broken = &BrokenAgent{Kind: BrokenNoAnswer, Process: u, Detail: fmt.Sprintf("cannot connect to %s for %v: %v", u, d.cfg.StartTimeout, err)}
					return
				}
				d.after(d.cfg.Backoff, func() { d.dial(cn, c, since) })
			case cn == nil:
				d.observerConnected(d.remoteLink(nil, from, node, conn))
			case cn.c == c && !d.stopping:
				l := d.remoteLink(cn, from, node, conn)
				cn.link = l
				d.applyClient(cn, l.c.Connected(l.name))
			default:
				_ = conn.Close() // the Client restarted meanwhile
			}
		})
	}()
}

// remoteLink starts the proxy's side of a remote connection.
func (d *driver) remoteLink(cn *rclient, from string, node int, conn Conn) *rlink {
	agent := fmt.Sprintf("a%d#%d", node+1, d.incarnation[node]+1)
	d.conns++
	l := &rlink{name: fmt.Sprintf("%s>%s/k%d", from, agent, d.conns), client: from, agent: agent, cn: cn, conn: conn, node: node,
		alive: true, methods: map[acp.ID]string{}, sendq: make(chan []byte, sendQueue)}
	if cn != nil {
		l.c = cn.c
	}
	d.links = append(d.links, l)
	d.record(traces.Event{Kind: traces.KindConnect, Link: l.name, From: from, To: agent, Note: conn.Name()})
	d.pump(l)
	// Sends wait on the network (a POST and its status), so they run in
	// order beside the loop; an error there ends nothing by itself: a lost
	// connection shows as Frames closing.
	go func() {
		first := true
		for f := range l.sendq {
			err := conn.Send(f)
			if err != nil && first {
				// initialize never reached the Agent (it is down or
				// restarting): the Client tries a new connection.
				d.post(func() {
					if l.alive {
						d.endLink(l, "refused: "+err.Error(), true)
					}
				})
			}
			first = false
		}
	}()
	return l
}

// pump forwards what the Agent writes on l to the loop.
func (d *driver) pump(l *rlink) {
	d.pumps.Add(1)
	go func() {
		defer d.pumps.Done()
		for f := range l.conn.Frames() {
			d.post(func() { d.a2c(l, f) })
		}
		d.post(func() { d.agentEnded(l) })
	}()
}

// spawn starts an Agent process and its link; cn is nil for the observer.
func (d *driver) spawn(cn *rclient, from string) (*rlink, error) {
	d.procs++
	name := fmt.Sprintf("%s#%d", AgentName, d.procs)
	link := from + ":" + name
	p, err := StartProcess(link, d.cfg.Agent, d.cfg.Env)
	if err != nil {
		return nil, fmt.Errorf("cannot start the Agent %q: %v", strings.Join(d.cfg.Agent, " "), err)
	}
	d.live++
	l := &rlink{name: link, client: from, agent: name, cn: cn, conn: p, proc: p, alive: true, methods: map[acp.ID]string{}}
	if cn != nil {
		l.c = cn.c
	}
	d.links = append(d.links, l)
	d.record(traces.Event{Kind: traces.KindRestart, From: name})
	d.record(traces.Event{Kind: traces.KindConnect, Link: link, From: from, To: name})
	d.pump(l)
	return l, nil
}

func (d *driver) event(kind string, l *rlink, dir int, f *rframe, note string) {
	from, to := l.client, l.agent
	if dir == dirA2C {
		from, to = to, from
	}
	d.record(traces.Event{Kind: kind, Link: l.name, From: from, To: to, Dir: dirNames[dir], Frame: string(f.bytes), Sub: f.sub, Note: note})
}

// c2a is the Client side writing frame on l.
func (d *driver) c2a(l *rlink, frame []byte, sub string) {
	f := &rframe{bytes: frame, sub: sub, kill: -1}
	if !l.alive || l.gone != "" {
		d.event(traces.KindDrop, l, dirC2A, f, "pipe closed")
		return
	}
	d.event(traces.KindSend, l, dirC2A, f, "")
	prompt := false
	for _, e := range acp.ParseLine(frame).Entries {
		if e.Err == nil && e.Msg.Kind() == acp.KindRequest {
			l.methods[e.Msg.ID] = e.Msg.Method
			if e.Msg.Method == acp.MethodInitialize {
				l.initID, l.sentInit = e.Msg.ID, frame
				d.after(d.cfg.StartTimeout, func() { d.initTimeout(l) })
			}
			prompt = prompt || e.Msg.Method == acp.MethodSessionPrompt
		}
	}
	l.seq[dirC2A]++
	site := l.name + "/c2a/" + strconv.Itoa(l.seq[dirC2A])
	if d.choose(sim.Decision{Kind: netfault.Cut, Site: site, N: 2}) != 0 {
		l.queue[dirC2A] = append(l.queue[dirC2A], f)
		d.endLink(l, "cut", true)
		return
	}
	if prompt {
		if k := d.choose(sim.Decision{Kind: netfault.Kill, Site: site, N: len(KillAfter)}); k != 0 {
			f.kill = KillAfter[k]
		}
	}
	d.enqueue(l, dirC2A, f, CheckDelays[d.choose(sim.Decision{Kind: netfault.Delay, Site: site, N: len(CheckDelays)})])
}

// a2c is a frame the Agent process wrote.
func (d *driver) a2c(l *rlink, frame []byte) {
	f := &rframe{bytes: frame, kill: -1}
	l.lastA2C, l.linesA2C = frame, l.linesA2C+1
	d.event(traces.KindSend, l, dirA2C, f, "")
	if l.cutBy != "" || !l.alive {
		why := l.cutBy
		if why == "" {
			why = "pipe closed"
		}
		d.event(traces.KindDrop, l, dirA2C, f, why)
		return
	}
	line := acp.ParseLine(frame)
	if b := d.brokenFrame(l, frame, line); b != nil {
		d.broken = b
		return
	}
	exempt := false // responses the model Client cannot recover from losing
	for _, e := range line.Entries {
		if e.Msg.Kind() != acp.KindResponse {
			continue
		}
		switch l.methods[e.Msg.ID] {
		case acp.MethodInitialize, acp.MethodAuthLogin:
			exempt = true
		case acp.MethodSessionNew, acp.MethodSessionFork:
			var res acp.NewSessionResult
			if e.Msg.Error == nil && json.Unmarshal(e.Msg.Result, &res) == nil && res.SessionID != "" {
				d.sessions[res.SessionID] = true
			}
		}
	}
	l.seq[dirA2C]++
	site := l.name + "/a2c/" + strconv.Itoa(l.seq[dirA2C])
	if !exempt && l.cn != nil {
		if d.choose(sim.Decision{Kind: netfault.Kill, Site: site, N: 2}) != 0 {
			d.event(traces.KindDrop, l, dirA2C, f, "killed")
			d.kill(l, "as a2c frame "+strconv.Itoa(l.seq[dirA2C])+" passed")
			return
		}
		if d.choose(sim.Decision{Kind: netfault.Cut, Site: site, N: 2}) != 0 {
			l.queue[dirA2C] = append(l.queue[dirA2C], f)
			d.endLink(l, "cut", true)
			return
		}
		if d.choose(sim.Decision{Kind: ProxyDrop, Site: site, N: 2}) != 0 {
			d.event(traces.KindDrop, l, dirA2C, f, "proxy-drop")
			return
		}
	}
	extra := time.Duration(0)
	if !exempt {
		extra = CheckDelays[d.choose(sim.Decision{Kind: netfault.Delay, Site: site, N: len(CheckDelays)})]
	}
	d.enqueue(l, dirA2C, f, extra)
}

// brokenFrame checks what no Agent may write on stdout: not JSON, not
// JSON-RPC, an answer to a request never sent, an error for initialize.
func (d *driver) brokenFrame(l *rlink, frame []byte, line acp.Line) *BrokenAgent {
	b := &BrokenAgent{Process: l.agent}
	for _, e := range line.Entries {
		if e.Err != nil {
			b.Kind, b.Detail = BrokenNotJSONRPC, fmt.Sprintf("the Agent wrote %s on stdout, which is not a JSON-RPC 2.0 message (%v); stdout must carry only ACP messages", quote(frame), e.Err.Message)
			if e.Err.Code == acp.CodeParseError {
				b.Kind, b.Detail = BrokenNotJSON, fmt.Sprintf("the Agent wrote %s on stdout, which is not JSON; stdout must carry only ACP messages (logs go to stderr)", quote(frame))
			}
			return b
		}
		if e.Msg.Kind() != acp.KindResponse {
			continue
		}
		m, ok := l.methods[e.Msg.ID]
		if !ok {
			b.Kind, b.Detail = BrokenUnknownID, fmt.Sprintf("the Agent answered request id %s, which this connection never sent: %s", e.Msg.ID, quote(frame))
			return b
		}
		if m == acp.MethodInitialize {
			l.initAnswered = true
			if e.Msg.Error != nil {
				b.Kind, b.Detail = BrokenInitError, fmt.Sprintf("the Agent answered initialize with error %d %q", e.Msg.Error.Code, e.Msg.Error.Message)
				return b
			}
		}
	}
	return nil
}

func quote(frame []byte) string {
	const max = 200
	if len(frame) > max {
		return strconv.Quote(string(frame[:max])) + "…"
	}
	return strconv.Quote(string(frame))
}

func (d *driver) initTimeout(l *rlink) {
	if l.initAnswered || !l.alive || l.gone != "" || l.cutBy != "" || d.broken != nil {
		return
	}
	if d.restarting {
		// The remote Agent is being restarted: its silence is the restart's.
		d.after(d.cfg.StartTimeout, func() { d.initTimeout(l) })
		return
	}
	wrote := "it wrote nothing on stdout"
	if l.linesA2C > 0 {
		wrote = fmt.Sprintf("it wrote %d line(s) on stdout, the last %s", l.linesA2C, quote(l.lastA2C))
		if bytes.Equal(l.lastA2C, l.sentInit) {
			wrote += ": the initialize request it was sent, echoed back"
		}
	}
	d.broken = &BrokenAgent{Kind: BrokenNoAnswer, Process: l.agent,
		Detail: fmt.Sprintf("the Agent did not answer initialize within %v; %s", d.cfg.StartTimeout, wrote)}
}

// enqueue sends f on after extra; frames of one direction never overtake
// each other, as on a pipe.
func (d *driver) enqueue(l *rlink, dir int, f *rframe, extra time.Duration) {
	q := l.queue[dir]
	if extra == 0 && len(q) == 0 {
		d.arrive(l, dir, f)
		return
	}
	at := time.Now().Add(extra)
	if at.Before(l.last[dir]) {
		at = l.last[dir]
	}
	l.last[dir] = at
	l.queue[dir] = append(q, f)
	d.after(time.Until(at), func() {
		f.ready = true
		d.flush(l, dir)
	})
}

func (d *driver) flush(l *rlink, dir int) {
	for len(l.queue[dir]) > 0 && l.queue[dir][0].ready {
		f := l.queue[dir][0]
		l.queue[dir] = l.queue[dir][1:]
		d.arrive(l, dir, f)
	}
	if dir == dirA2C && l.gone != "" && len(l.queue[dirA2C]) == 0 {
		d.endLink(l, l.gone, true) // the Client reads end of file after the last frame
	}
}

func (d *driver) arrive(l *rlink, dir int, f *rframe) {
	if f.done || !l.alive {
		return
	}
	f.done = true
	if dir == dirC2A && l.proc == nil {
		d.event(traces.KindDeliver, l, dir, f, "")
		select {
		case l.sendq <- f.bytes:
		default:
			d.broken = &BrokenAgent{Kind: BrokenStdin, Process: l.agent, Detail: fmt.Sprintf("the Agent at %s does not take requests (%d waiting)", d.cfg.URLs[l.node], sendQueue)}
		}
		if f.kill >= 0 {
			d.after(f.kill, func() { d.kill(l, "after a prompt was written to it") })
		}
		return
	}
	if dir == dirC2A {
		if err := l.proc.Send(f.bytes); err != nil {
			d.event(traces.KindDrop, l, dir, f, err.Error())
			if errors.Is(err, ErrNotReading) {
				d.broken = &BrokenAgent{Kind: BrokenStdin, Process: l.agent, Detail: err.Error()}
			}
			return
		}
		d.event(traces.KindDeliver, l, dir, f, "")
		if f.kill >= 0 {
			d.after(f.kill, func() { d.kill(l, "after a prompt was written to it") })
		}
		return
	}
	d.event(traces.KindDeliver, l, dir, f, "")
	switch {
	case l.cn == nil:
		d.applyObserver(l, d.observer.Receive(l.name, f.bytes), 0)
	case l.cn.c == l.c:
		d.applyClient(l.cn, l.c.Receive(l.name, f.bytes))
	}
}

// kill sends SIGKILL to l's Agent process. What it wrote before and the
// proxy has not read yet is lost with it.
func (d *driver) kill(l *rlink, why string) {
	if l.proc == nil {
		d.restartRemote(l, why)
		return
	}
	if l.killed || l.proc.Status() != "" || l.cutBy != "" {
		return
	}
	l.killed = true
	d.record(traces.Event{Kind: traces.KindKill, From: l.agent, Note: "SIGKILL " + why})
	l.proc.Kill()
	if l.alive {
		d.endLink(l, "kill", true)
	}
}

// endLink ends l now. by says the proxy or the Client ended it (the Agent's
// later output is not read); tell says the Client hears of it.
func (d *driver) endLink(l *rlink, why string, tell bool) {
	if !l.alive {
		return
	}
	l.alive = false
	if l.cutBy == "" {
		l.cutBy = why
	}
	for dir := range l.queue {
		for _, f := range l.queue[dir] {
			if !f.done {
				f.done = true
				d.event(traces.KindDrop, l, dir, f, why)
			}
		}
		l.queue[dir] = nil
	}
	d.record(traces.Event{Kind: traces.KindDisconnect, Link: l.name, From: l.client, To: l.agent, Note: why})
	_ = l.conn.Close()
	if l.sendq != nil {
		close(l.sendq)
	}
	if p := l.proc; p != nil && !l.killed {
		d.after(2*time.Second, func() {
			if p.Status() == "" {
				p.Kill() // it ignored end of file on stdin
			}
		})
	}
	if tell && l.cn != nil && l.cn.c == l.c && !d.stopping {
		d.applyClient(l.cn, l.c.Disconnected(l.name))
	}
}

// agentEnded is l's Agent process gone and its output read to the end.
func (d *driver) agentEnded(l *rlink) {
	note := "connection ended: " + fmt.Sprint(l.conn.Err())
	if l.proc != nil {
		d.live--
		status, stderr := l.proc.Status(), lastLine(l.proc.Stderr())
		note = "exited: " + status
		if stderr != "" {
			note += ": " + stderr
		}
		if !l.killed {
			d.record(traces.Event{Kind: traces.KindKill, From: l.agent, Note: note})
		}
	}
	if !l.initAnswered && l.cutBy == "" && !l.killed && d.broken == nil && l.proc != nil {
		d.broken = &BrokenAgent{Kind: BrokenExitedAtStart, Process: l.agent,
			Detail: fmt.Sprintf("the Agent exited before it answered initialize (%s)", strings.TrimPrefix(note, "exited: "))}
	}
	if !l.alive {
		return
	}
	l.gone = "exit"
	for _, f := range l.queue[dirC2A] {
		if !f.done {
			f.done = true
			d.event(traces.KindDrop, l, dirC2A, f, "exit")
		}
	}
	l.queue[dirC2A] = nil
	if len(l.queue[dirA2C]) == 0 {
		d.endLink(l, "exit", true)
	}
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// restartRemote is the remote kill: without --restart the proxy can only
// break the connection; with it, the Agent behind the link's URL is killed
// and started again by the user's command, and every connection to it ends.
func (d *driver) restartRemote(l *rlink, why string) {
	if !l.alive {
		return
	}
	if d.cfg.Restart == "" || d.restarting {
		d.endLink(l, "cut", true)
		return
	}
	d.restarting = true
	node, u := l.node, d.cfg.URLs[l.node]
	d.record(traces.Event{Kind: traces.KindKill, From: l.agent, Note: "restart command " + why})
	for _, x := range d.links {
		if x.alive && x.proc == nil && x.node == node {
			d.endLink(x, "kill", true)
		}
	}
	d.incarnation[node]++
	name := fmt.Sprintf("a%d#%d", node+1, d.incarnation[node]+1)
	cmd := exec.Command("sh", "-c", d.cfg.Restart)
	cmd.Env = append(append([]string{}, d.cfg.Env...), fmt.Sprintf("ACPSIM_NODE=%d", node), "ACPSIM_URL="+u)
	if d.cfg.Env == nil {
		cmd.Env = append(os.Environ(), cmd.Env...)
	}
	go func() {
		out, err := cmd.CombinedOutput()
		d.post(func() {
			d.restarting = false
			if err != nil {
				d.fatal = fmt.Errorf("--restart %q for %s: %v: %s", d.cfg.Restart, u, err, lastLine(strings.TrimSpace(string(out))))
				return
			}
			d.record(traces.Event{Kind: traces.KindRestart, From: name})
		})
	}()
}

// wsURL is the WebSocket form of a remote endpoint's URL.
func wsURL(u string) string {
	switch {
	case strings.HasPrefix(u, "http://"):
		return "ws://" + strings.TrimPrefix(u, "http://")
	case strings.HasPrefix(u, "https://"):
		return "wss://" + strings.TrimPrefix(u, "https://")
	}
	return u
}
