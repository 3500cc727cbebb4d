package world

import (
	"cmp"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/users"
)

// Verdict is one judged run.
type Verdict struct {
	Seed   uint64
	Result *Result
	Report *properties.Report
}

// Judge runs cfg and checks its trace.
func Judge(cfg Config) (*Verdict, error) { return new(Runner).Judge(cfg) }

// JudgeOnly runs cfg and checks it, keeping no trace (Runner.JudgeOnly).
func JudgeOnly(cfg Config) (*Verdict, error) { return new(Runner).JudgeOnly(cfg) }

// Judge runs cfg on r and checks its trace as the run records it. The
// Verdict's Result is r's memory, valid until r's next run; its Report is
// the caller's to keep.
func (r *Runner) Judge(cfg Config) (*Verdict, error) { return r.judge(cfg, runKeep|runJudge) }

// JudgeOnly is Judge for a caller that needs only the Report and the
// Result's counts: the run is checked as it goes and keeps no trace
// (Result.Log is nil), which spares building one and reading it again.
// The Report is the one Judge gives.
func (r *Runner) JudgeOnly(cfg Config) (*Verdict, error) { return r.judge(cfg, runJudge) }

// JudgeCovering is JudgeOnly that also counts the coverage pairs the run
// hits as it goes (Result.Coverage): what CoverageOf reads from the trace,
// without keeping one.
func (r *Runner) JudgeCovering(cfg Config) (*Verdict, error) {
	return r.judge(cfg, runJudge|runCover)
}

func (r *Runner) judge(cfg Config, what int) (*Verdict, error) {
	res, rep, err := r.run(cfg, what)
	if err != nil {
		return nil, err
	}
	return &Verdict{Seed: cfg.Seed, Result: res, Report: rep}, nil
}

// SwarmConfig runs Seeds seeds from FirstSeed on Workers cores.
type SwarmConfig struct {
	Base      Config
	FirstSeed uint64
	Seeds     int
	// Workers is how many seeds run side by side (acpsim's --jobs; 0: one
	// per core). The summary does not depend on it.
	Workers int
	// Shard and Shards split the seeds: with Shards > 1 the swarm runs only
	// shard Shard (0 ≤ Shard < Shards), the contiguous block ShardRange
	// gives, and its Summary counts that block. MergeSummaries puts the
	// shards back together.
	Shard, Shards int
	// MaxFailures caps the failing seeds (and the nondeterministic ones) a
	// Summary lists, the first ones in seed order; Failed still counts them
	// all (0: DefaultMaxFailures; negative: no cap).
	MaxFailures int
	// OnFailure, when set, is called with every failing seed, in seed
	// order, from the calling goroutine, capped or not (a ledger).
	OnFailure func(SeedFailure)
	// Progress, when set, is called after each seed from one goroutine.
	Progress func(done, failed int)
	// CheckDeterminism runs every seed twice and compares the traces.
	CheckDeterminism bool
	// Classes switches whole fault classes on or off per seed and draws
	// their rates (classes.go); Coverage counts the (fault point × protocol
	// state) pairs each seed hit (coverage.go); Guided runs the seeds in
	// batches and raises the rates of the kinds whose pairs are still
	// missing (guided.go; it counts coverage too).
	Classes, Coverage, Guided bool
	// Actions switches whole classes of user actions on or off per seed
	// and draws how often each user does them (users.DrawActions), with
	// Base's Cancels, Closes and Forks as the base counts.
	Actions bool
}

// DefaultMaxFailures is how many failing seeds a Summary lists unless told
// otherwise: enough for any report, and a swarm's memory stays flat in the
// number of seeds.
const DefaultMaxFailures = 1000

// maxFailures is the cap sc asks for (-1: none).
func (sc *SwarmConfig) maxFailures() int {
	switch {
	case sc.MaxFailures == 0:
		return DefaultMaxFailures
	case sc.MaxFailures < 0:
		return -1
	}
	return sc.MaxFailures
}

// ShardRange is the block of seeds shard i of n runs out of seeds seeds
// from first: the contiguous range [first+⌊i·seeds/n⌋, first+⌊(i+1)·seeds/n⌋),
// so the shards tile the whole run in order and differ in size by at most
// one seed. A shard is thus an ordinary swarm over a smaller range.
func ShardRange(first uint64, seeds, i, n int) (uint64, int) {
	if n <= 1 {
		return first, seeds
	}
	lo := int(int64(i) * int64(seeds) / int64(n))
	hi := int(int64(i+1) * int64(seeds) / int64(n))
	return first + uint64(lo), hi - lo
}

// SeedFailure is a failing seed with its anomaly kinds (first occurrence order).
type SeedFailure struct {
	Seed         uint64
	Kinds        []string
	Inconclusive bool
	First        string // the first anomaly's explanation
	// Rates are the seed's own rates when classes or guidance changed the
	// base (nil otherwise), On the classes it had on.
	Rates map[string]float64
	On    []string
	// Actions are the seed's own users' actions when action classes drew
	// them (nil otherwise), ActionsOn the action classes it had on.
	Actions   *users.Actions
	ActionsOn []string
}

