// Package mutation measures acpsim's mutation score: it runs every known-bad
// actor (the Agents of actors/agent/mutants, the Clients of
// actors/client/mutants and the known-bad proxy modes of actors/proxy) for
// seeds until the checkers catch it or a limit is reached, and says, per
// mutant, whether it was caught, by which anomaly kind, and how many seeds
// that took. A checker that lets a mutant through is a checker that cannot
// fail where the RFD says something breaks.
//
// The table of what to run (All) and the runner (Run) live here, apart from
// the CLI, so that the command only parses flags and prints, and the tests
// drive the same table and runner the command does.
package mutation

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/acpsim/acpsim/actors/agent"
	agentmutants "github.com/acpsim/acpsim/actors/agent/mutants"
	clientmutants "github.com/acpsim/acpsim/actors/client/mutants"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/world"
)

// Kinds of actor a mutant replaces.
const (
	ActorAgent  = "agent"
	ActorClient = "client"
	ActorProxy  = "proxy"
	ActorDesign = "design" // a design given on the command line (FromDesign)
)

// Mutant is one known-bad actor and how it runs.
type Mutant struct {
	Actor  string // ActorAgent, ActorClient or ActorProxy
	Name   string
	Doc    string // the bug it models, one line
	Expect string // the anomaly kind the checkers must report for it ("": any, a design's)
	Setup  Setup
}

// Setup is the run a mutant's seeds get: `acpsim run` with these flags over
// its defaults. It is the only description of the run, so the rerun command
// of a catching seed (Flags) and the configuration that caught it (Config)
// cannot disagree.
type Setup struct {
	Policy  string // --policy ("" is keyed)
	Agent   string // --agent ("" is the reference)
	Proxies int    // --proxies
	Proxy   string // --proxy
	Prompts int    // --prompts (0 is the default)
	// Link, Nodes, Sessions: --link ("" is stdio), --nodes and --sessions
	// (0 is the default).
	Link            string
	Nodes, Sessions int
	// Timeout is --timeout, the Client's wait for a prompt's response (0
	// is the default).
	Timeout time.Duration
	// Cancels, Closes, Forks: what each Client's user does besides typing.
	Cancels, Closes, Forks int
	// Knobs are Agent knobs as name=value (--compare=retry).
	Knobs []string
	// FaultRates is --fault-rates, over the default rates.
	FaultRates string
}

// users is what the users of every mutant's runs do unless its row says
// otherwise: everything the RFD talks about (as sim/world/mutants_test.go).
var users = Setup{Cancels: 2, Closes: 1, Forks: 1}

// rows change the Setup of the mutants that need other users, knobs or
// rates to show their bug within a few seeds, each with the reason. The
// seeds each needed at the plain users, median over 30 runs (the worst
// run) before and after: fold-key-case 25 (84, one run missed) → 4.5 (31),
// cancel-keeps-held 14 (63, one run missed) → 4.5 (21), cancel-only-named
// 28.5 (71) → 10.5 (40), insert-after-close 13.5 (61) → 5 (20),
// fresh-key-retry 10.5 (56) → 2 (21).
var rows = map[string]func(*Setup){
	// A key repeated in another case must come back to a session that has
	// it in the first case: a Client repeats one now and then
	// (client.newKey), so it takes more prompts than the default ten.
	"fold-key-case": func(s *Setup) { s.Prompts = 20 },
	// Both need a cancel to meet a prompt held behind a running one; half
	// of the users' cancels are session/cancel, half $/cancel_request.
	"cancel-keeps-held": func(s *Setup) { s.Cancels = 6 },
	"cancel-only-named": func(s *Setup) { s.Cancels = 4 },
	// Needs a cancel to meet two attempts of one key held (and what
	// agentmutants.Needs gives it: one session, a short timeout).
	"cancel-spares-other-attempts": func(s *Setup) { s.Cancels = 6 },
	// A $/cancel_request must meet two prompts of a session held behind a
	// running one: the one it names, and the one the hop knows by the
	// Client's number (a Client numbering from 0). One busy session makes
	// such pairs; stray-cancel showed in 18 of 300 seeds, against 1 with
	// the plain users.
	proxy.UnmappedCancel: func(s *Setup) { s.Cancels, s.Sessions, s.Prompts = 6, 1, 30 },
	// A cancel must withdraw a held prompt its user then sends again.
	"withdrawn-key-stays-cancelled": func(s *Setup) { s.Cancels = 6 },
	// Needs a close to meet a held prompt.
	"insert-after-close": func(s *Setup) { s.Closes = 3 },
	// The proxy retries a prompt unanswered after 150 ms: more prompts keep
	// the sessions busy, so more prompts are held that long.
	proxy.FreshKeyRetry: func(s *Setup) { s.Prompts = 20 },
	// The RFD lets an Agent that notices a reused key with another prompt
	// reject it (-32602, which the Client shows as failed: no silent loss);
	// one that does not compare answers it as a retry, and that is the case
	// where reusing a key loses the user's input without a word.
	"reuse-key": func(s *Setup) { s.Knobs = []string{"compare=retry"} },
	// A fork's prompt must carry a key its parent bound before the fork:
	// more forks and prompts make more such pairs. The expected lost showed
	// in 24 of 600 seeds at the plain users (one session), in 35 with these.
	"fork-copies-bindings": func(s *Setup) { s.Forks, s.Prompts = 3, 30 },
	// The bug is only in a restarted Client: at the default rate (0.002 per
	// step) few seeds restart one at all.
	"new-key-after-restart": func(s *Setup) { s.FaultRates = netfault.ClientRestart + "=0.02" },
}

