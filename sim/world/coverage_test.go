package world

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
)

// hitPairs names the pairs c hit, with their counts.
func hitPairs(c Coverage) map[string]int {
	out := map[string]int{}
	for i, n := range c {
		if n > 0 {
			out[CoveragePairs[i].Name()] = n
		}
	}
	return out
}

func planned(t *testing.T, faults ...sim.PlannedFault) map[string]int {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Chooser = sim.NewPlan(faults)
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return hitPairs(CoverageOf(&cfg, res.Log))
}

// A plan that kills the Agent after the first insertion, before its
// response, hits exactly that pair and the keyed retry that reaches the
// next Agent process; a cut of the next process's second frame to the
// Client falls in the replay of the session/resume that follows.
func TestCoverageSeesTheFaultsOfAPlan(t *testing.T) {
	kill := sim.PlannedFault{Kind: netfault.Kill, Match: "respond-prompt", Option: 1}
	got := planned(t, kill)
	want := map[string]int{"kill × respond-prompt": 1, "retry × restarted": 1}
	if !maps.Equal(got, want) {
		t.Fatalf("kill at respond-prompt: hit %v, want %v", got, want)
	}

	got = planned(t, kill, sim.PlannedFault{Kind: netfault.Cut, Match: "c1:a1#2/a2c", Nth: 1, Option: 1})
	if got["cut × resume-in-flight"] != 1 || got["kill × respond-prompt"] != 1 {
		t.Fatalf("kill, then a cut in the replay: hit %v", got)
	}

	got = planned(t, sim.PlannedFault{Kind: netfault.Kill, Match: "sync-insert", Option: 1},
		sim.PlannedFault{Kind: netfault.LoseUnsynced, Match: "a1#1", Option: 1})
	if got["kill × sync-insert"] != 1 || got["lose-unsynced × sync-insert"] != 1 || got["retry × restarted"] != 1 {
		t.Fatalf("kill at sync-insert losing the write: hit %v", got)
	}

	if got := planned(t); len(got) != 0 {
		t.Fatalf("no fault: hit %v", got)
	}
}

// The labels rely on the order of the trace: a link fault is asked right
// after the send of the frame it hits, a reject right after the Agent read
// the prompt. On every link that order holds (no fault is left without its
// frame), and no run hits a pair its configuration cannot reach.
func TestCoverageFindsTheFrameOfEveryFault(t *testing.T) {
	for _, link := range []string{LinkStdio, LinkHTTP, LinkWS, LinkMixed} {
		for _, policy := range []string{"keyed", "naive"} {
			cfg := DefaultConfig()
			cfg.Link, cfg.Policy = link, policy
			cfg.Cancels, cfg.Closes, cfg.Forks = 2, 1, 1
			if link == LinkMixed {
				cfg.Clients = 3
			}
			if link == LinkWS {
				cfg.Nodes = 2
			}
			cfg.EnableLinkFaults()
			reach := Applicable(&cfg)
			faults := 0
			for seed := uint64(1); seed <= 40; seed++ {
				cfg.Seed = seed
				res, err := Run(cfg)
				if err != nil {
					t.Fatal(err)
				}
				tr := newCovTracker(&cfg)
				for i := range res.Log.Events {
					tr.event(&res.Log.Events[i])
				}
				if tr.orphans > 0 {
					t.Fatalf("%s %s seed %d: %d faults without their frame", link, policy, seed, tr.orphans)
				}
				for i, n := range tr.hits {
					if n > 0 && !reach[i] {
						t.Fatalf("%s %s seed %d: hit %s, which Applicable says it cannot", link, policy, seed, CoveragePairs[i].Name())
					}
					if CoveragePairs[i].Point != PointRetry {
						faults += n
					}
				}
			}
			if faults == 0 {
				t.Fatalf("%s %s: no fault pair hit in 40 seeds", link, policy)
			}
		}
	}
}

// Every pair's point is a fault kind (or a retry), and its boost kinds too.
func TestCoveragePairsAreWellFormed(t *testing.T) {
	kinds := netfault.Kinds()
	seen := map[string]bool{}
	for _, p := range CoveragePairs {
		if seen[p.Name()] {
			t.Errorf("%s twice", p.Name())
		}
		seen[p.Name()] = true
		if p.Point != PointRetry && !slices.Contains(kinds, p.Point) {
			t.Errorf("%s: %s is not a fault kind", p.Name(), p.Point)
		}
		for _, k := range p.boost {
			if !slices.Contains(kinds, k) {
				t.Errorf("%s: boost %s is not a fault kind", p.Name(), k)
			}
		}
		if p.Doc == "" {
			t.Errorf("%s: no doc", p.Name())
		}
	}
	for step, state := range killStates {
		if !seen[netfault.Kill+" × "+state] {
			t.Errorf("step %s maps to %s, which has no kill pair", step, state)
		}
	}
}

// Guided mode raises the rates of the kinds whose pairs are missing: over
// the same seeds it leaves fewer pairs never hit, and its result does not
// depend on the number of workers.
func TestGuidedSwarmHitsMorePairs(t *testing.T) {
	const seeds = 300
	swarm := func(guided bool, workers int) *Summary {
		sum, err := Swarm(SwarmConfig{Base: DefaultConfig(), FirstSeed: 1, Seeds: seeds, Workers: workers,
			Classes: true, Coverage: true, Guided: guided})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	plain, guided := swarm(false, 0), swarm(true, 2)
	names := func(s *Summary) []string {
		var out []string
		for _, i := range s.Coverage.Missing() {
			out = append(out, CoveragePairs[i].Name())
		}
		return out
	}
	if len(plain.Coverage.Missing()) <= len(guided.Coverage.Missing()) {
		t.Fatalf("never hit in %d seeds: %v unguided, %v guided", seeds, names(plain), names(guided))
	}
	if guided.Coverage.Batches != seeds/GuideBatch || len(guided.Coverage.Raised) == 0 {
		t.Fatalf("guided: %d batches, raised %v", guided.Coverage.Batches, guided.Coverage.Raised)
	}
	t.Logf("never hit in %d seeds: unguided %v; guided %v (raised %v)", seeds, names(plain), names(guided), guided.Coverage.Raised)
	one := swarm(true, 1)
	if !slices.Equal(one.Coverage.Hits, guided.Coverage.Hits) || fmt.Sprint(one.Faults) != fmt.Sprint(guided.Faults) || fmt.Sprint(one.Classes) != fmt.Sprint(guided.Classes) {
		t.Fatalf("guided with 1 and 2 workers differ:\n%v\n%v", one.Coverage.Hits, guided.Coverage.Hits)
	}
}

// Without Coverage a swarm reads no coverage (and runs as before).
func TestSwarmWithoutCoverageReadsNone(t *testing.T) {
	sum, err := Swarm(SwarmConfig{Base: DefaultConfig(), FirstSeed: 1, Seeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Coverage != nil || sum.Classes != nil {
		t.Fatalf("coverage %v, classes %v", sum.Coverage, sum.Classes)
	}
}

// BenchmarkCoverage is what --coverage adds to a seed: reading the pairs
// from a ten-prompt stdio trace (compare BenchmarkSeed/stdio).
func BenchmarkCoverage(b *testing.B) {
	cfg := DefaultConfig()
	var logs []*Result
	for seed := uint64(1); seed <= 20; seed++ {
		cfg.Seed = seed
		res, err := Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		logs = append(logs, res)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		CoverageOf(&cfg, logs[i%len(logs)].Log)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
}
