package world

import (
	"runtime"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/realmode"
	"github.com/acpsim/acpsim/sim"
)

// Verdict is one judged run.
type Verdict struct {
	Seed   uint64
	Result *Result
	Report *properties.Report
}

// Judge runs cfg and checks its trace.
func Judge(cfg Config) (*Verdict, error) {
	res, err := Run(cfg)
	if err != nil {
		return nil, err
	}
	return &Verdict{Seed: cfg.Seed, Result: res, Report: properties.Check(res.Log.Header, res.Log.Events)}, nil
}

// SwarmConfig runs Seeds seeds from FirstSeed on Workers cores.
type SwarmConfig struct {
	Base      Config
	FirstSeed uint64
	Seeds     int
	Workers   int
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
}

// Summary aggregates a swarm.
type Summary struct {
	Seeds        int
	Failed       int
	Inconclusive int
	// Anomalies counts anomalies per kind, in the order kinds were first seen.
	Anomalies []KindTotal
	Stats     properties.Stats
	Faults    []sim.KindCount
	Failures  []SeedFailure // in seed order
	Events    int
	// Nondeterministic lists the seeds whose two runs differed (with
	// CheckDeterminism), with the first divergent event.
	Nondeterministic []SeedDivergence
	// Classes counts per class present in the base rates how many seeds
	// had it on and how many of those failed (with Classes).
	Classes []ClassTotal
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
}

// Swarm runs many seeds in parallel. Each simulation stays on one goroutine;
// only whole seeds run side by side, and results are merged in seed order so
// the summary does not depend on scheduling. Only one trace per worker is
// alive at a time.
func Swarm(sc SwarmConfig) (*Summary, error) {
	if err := sc.Base.Validate(); err != nil {
		return nil, err
	}
	workers := sc.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type slim struct {
		seed   uint64
		report *properties.Report
		faults []sim.KindCount
		events int
		div    *Divergence
		err    error
		rates  map[string]float64
		on     []string
		cov    Coverage
	}
	results := make([]slim, sc.Seeds)
	g := newGuide(&sc)
	run := func(i int) {
		cfg := sc.Base
		cfg.Seed = sc.FirstSeed + uint64(i)
		rates, on := g.seedRates(cfg.Seed)
		if rates != nil {
			cfg.Rates = rates
		}
		v, err := Judge(cfg)
		r := slim{seed: cfg.Seed, err: err, rates: rates, on: on}
		if err == nil {
			r.report, r.faults, r.events = v.Report, v.Result.Faults, len(v.Result.Log.Events)
		}
		if err == nil && (sc.Coverage || sc.Guided) {
			r.cov = CoverageOf(&cfg, v.Result.Log)
		}
		if err == nil && sc.CheckDeterminism {
			again, err2 := Run(cfg)
			if r.err = err2; err2 == nil {
				if d := Diverge(v.Result.Log, again.Log); !d.Equal {
					r.div = d
				}
			}
		}
		results[i] = r
	}
	finished, failed := 0, 0
	for _, b := range g.batches(sc.Seeds) {
		realmode.ForEach(b[1]-b[0], workers, func(j int) { run(b[0] + j) }, func(j int) {
			finished++
			if r := results[b[0]+j]; r.err == nil && !r.report.OK() {
				failed++
			}
			if sc.Progress != nil {
				sc.Progress(finished, failed)
			}
		})
		covs := make([]Coverage, 0, b[1]-b[0])
		for _, r := range results[b[0]:b[1]] {
			covs = append(covs, r.cov)
		}
		g.learn(covs)
	}
	sum := &Summary{Seeds: sc.Seeds}
	tally := newSwarmTally(&sc, g)
	kindIdx := map[string]int{}
	faultIdx := map[string]int{}
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		sum.Events += r.events
		if r.div != nil {
			sum.Nondeterministic = append(sum.Nondeterministic, SeedDivergence{r.seed, r.div})
		}
		sum.Stats.Add(r.report.Stats)
		tally.add(r.on, r.cov, !r.report.OK())
		for _, f := range r.faults {
			j, ok := faultIdx[f.Kind]
			if !ok {
				j = len(sum.Faults)
				faultIdx[f.Kind] = j
				sum.Faults = append(sum.Faults, sim.KindCount{Kind: f.Kind})
			}
			sum.Faults[j].Asked += f.Asked
			sum.Faults[j].Faults += f.Faults
		}
		if r.report.Inconclusive {
			sum.Inconclusive++
		}
		if r.report.OK() {
			continue
		}
		sum.Failed++
		fail := SeedFailure{Seed: r.seed, Inconclusive: r.report.Inconclusive, First: r.report.Anomalies[0].Explanation, Rates: r.rates, On: r.on}
		seen := map[string]bool{}
		for _, a := range r.report.Anomalies {
			j, ok := kindIdx[a.Kind]
			if !ok {
				j = len(sum.Anomalies)
				kindIdx[a.Kind] = j
				sum.Anomalies = append(sum.Anomalies, KindTotal{Kind: a.Kind})
			}
			sum.Anomalies[j].Count++
			if !seen[a.Kind] {
				seen[a.Kind] = true
				sum.Anomalies[j].Seeds++
				fail.Kinds = append(fail.Kinds, a.Kind)
			}
		}
		sum.Failures = append(sum.Failures, fail)
	}
	sum.Classes, sum.Coverage = tally.classes, tally.coverage
	return sum, nil
}