// proxyCatches is the anomaly each known-bad proxy mode must be caught by
// (actors/proxy has no such column).
var proxyCatches = map[string]string{
	proxy.StripKey:       "duplicate",
	proxy.FreshKeyRetry:  "duplicate",
	proxy.WrongResponse:  "wrong-id",
	proxy.UnmappedCancel: "stray-cancel",
}

// All is every mutant: the known-bad Agents (against the keyed Client), the
// known-bad Clients (against the reference Agent) and the known-bad proxy
// modes (one proxy between the keyed Client and the reference Agent), each
// group in its registry's order.
func All() []Mutant {
	var out []Mutant
	add := func(m Mutant) {
		m.Setup.Cancels, m.Setup.Closes, m.Setup.Forks = users.Cancels, users.Closes, max(users.Forks, m.Setup.Forks)
		if f := rows[m.Name]; f != nil {
			f(&m.Setup)
		}
		out = append(out, m)
	}
	for _, n := range agentmutants.Names() {
		needs := agentmutants.NeedsOf(n) // what its bug needs to show at all
		add(Mutant{Actor: ActorAgent, Name: n, Doc: agent.Doc(n), Expect: agentmutants.Catches(n),
			Setup: Setup{Agent: n, Link: needs.Link, Nodes: needs.Nodes, Sessions: needs.Sessions, Forks: needs.Forks, Timeout: needs.Timeout}})
	}
	for _, n := range clientmutants.Names() {
		doc := strings.TrimPrefix(clientmutants.Doc(n), "known-bad: ")
		add(Mutant{Actor: ActorClient, Name: n, Doc: doc, Expect: clientmutants.Catches(n), Setup: Setup{Policy: n}})
	}
	for _, m := range proxy.Modes {
		if m.Name == proxy.Honest {
			continue
		}
		add(Mutant{Actor: ActorProxy, Name: m.Name, Doc: m.Doc, Expect: proxyCatches[m.Name], Setup: Setup{Proxies: 1, Proxy: m.Name}})
	}
	return out
}

// Flags are the `acpsim run` flags of the setup, sorted, as a rerun
// command writes them.
func (s Setup) Flags() []string {
	var f []string
	add := func(name, v string) { f = append(f, "--"+name+"="+v) }
	if s.Policy != "" {
		add("policy", s.Policy)
	}
	if s.Agent != "" {
		add("agent", s.Agent)
	}
	if s.Proxies != 0 {
		add("proxies", fmt.Sprint(s.Proxies))
	}
	if s.Proxy != "" {
		add("proxy", s.Proxy)
	}
	if s.Prompts != 0 {
		add("prompts", fmt.Sprint(s.Prompts))
	}
	if s.Link != "" {
		add("link", s.Link)
	}
	if s.Nodes != 0 {
		add("nodes", fmt.Sprint(s.Nodes))
	}
	if s.Sessions != 0 {
		add("sessions", fmt.Sprint(s.Sessions))
	}
	if s.Timeout != 0 {
		add("timeout", s.Timeout.String())
	}
	if s.Cancels != 0 {
		add("cancels", fmt.Sprint(s.Cancels))
	}
	if s.Closes != 0 {
		add("closes", fmt.Sprint(s.Closes))
	}
	if s.Forks != 0 {
		add("forks", fmt.Sprint(s.Forks))
	}
	for _, k := range s.Knobs {
		f = append(f, "--"+k)
	}
	if s.FaultRates != "" {
		add("fault-rates", s.FaultRates)
	}
	sort.Strings(f)
	return f
}

