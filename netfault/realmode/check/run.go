// The driver of one acpsim check run: its state, the event loop every
// goroutine posts to, and the run's phases (warm-up, the users' events,
// heal, stopping the Clients) up to the shutdown.

package check

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// driver is one run in progress. Everything it owns is touched only by the
// goroutine in run; the Agent processes' readers and the timers post
// closures to inbox.
type driver struct {
	cfg    Config
	start  time.Time
	inbox  chan func()
	done   chan struct{}
	log    *traces.Log
	faults *sim.Recorder
	ids    *sim.IDs

	clients []*rclient
	// texts counts, per Client, the submissions of each text in the
	// scenario: only a text typed once may go unkeyed (MayOmitKey).
	texts []map[string]int
	links []*rlink // every link ever opened, in order
	procs int      // Agent processes started
	live  int      // Agent processes not yet reaped

	warming, healing, stopping, finished bool
	// deadline ends the current phase at the cap: the chaos at Cap, then
	// the heal and the observer each at an allowance of their own (cut).
	deadline time.Time
	// capped: some phase hit its deadline, so the run ends "cap"; usersDone:
	// the chaos was cut, and the users type nothing more.
	capped, usersDone bool
	phase             func()        // checked on every tick until the run ends
	lastActivity      time.Duration // on the run's clock (now)
	broken            *BrokenAgent
	fatal             error
	timers            []*time.Timer
	observer          *client.Observer
	// sessions are the sessions this run's Clients created or forked: the
	// observer reads only those (the store may hold other runs' too).
	sessions map[string]bool
	// incarnation counts the remote kills (restarts) of each URL's Agent.
	incarnation []int
	observerTry int
	restarting  bool // a --restart command is running
	pumps       sync.WaitGroup
	conns       int // remote connections opened
	// The virtual clock (clock.go): its time, its steps due, and
	// when the Agent was last heard from or given something; inflight
	// counts connections and restarts under way beside the loop.
	vnow     time.Duration
	vseq     int
	vq       vtimers
	heard    time.Time
	inflight int
	// idleSteps counts the virtual clock's steps in a row with nothing due.
	idleSteps int
	// overlapSite is the Agent's last pause with an answer owed, and
	// overlapGo whether the clock takes one step in it.
	overlapSite string
	overlapGo   bool
	// overlapLink is the link whose Agent pauses there, poked the link
	// whose Agent was last given something.
	overlapLink, poked *rlink
	// bursting is set while the clock runs through overlapLink's pause;
	// deferred are the other links whose frames wait until it settles.
	bursting bool
	deferred []deferredFrame
	// observerHTTP: the remote endpoint refused WebSocket, so the
	// observer reads over Streamable HTTP.
	observerHTTP bool
}

func newDriver(cfg Config, pol client.Policy) *driver {
	d := &driver{cfg: cfg, inbox: make(chan func(), 4096), done: make(chan struct{}), log: &traces.Log{}, ids: sim.NewIDs(cfg.Seed), sessions: map[string]bool{}, incarnation: make([]int, len(cfg.URLs))}
	chooser, source := cfg.Chooser, traces.SourceSchedule
	switch {
	case chooser != nil:
	case cfg.Clock == ClockWall:
		chooser, source = sim.NewSeeded(cfg.Seed, cfg.Rates), traces.SourceSeed
	default:
		// Site by site: two Agent processes answering side by side ask
		// their decisions in either order, and get the same choices.
		chooser, source = sim.BySite{Seed: cfg.Seed, Rates: cfg.Rates}, traces.SourceSeed
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
	} else if cfg.CancelBy != "" {
		d.log.Header.Actions += " cancel-by=" + cfg.CancelBy
	}
	for i := range cfg.Clients {
		name := fmt.Sprintf("c%d", i+1)
		cc := client.Config{Name: name, Policy: pol, Sessions: cfg.Sessions, Cwd: "/work/" + name,
			Timeout: cfg.Timeout, Backoff: cfg.Backoff, StallWaitOneIn: checkStallWaitOneIn, IDStyles: true, UnkeyedOneIn: checkUnkeyedOneIn,
			MayOmitKey: func(text string) bool { return d.texts[i][text] == 1 }, Protocol: cfg.Protocol}
		cn := &rclient{name: name, cfg: cc, ids: sim.NewNamedIDs(cfg.Seed, "client/"+name)}
		cn.c = client.New(cc, d.clientEnv(cn))
		d.clients = append(d.clients, cn)
	}
	return d
}

// checkStallWaitOneIn: every $/cancel_request user of a check seed waits
// for a stalled prompt first (the simulator's users: one in three). A check
// runs few seeds; with one in three, check --seeds 60 caught an Agent that
// withdraws only the named attempt of a key in 3 seeds of 60 or fewer.
const checkStallWaitOneIn = 1

// checkUnkeyedOneIn: a check Client sends one submission in this many
// without a key (omitted or null), so a hop that turns an omitted key into
// "" or a null into something else shows, as an Agent's -32602 to a legal
// prompt. Only a submission whose text its Client types once may go
// unkeyed (MayOmitKey), so one in four of those: a proxy that empties
// omitted keys failed 15 of 20 seeds so.
const checkUnkeyedOneIn = 4

