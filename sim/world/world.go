package world

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// ToolVersion is written into every trace header.
const ToolVersion = "acpsim 0.1.0"

// world is one simulation in progress.
type world struct {
	cfg     Config
	loop    *sim.Loop
	faults  *sim.Recorder
	ids     *sim.IDs
	names   *sim.Names          // where ids mints: every id the run makes, with its handle
	log     *traces.Log         // nil when the run keeps no trace
	check   *properties.Checker // nil when the run is not judged
	cov     *covTracker         // nil when the run counts no coverage
	healing bool
	// events counts what Record saw, submits and delivers the submit and
	// deliver events among them: the run's size, with or without its log.
	events, submits, delivers int
	// budget is the event count the current phase stops at (allowance).
	budget int

	factory agent.Factory
	cenv    client.Env
	clients []*clientNode
	agents  []*agentNode

	// digest is what the frame an actor is writing now says (acp.Digest),
	// set around the write: the send event of those bytes carries it.
	digest *acp.Digest
	judged func(traces.Event) // Runner.judged

	httpConns map[string]*clientNode    // HTTP connection id → its Client
	wsPipes   map[string]*netfault.Pipe // WebSocket connection → its pipe
	stopping  bool                      // the run is over: dead servers stay dead
}

// Record implements netfault.Recorder. Events are numbered as they come,
// so the checker sees them in Seq order, as Check would sort them.
func (w *world) Record(e traces.Event) {
	w.events++
	e.Seq, e.T = int64(w.events), int64(w.loop.Now()/time.Microsecond)
	switch e.Kind {
	case traces.KindSubmit:
		w.submits++
	case traces.KindDeliver:
		w.delivers++
	}
	if w.log != nil {
		w.log.Append(e)
	}
	if w.check != nil {
		if e.Kind == traces.KindSend {
			e.Digest = w.digest // the checker reads it only where it describes e.Frame
		}
		if w.judged != nil {
			w.judged(e)
		}
		w.check.Add(&e)
	}
	if w.cov != nil {
		w.cov.event(&e)
	}
}

func (w *world) choose(d sim.Decision) int {
	if w.healing {
		return 0
	}
	return w.faults.Choose(d)
}

// Result is what one run produced: its trace, its size and how often each
// kind of fault was asked for and injected.
type Result struct {
	// Log is the trace; nil after JudgeOnly, which keeps none.
	Log *traces.Log
	// Events is how many events the run recorded, Submits and Delivers
	// how many of them were submissions and frame deliveries.
	Events, Submits, Delivers int
	Faults                    []sim.KindCount
	// Coverage is the coverage pairs the run hit, counted as it ran
	// (JudgeCovering, or a swarm with coverage); nil otherwise
	// (CoverageOf reads them from a Log).
	Coverage Coverage
}

// Run simulates one run and returns its trace.
func Run(cfg Config) (*Result, error) { return new(Runner).Run(cfg) }

// Runner runs seeds one after another on one goroutine, reusing the memory
// a seed needs (the event queue, the trace's events) for the next one,
// which allocating and collecting afresh for every seed of a swarm would
// spend a quarter of the seed on. Nothing else carries over: a seed's
// trace and verdict are those of Run. The zero Runner is ready to use.
type Runner struct {
	loop   sim.Loop
	events []traces.Event
	// judged, when set, sees a copy of each event as the checker does
	// (tests): a copy, so that the event itself stays on the stack.
	judged func(traces.Event)
	// names is the register the run in progress mints its ids into.
	names *sim.Names
}

// Runners lends Runners to the goroutines of a parallel loop: a seed takes
// one, and gives it back once nothing of its Verdict but the Report is
// needed. Which Runner a seed gets changes nothing in its run.
type Runners struct{ pool sync.Pool }

// Judge judges cfg on a lent Runner and hands the Verdict to use; the
// Verdict's Result must not be kept after use returns.
func (rs *Runners) Judge(cfg Config, use func(*Verdict)) error {
	return rs.lend(cfg, (*Runner).Judge, use)
}

// JudgeOnly is Judge keeping no trace (Runner.JudgeOnly).
func (rs *Runners) JudgeOnly(cfg Config, use func(*Verdict)) error {
	return rs.lend(cfg, (*Runner).JudgeOnly, use)
}