// Summary aggregates a swarm.
type Summary struct {
	// FirstSeed and Seeds are the seeds summed up (a shard's own block).
	FirstSeed    uint64
	Seeds        int
	Failed       int
	Inconclusive int
	// JudgedNone counts the seeds with no anomaly whose report is still no
	// pass: never silently lost was judged for none of their submissions
	// (their sessions died with their processes, or no transcript could be
	// read). JudgedNoneWhy is the first one's reason.
	JudgedNone    int
	JudgedNoneWhy string
	judgedNoneAt  uint64 // the seed of JudgedNoneWhy: the lowest, whatever order seeds end in
	// Anomalies counts anomalies per kind, in the order kinds were first seen.
	Anomalies []KindTotal
	Stats     properties.Stats
	Faults    []sim.KindCount
	// FaultsFirst says, for each of Faults, where its kind was first seen,
	// so that merged shards list the kinds in the order one swarm would.
	FaultsFirst []FirstSeen
	// Failures are the first failing seeds in seed order, at most
	// SwarmConfig.MaxFailures of them; Failed counts them all.
	Failures []SeedFailure
	Events   int
	// Nondeterministic lists the seeds whose two runs differed (with
	// CheckDeterminism), with the first divergent event: the first ones in
	// seed order, capped as Failures; NotDeterministic counts them all.
	Nondeterministic []SeedDivergence
	NotDeterministic int
	// Classes counts per class present in the base rates how many seeds
	// had it on and how many of those failed (with Classes); ActionClasses
	// the same per action class present in the base (with Actions).
	Classes       []ClassTotal
	ActionClasses []ClassTotal
	// Coverage totals the pairs hit (with Coverage or Guided).
	Coverage *CoverageTotal
}

// SeedDivergence is a seed whose two runs differed.
type SeedDivergence struct {
	Seed uint64
	*Divergence
}

// KindTotal is a count per anomaly kind.
type KindTotal struct {
	Kind  string
	Count int
	Seeds int
	First FirstSeen
}

// FirstSeen is where a kind first appeared: the first seed that had it
// and its position among that seed's kinds. Sorting by it gives the order
// of first appearance across merged shards.
type FirstSeen struct {
	Seed uint64
	Rank int
}

// Before orders two first appearances.
func (f FirstSeen) Before(g FirstSeen) bool {
	return f.Seed < g.Seed || f.Seed == g.Seed && f.Rank < g.Rank
}

// seedResult is what a swarm keeps of one seed until it is folded into the
// summary, in seed order: never the trace.
type seedResult struct {
	seed   uint64
	report *properties.Report
	faults []sim.KindCount
	events int
	div    *Divergence
	err    error
	rates  map[string]float64
	on     []string
	acts   *users.ActionDraw
	cov    Coverage
}

// Swarm runs many seeds in parallel. Each simulation stays on one goroutine;
// only whole seeds run side by side, and results are folded into the
// summary in seed order, so the summary does not depend on scheduling. Only
// one trace per worker is alive at a time, and at most a window of finished
// seeds waits for an earlier one to finish: memory stays flat in the number
// of seeds (the summary keeps the first MaxFailures failing seeds only).
func Swarm(sc SwarmConfig) (*Summary, error) {
	if err := sc.Base.Validate(); err != nil {
		return nil, err
	}
	if sc.Shards > 1 {
		if sc.Shard < 0 || sc.Shard >= sc.Shards {
			return nil, fmt.Errorf("shard %d of %d: expected 0 ≤ shard < %d", sc.Shard, sc.Shards, sc.Shards)
		}
		if sc.Guided {
			return nil, fmt.Errorf("a guided swarm cannot be sharded: each batch's rates depend on every batch before it")
		}
		sc.FirstSeed, sc.Seeds = ShardRange(sc.FirstSeed, sc.Seeds, sc.Shard, sc.Shards)
	}
	workers := sc.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g := newGuide(&sc)
	var runners Runners
	// Only the determinism check reads a seed's trace; coverage is
	// counted as the seed runs.
	what := runJudge
	if sc.CheckDeterminism {
		what |= runKeep
	}
	if sc.Coverage || sc.Guided {
		what |= runCover
	}
	judge := func(cfg Config, use func(*Verdict)) error {
		return runners.lend(cfg, func(r *Runner, cfg Config) (*Verdict, error) { return r.judge(cfg, what) }, use)
	}
	run := func(i int) seedResult {
		cfg := sc.Base
		cfg.Seed = sc.FirstSeed + uint64(i)
		rates, on := g.seedRates(cfg.Seed)
		if rates != nil {
			cfg.Rates = rates
		}
		r := seedResult{seed: cfg.Seed, rates: rates, on: on}
		if sc.Actions {
			d := users.DrawActions(cfg.Seed, sc.Base.UserActions())
			cfg.SetUserActions(d.Actions)
			r.acts = &d
		}
		var again error // the determinism check's second run
		err := judge(cfg, func(v *Verdict) {
			r.report, r.faults, r.events = v.Report, v.Result.Faults, v.Result.Events
			r.cov = v.Result.Coverage
			if sc.CheckDeterminism {
				var res *Result
				if res, again = Run(cfg); again == nil {
					if d := Diverge(v.Result.Log, res.Log); !d.Equal {
						r.div = d
					}
				}
			}
		})
		r.err = cmp.Or(err, again)
		return r
	}
	sum := &Summary{FirstSeed: sc.FirstSeed, Seeds: sc.Seeds}
	f := &folder{sum: sum, max: sc.maxFailures(), onFailure: sc.OnFailure, tally: newSwarmTally(&sc, g),
		kindIdx: map[string]int{}, faultIdx: map[string]int{}}
	// A finished seed waits in a ring of window slots until every seed
	// before it is folded; a worker does not start a seed a window ahead
	// of the first unfolded one.
	window := 16 * workers
	ring := make([]seedResult, window)
	ready := make([]bool, window)
	var mu sync.Mutex
	moved := sync.NewCond(&mu)
	next := 0 // the first seed index not folded yet
	finished := 0
	for _, b := range g.batches(sc.Seeds) {
		var covs []Coverage
		if sc.Guided {
			covs = make([]Coverage, 0, b[1]-b[0])
		}
		parallel.ForEach(b[1]-b[0], workers, func(j int) {
			i := b[0] + j
			mu.Lock()
			for i >= next+window {
				moved.Wait()
			}
			mu.Unlock()
			ring[i%window] = run(i)
		}, func(j int) {
			i := b[0] + j
			finished++
			ready[i%window] = true
			mu.Lock()
			for ready[next%window] {
				r := &ring[next%window]
				if covs != nil {
					covs = append(covs, r.cov)
				}
				f.fold(r)
				*r, ready[next%window] = seedResult{}, false
				next++
			}
			moved.Broadcast()
			mu.Unlock()
			if sc.Progress != nil {
				sc.Progress(finished, sum.Failed)
			}
		})
		g.learn(covs)
	}
	if f.err != nil {
		return nil, f.err
	}
	sum.Classes, sum.ActionClasses, sum.Coverage = f.tally.classes.totals, f.tally.actions.totals, f.tally.coverage
	if sc.Guided {
		sum.Coverage.Raised = maps.Clone(g.raised)
	}
	return sum, nil
}