func (d *driver) record(e traces.Event) {
	t := d.now()
	e.T = int64(t / time.Microsecond)
	d.log.Append(e)
	d.lastActivity = t
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

func (d *driver) run() (*Result, error) {
	d.start = time.Now()
	d.heard = d.start
	d.deadline = d.start.Add(d.cfg.Cap)
	defer d.shutdown()
	evs := users.Draw(d.ids, users.Spec{Clients: d.cfg.Clients, Prompts: d.cfg.Prompts, Sessions: d.cfg.Sessions,
		Forks: d.cfg.Forks, Cancels: d.cfg.Cancels, Closes: d.cfg.Closes, CancelBy: d.cfg.CancelBy, MaxGap: d.cfg.MaxGap,
		DistinctTexts: d.cfg.Protocol == acp.ProtocolV1})
	evs = slices.DeleteFunc(evs, func(e users.Event) bool { return users.Skipped(e, d.cfg.Skip) })
	d.texts = make([]map[string]int, d.cfg.Clients)
	for i := range d.texts {
		d.texts[i] = map[string]int{}
	}
	for _, e := range evs {
		if e.Action == users.Submit {
			d.texts[e.Client][e.Text]++
		}
	}
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
		healAt := d.now() + users.Last(evs) + d.cfg.ChaosFor
		d.phase = func() {
			if d.now() > healAt {
				d.heal()
			}
		}
	}
	for _, cn := range d.clients {
		if d.held() {
			d.after(0, func() { d.applyClient(cn, cn.c.Start()) }) // one after another
			continue
		}
		d.applyClient(cn, cn.c.Start())
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !d.finished {
		if d.held() && d.spinning() && d.settled() {
			select {
			case fn := <-d.inbox:
				d.take(fn)
			default:
				if !d.capAt() {
					d.step()
				}
			}
		} else {
			select {
			case fn := <-d.inbox:
				d.take(fn)
			case <-tick.C:
				switch {
				case d.capAt():
				case !d.held():
					d.phase()
				case d.settled():
					d.step() // idle: one tick of virtual time per real tick
				}
			}
		}
		if d.fatal != nil {
			return nil, d.fatal
		}
		if d.broken != nil && !d.finished {
			d.finish(traces.EndCap)
		}
	}
	if d.broken != nil {
		d.broken.Path = d.cfg.Via != ""
		d.broken.Detail = proc.Printable(d.broken.Detail) // it may hold the Agent's ids, errors and bytes
	}
	return &Result{Log: d.log, Faults: d.faults.Tally(), Broken: d.broken}, nil
}

// take runs what a goroutine posted: under the virtual clock, something
// heard from the Agent's side, from which it settles again.
func (d *driver) take(fn func()) {
	d.heard = time.Now()
	fn()
}

// capAt cuts the phase at its deadline (real time under either clock: the
// cap bounds what a run costs) and reports whether the run then ended.
func (d *driver) capAt() bool {
	if time.Now().After(d.deadline) {
		d.cut()
	}
	return d.finished
}

// userEvent is what a model user does at e.At.
func (d *driver) userEvent(e users.Event) func() {
	cn := d.clients[e.Client]
	if e.Action != users.Submit {
		return func() {
			if cn.c == nil || d.stopping || d.usersDone {
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
		if d.usersDone {
			return
		}
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
		if d.busy() || d.now()-d.lastActivity < d.cfg.Timeout {
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
		// An initialize still unanswered is owed within --start-timeout
		// (initTimeout judges it then), not within the quiet timeout: a
		// Node Agent on a loaded machine takes seconds, and closing the
		// link first would call a slow start a request never answered.
		if l.alive && !l.initID.IsZero() && !l.initAnswered && l.gone == "" && l.cutBy == "" {
			return true
		}
	}
	return false
}

// stopClients closes every Client's connection; once every Agent process has
// exited, the observer starts a fresh one and reads the transcript.
func (d *driver) stopClients() {
	d.stopping = true
	if d.capped { // the observer's own allowance: it starts a fresh Agent
		d.deadline = time.Now().Add(d.cfg.Cap/4 + 2*d.cfg.StartTimeout)
	}
	if !d.readLive(d.closeClients) {
		d.closeClients()
	}
}

// closeClients closes every connection; once every Agent process has
// exited, the observer starts a fresh one and reads the transcripts.
func (d *driver) closeClients() {
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

// cut is the cap reached in the current phase. Chaos (or the warm-up) cut
// short stops the users and heals; a heal cut short stops the Clients and
// starts the observer; each gets an allowance of its own, so a run cut in
// chaos still has its transcripts read. The observer cut short ends the run.
func (d *driver) cut() {
	d.capped = true
	switch {
	case d.stopping:
		d.finish(traces.EndCap)
	case d.healing:
		d.stopClients()
	default:
		d.usersDone = true
		d.deadline = time.Now().Add(d.cfg.Cap / 4)
		d.heal()
	}
}

// finish ends the run: every process is killed, the end event written; a
// run that hit its cap in any phase ends "cap".
func (d *driver) finish(end string) {
	if d.finished {
		return
	}
	if d.capped {
		end = traces.EndCap
	}
	d.finished = true
	d.stopping = true
	d.record(traces.Event{Kind: traces.KindEnd, Note: end})
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