func (rs *Runners) lend(cfg Config, judge func(*Runner, Config) (*Verdict, error), use func(*Verdict)) error {
	r, _ := rs.pool.Get().(*Runner)
	if r == nil {
		r = new(Runner)
	}
	defer rs.pool.Put(r)
	v, err := judge(r, cfg)
	if err == nil {
		use(v)
	}
	return err
}

// Run simulates one run and returns its trace. The Result, its Log's
// events above all, is the Runner's memory: valid until its next Run.
func (r *Runner) Run(cfg Config) (*Result, error) {
	res, _, err := r.run(cfg, runKeep)
	return res, err
}

// What a run does besides simulating: keep its trace, judge each event as
// it is recorded (the report is then the one properties.Check gives on the
// trace, without a second pass over it, and without the trace's memory when
// it is not kept), count the coverage pairs it hits (those CoverageOf would
// read from the trace).
const (
	runKeep = 1 << iota
	runJudge
	runCover
)

func (r *Runner) run(cfg Config, what int) (*Result, *properties.Report, error) {
	keep, judge := what&runKeep != 0, what&runJudge != 0
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	r.loop.Reset()
	// About the events a seed has (20 a prompt a Client, with set-up), and
	// room for twice that in a trace kept.
	seedEvents := 20 * (cfg.Prompts + 4) * cfg.Clients
	want := 2 * seedEvents
	var events []traces.Event
	clear(r.events) // what the last seed left must not outlive it
	r.events = r.events[:0]
	if keep {
		events = r.events
		if cap(events) < want {
			events = make([]traces.Event, 0, want)
		}
	}
	pol, _ := client.LookupPolicy(cfg.Policy)
	factory, _ := agent.Lookup(cfg.Agent)
	if cfg.Factory != nil {
		factory = cfg.Factory
	}
	factory = proxy.Wrap(factory, cfg.Proxies, cfg.ProxyMode)
	chooser := cfg.Chooser
	source := traces.SourceSchedule
	if chooser == nil {
		chooser = sim.NewSeeded(cfg.Seed, cfg.Rates)
		source = traces.SourceSeed
	}
	// The header is whole before the first event: the checker reads it
	// from the start.
	h := traces.Header{
		Format: traces.FormatVersion, Tool: ToolVersion, Source: source, Seed: cfg.Seed,
		Policy: cfg.Policy, Agent: cfg.Agent, Link: cfg.Link,
		Clients: cfg.Clients, Sessions: cfg.Sessions, Prompts: cfg.Prompts, Actions: cfg.actions(),
		Rates: cfg.Rates, Knobs: cfg.Knobs.Map(),
		Contract:      contract(cfg.Knobs, cfg.SessionContract),
		KeyLengthUnit: acp.KeyLengthUnit,
		Command:       cfg.Command,
	}
	// The run's ids are minted into a register of their own, each with a
	// handle (sim.Names); the strings, and so the trace, are the same.
	r.names = sim.NewNames()
	w := &world{names: r.names, cfg: cfg, loop: &r.loop, httpConns: map[string]*clientNode{}, wsPipes: map[string]*netfault.Pipe{}, ids: sim.NewIDs(cfg.Seed).MintInto(r.names), factory: factory, judged: r.judged}
	if keep {
		w.log = &traces.Log{Header: h, Events: events}
	}
	if judge {
		// Borrowing the run's strings spares a copy each; a Report kept
		// after the run holds the frames its strings are cut from (a
		// swarm keeps only its failures' explanations, built afresh).
		w.check = properties.NewBorrowingChecker(h, seedEvents)
		w.check.UseNames(r.names) // the actors' ids need no hashing
	}
	if what&runCover != 0 {
		w.cov = newCovTracker(&w.cfg)
	}
	w.faults = &sim.Recorder{Inner: chooser, OnFault: func(c sim.Choice) {
		w.Record(traces.Event{Kind: traces.KindChoose, Decision: c.Kind, Site: c.Site, Option: c.Option})
	}}
	w.cenv = client.Env{NewID: w.ids.UUID, IntN: w.ids.IntN, Now: w.loop.Now, Sub: sim.SubmissionDraws(cfg.Seed, r.names), Draw: sim.NamedDraws(cfg.Seed), Canonical: r.names.Canonical, Mint: r.names.MintString}
	for i := range cfg.Clients {
		link := cfg.Link
		if link == LinkMixed { // per Client, in turn
			link = []string{LinkStdio, LinkHTTP, LinkWS}[i%3]
		}
		an := &agentNode{name: fmt.Sprintf("a%d", i+1), disk: store.NewDisk(), link: link}
		cn := &clientNode{name: fmt.Sprintf("c%d", i+1), agent: an, lastNode: -1, link: link}
		cn.stepSite = cn.name + "/step"
		cn.cfg = client.Config{
			Name: cn.name, Policy: pol, Sessions: cfg.Sessions, Cwd: "/work/" + cn.name,
			Timeout: cfg.promptTimeout(), Backoff: cfg.Backoff, MaxAttempts: cfg.MaxAttempts, StaleAfter: cfg.StaleAfter, Window: cfg.Window,
			FreshConnection: cfg.FreshConnection && link == LinkWS,
			// With a hop in the path the Clients number their requests
			// in drawn ways, so a hop that does not map ids shows; without
			// one, 1, 2, 3 …, as every seed's trace always had.
			IDStyles: cfg.Proxies > 0,
			Protocol: cfg.Protocol(),
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
	// until nothing is left to do. Chaos cut at the cap stops the users too:
	// what they submitted is healed and read back, what they had still to
	// type never is.
	w.budget = cfg.EventCap()
	w.loop.RunUntil(last+cfg.ChaosFor, w.overBudget)
	end := traces.EndQuiet
	if w.overBudget() {
		end = traces.EndCap
		w.loop.DropAhead()
	}
	w.healing = true
	w.Record(traces.Event{Kind: traces.KindHeal})
	w.allowance()
	if e := w.runQuiet(w.loop.Now() + cfg.healFor()); e != traces.EndQuiet {
		end = e
	}

	// The observer reads what the live Agent processes hold on the stdio
	// Clients' pipes, then the final transcript from a fresh Agent
	// process, with an allowance of its own: a run cut at its cap still
	// has its transcripts read, and its Clients, done, take none of it.
	w.readLive()
	w.allowance()
	if e := w.runQuiet(w.loop.Now() + cfg.healFor()); e != traces.EndQuiet {
		end = e
	}
	w.stopNodes()
	for _, cn := range w.clients {
		if cn.pipe != nil && cn.pipe.Alive() {
			w.stopProc(cn.agent.proc, "close")
		}
		cn.c = nil
	}
	for _, an := range w.agents {
		w.observe(an)
	}
	w.allowance()
	if e := w.runQuiet(w.loop.Now() + cfg.healFor()); e != traces.EndQuiet {
		end = e
	}
	w.Record(traces.Event{Kind: traces.KindEnd, Note: end})
	res := &Result{Log: w.log, Events: w.events, Submits: w.submits, Delivers: w.delivers, Faults: w.faults.Tally()}
	if w.cov != nil {
		res.Coverage = w.cov.hits
	}
	if keep {
		r.events = w.log.Events
	}
	var rep *properties.Report
	if judge {
		rep = w.check.Finish()
	}
	return res, rep, nil
}

func (w *world) overBudget() bool { return w.events >= w.budget }

// allowance gives the next phase (heal, observer) its events: it may run
// up to the run's cap as the chaos may, and when the phases before it
// spent them, a quarter of the cap of its own. A run that stays within
// its cap never meets the allowance.
func (w *world) allowance() {
	limit := w.cfg.EventCap()
	w.budget = max(limit, w.events+limit/4)
}

// runQuiet runs until no event is left ("quiet") or the cap is hit ("cap").
func (w *world) runQuiet(capAt time.Duration) string {
	w.loop.RunUntil(capAt, w.overBudget)
	if w.loop.Pending() > 0 {
		return traces.EndCap
	}
	return traces.EndQuiet
}

// contract is what the Agent promises a black-box checker about retention,
// and the session contract the run asks the checker to hold it to.
func contract(k agent.Knobs, sessions string) traces.Contract {
	c := traces.Contract{Retention: k.Retention(), LiveOnly: []string{}, Sessions: traces.HeaderSessionContract(sessions)}
	if k.LiveOnly != "" {
		c.LiveOnly = append(c.LiveOnly, k.LiveOnly)
	}
	return c
}