// folder adds seeds to a summary, in seed order.
type folder struct {
	sum       *Summary
	max       int
	onFailure func(SeedFailure)
	tally     *swarmTally
	kindIdx   map[string]int
	faultIdx  map[string]int
	err       error
}

func (f *folder) fold(r *seedResult) {
	if f.err != nil {
		return
	}
	if r.err != nil {
		f.err = r.err
		return
	}
	sum := f.sum
	sum.Events += r.events
	if r.div != nil {
		sum.NotDeterministic++
		if f.max < 0 || len(sum.Nondeterministic) < f.max {
			sum.Nondeterministic = append(sum.Nondeterministic, SeedDivergence{r.seed, r.div})
		}
	}
	sum.Stats.Add(r.report.Stats)
	f.tally.add(r, !r.report.OK())
	for rank, fc := range r.faults {
		j, ok := f.faultIdx[fc.Kind]
		if !ok {
			j = len(sum.Faults)
			f.faultIdx[fc.Kind] = j
			sum.Faults = append(sum.Faults, sim.KindCount{Kind: fc.Kind})
			sum.FaultsFirst = append(sum.FaultsFirst, FirstSeen{r.seed, rank})
		}
		sum.Faults[j].Asked += fc.Asked
		sum.Faults[j].Faults += fc.Faults
	}
	if r.report.Inconclusive {
		sum.Inconclusive++
	}
	if r.report.OK() {
		if v, line := r.report.Verdict(); v == properties.VerdictInconclusive && !r.report.Inconclusive {
			sum.JudgedNone++
			if sum.JudgedNoneWhy == "" || r.seed < sum.judgedNoneAt {
				sum.JudgedNoneWhy, sum.judgedNoneAt = strings.TrimPrefix(line, "INCONCLUSIVE: "), r.seed
			}
		}
		return
	}
	sum.Failed++
	fail := SeedFailure{Seed: r.seed, Inconclusive: r.report.Inconclusive, First: r.report.Anomalies[0].Explanation, Rates: r.rates, On: r.on}
	if r.acts != nil {
		fail.Actions, fail.ActionsOn = &r.acts.Actions, r.acts.On
	}
	for _, a := range r.report.Anomalies {
		j, ok := f.kindIdx[a.Kind]
		if !ok {
			j = len(sum.Anomalies)
			f.kindIdx[a.Kind] = j
			sum.Anomalies = append(sum.Anomalies, KindTotal{Kind: a.Kind, First: FirstSeen{r.seed, len(fail.Kinds)}})
		}
		sum.Anomalies[j].Count++
		if !slices.Contains(fail.Kinds, a.Kind) {
			sum.Anomalies[j].Seeds++
			fail.Kinds = append(fail.Kinds, a.Kind)
		}
	}
	if f.onFailure != nil {
		f.onFailure(fail)
	}
	if f.max < 0 || len(sum.Failures) < f.max {
		sum.Failures = append(sum.Failures, fail)
	}
}