// Config is the run configuration of the setup, built as `acpsim run`
// builds it from the same flags.
func (s Setup) Config() (world.Config, error) {
	cfg := world.DefaultConfig()
	if s.Policy != "" {
		cfg.Policy = s.Policy
	}
	if s.Agent != "" {
		cfg.Agent = s.Agent
	}
	cfg.Proxies = s.Proxies
	if s.Proxy != "" {
		cfg.ProxyMode = s.Proxy
	}
	if s.Prompts != 0 {
		cfg.Prompts = s.Prompts
	}
	if s.Link != "" {
		cfg.Link = s.Link
	}
	if s.Nodes != 0 {
		cfg.Nodes = s.Nodes
	}
	if s.Sessions != 0 {
		cfg.Sessions = s.Sessions
	}
	if s.Timeout != 0 {
		cfg.Timeout = s.Timeout
	}
	cfg.Cancels, cfg.Closes, cfg.Forks = s.Cancels, s.Closes, s.Forks
	for _, k := range s.Knobs {
		name, value, _ := strings.Cut(k, "=")
		if err := cfg.Knobs.Set(name, value); err != nil {
			return cfg, err
		}
	}
	cfg.EnableLinkFaults()
	rates, err := netfault.ParseRates(s.FaultRates, cfg.Rates)
	if err != nil {
		return cfg, err
	}
	cfg.Rates = rates
	return cfg, cfg.Validate()
}

// Rerun is the command that reruns seed of the setup.
func (s Setup) Rerun(seed uint64) string {
	return strings.TrimSpace(fmt.Sprintf("acpsim run --seed %d %s", seed, strings.Join(s.Flags(), " ")))
}

// Options bound a measurement.
type Options struct {
	// MaxSeeds is how many seeds a run of a mutant may take.
	MaxSeeds int
	// Runs is how many independent runs each mutant gets: run r takes the
	// seeds from r*MaxSeeds+1 on.
	Runs int
	// Jobs is how many seeds run side by side (at least 1).
	Jobs int
	// Progress, when set, is called from the calling goroutine as runs
	// finish, with the runs finished and the runs in all.
	Progress func(done, total int)
}

// RunResult is one run of a mutant.
type RunResult struct {
	FirstSeed uint64 // the run's first seed
	// Seed is the first seed of the run whose trace shows any anomaly (0
	// when none did within MaxSeeds); Seeds is how many seeds that took.
	Seed  uint64
	Seeds int
	// Kinds are the anomaly kinds of that seed, in report order.
	Kinds []string
	// ExpectSeed and ExpectSeeds are the same for the first seed that shows
	// the mutant's expected anomaly (often Seed; later when another
	// checker fired first).
	ExpectSeed  uint64
	ExpectSeeds int
}

// Caught reports whether the run caught the mutant at all.
func (r RunResult) Caught() bool { return r.Seed != 0 }

// Result is a mutant's measurement.
type Result struct {
	Mutant
	Runs []RunResult
	// Caught counts the runs that caught the mutant, Expected those that
	// saw its expected anomaly within MaxSeeds.
	Caught, Expected int
	// Median is the median over the runs of the seeds it took to catch the
	// mutant, ExpectMedian of those it took to see the expected anomaly; a
	// run that did not counts as MaxSeeds+1.
	Median, ExpectMedian float64
	// Kinds are the anomaly kinds the catching seeds showed, as first seen
	// over the runs.
	Kinds []string
	// Rerun is the command of the first catching seed, ExpectRerun of the
	// first seed showing the expected anomaly ("" when none).
	Rerun, ExpectRerun string
}

// OK reports whether every run caught the mutant and saw its expected
// anomaly within MaxSeeds.
func (r Result) OK() bool {
	return len(r.Runs) > 0 && r.Caught == len(r.Runs) && r.Expected == len(r.Runs)
}

