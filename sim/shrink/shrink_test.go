package shrink_test

import (
	"slices"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/shrink"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
)

// firstFailure finds the first seed whose run shows kind.
func firstFailure(t *testing.T, cfg world.Config, kind string) *world.Verdict {
	t.Helper()
	for seed := uint64(1); seed <= 600; seed++ {
		cfg.Seed = seed
		v, err := world.Judge(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if shrink.Shows(v.Report, kind) {
			return v
		}
	}
	t.Fatalf("no seed of 600 shows %s", kind)
	return nil
}

func count(evs []traces.Event, kind string) int {
	n := 0
	for _, e := range evs {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// Every mutant's failure shrinks to a few faults and prompts, and the small
// run, replayed from its own record, shows the same anomaly.
func TestEveryMutantShrinksToASmallCounterexample(t *testing.T) {
	var faults, prompts []int
	for _, name := range mutants.Names() {
		kind := mutants.Catches(name)
		cfg := world.DefaultConfig()
		cfg.UseAgent(name) // with what its bug needs to show (lost-writes: nodes)
		cfg.Cancels, cfg.Closes, cfg.Forks = 2, 1, 1
		v := firstFailure(t, cfg, kind)
		start := time.Now()
		res, err := shrink.Shrink(seeded(cfg, v), sim.Recorded(v.Result.Log.Events), kind)
		_ = start
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		small := res.Verdict.Result.Log
		again := res.Config
		again.Chooser = sim.NewSchedule(sim.Recorded(small.Events))
		rv, err := world.Judge(again)
		if err != nil {
			t.Fatal(err)
		}
		if !shrink.Shows(rv.Report, kind) {
			t.Errorf("%s: the shrunk run replayed shows no %s", name, kind)
		}
		f, p := len(res.Choices), count(small.Events, traces.KindSubmit)
		faults, prompts = append(faults, f), append(prompts, p)
		t.Logf("%-20s %-12s faults %2d → %d, prompts %2d → %d, events %4d → %d, %d runs, %v",
			name, kind, count(v.Result.Log.Events, traces.KindChoose), f, count(v.Result.Log.Events, traces.KindSubmit), p,
			len(v.Result.Log.Events), len(small.Events), res.Runs, time.Since(start).Round(time.Millisecond))
	}
	for what, xs := range map[string][]int{"faults": faults, "prompts": prompts} {
		slices.Sort(xs)
		if med := xs[len(xs)/2]; med > 3 {
			t.Errorf("median %s %d, want at most 3 (%v)", what, med, xs)
		}
		if xs[len(xs)-1] > 5 {
			t.Errorf("most %s %d, want at most 5 (%v)", what, xs[len(xs)-1], xs)
		}
	}
}

// seeded is cfg with the seed of v's run.
func seeded(cfg world.Config, v *world.Verdict) world.Config {
	cfg.Seed = v.Seed
	return cfg
}