// Run measures every mutant of ms. Seeds run on o.Jobs goroutines, in
// rounds: each round runs, for every run not decided yet, the next few of
// its seeds, and a run's answers are its smallest seed with an anomaly and
// its smallest seed with the expected one, both found scanning its seeds in
// order. So the results are the same for every o.Jobs; only how many seeds
// past the deciding ones get run differs.
func Run(ms []Mutant, o Options) ([]Result, error) {
	if o.MaxSeeds < 1 || o.Runs < 1 {
		return nil, fmt.Errorf("max seeds %d, runs %d: expected at least 1 each", o.MaxSeeds, o.Runs)
	}
	jobs := max(o.Jobs, 1)
	cfgs := make([]world.Config, len(ms))
	for i, m := range ms {
		cfg, err := m.Setup.Config()
		if err != nil {
			return nil, fmt.Errorf("mutant %s: %v", m.Name, err)
		}
		cfgs[i] = cfg
	}
	type run struct {
		m    int
		next uint64 // the next seed to run
		end  uint64 // one past the last seed
		res  RunResult
	}
	runs := make([]*run, 0, len(ms)*o.Runs)
	for i := range ms {
		for r := range o.Runs {
			first := uint64(r*o.MaxSeeds + 1)
			runs = append(runs, &run{m: i, next: first, end: first + uint64(o.MaxSeeds), res: RunResult{FirstSeed: first}})
		}
	}
	type task struct {
		run   *run
		seed  uint64
		kinds []string
		err   error
	}
	pending := slices.Clone(runs)
	done := 0
	var runners world.Runners
	for len(pending) > 0 {
		// Enough seeds per round to keep every job busy: one per run while
		// many are undecided, more for the last few.
		width := uint64(max(1, (2*jobs+len(pending)-1)/len(pending)))
		var tasks []task
		for _, r := range pending {
			for s := r.next; s < min(r.next+width, r.end); s++ {
				tasks = append(tasks, task{run: r, seed: s})
			}
		}
		parallel.ForEach(len(tasks), jobs, func(i int) {
			t := &tasks[i]
			cfg := cfgs[t.run.m]
			cfg.Seed = t.seed
			t.err = runners.JudgeOnly(cfg, func(v *world.Verdict) {
				for _, a := range v.Report.Anomalies {
					if !slices.Contains(t.kinds, a.Kind) {
						t.kinds = append(t.kinds, a.Kind)
					}
				}
			})
		}, func(int) {})
		for _, t := range tasks { // in run order, then seed order
			r, n := t.run, int(t.seed-t.run.res.FirstSeed)+1
			if t.err != nil {
				return nil, fmt.Errorf("mutant %s, seed %d: %v", ms[r.m].Name, t.seed, t.err)
			}
			if !r.res.Caught() && len(t.kinds) > 0 {
				r.res.Seed, r.res.Seeds, r.res.Kinds = t.seed, n, t.kinds
			}
			if r.res.ExpectSeed == 0 && (slices.Contains(t.kinds, ms[r.m].Expect) || ms[r.m].Expect == "" && len(t.kinds) > 0) {
				r.res.ExpectSeed, r.res.ExpectSeeds = t.seed, n
			}
		}
		still := pending[:0]
		for _, r := range pending {
			r.next = min(r.next+width, r.end)
			if r.res.ExpectSeed != 0 || r.next >= r.end {
				done++
				continue
			}
			still = append(still, r)
		}
		pending = still
		if o.Progress != nil {
			o.Progress(done, len(runs))
		}
	}
	out := make([]Result, len(ms))
	for i, m := range ms {
		out[i] = Result{Mutant: m}
	}
	for _, r := range runs {
		res := &out[r.m]
		res.Runs = append(res.Runs, r.res)
		if r.res.ExpectSeed != 0 {
			res.Expected++
			if res.ExpectRerun == "" {
				res.ExpectRerun = res.Setup.Rerun(r.res.ExpectSeed)
			}
		}
		if !r.res.Caught() {
			continue
		}
		res.Caught++
		for _, k := range r.res.Kinds {
			if !slices.Contains(res.Kinds, k) {
				res.Kinds = append(res.Kinds, k)
			}
		}
		if res.Rerun == "" {
			res.Rerun = res.Setup.Rerun(r.res.Seed)
		}
	}
	for i := range out {
		res := &out[i]
		res.Median = median(res.Runs, o.MaxSeeds, func(r RunResult) int { return r.Seeds })
		res.ExpectMedian = median(res.Runs, o.MaxSeeds, func(r RunResult) int { return r.ExpectSeeds })
	}
	return out, nil
}

// median is the median of seeds(run) over the runs, a run where it is 0
// (nothing seen) counting as maxSeeds+1.
func median(runs []RunResult, maxSeeds int, seeds func(RunResult) int) float64 {
	xs := make([]int, len(runs))
	for i, r := range runs {
		xs[i] = seeds(r)
		if xs[i] == 0 {
			xs[i] = maxSeeds + 1
		}
	}
	slices.Sort(xs)
	n := len(xs)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return float64(xs[n/2])
	}
	return float64(xs[n/2-1]+xs[n/2]) / 2
}
