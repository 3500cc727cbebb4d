package world

import (
	"bytes"
	"slices"
	"testing"

	"github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/sim/users"
)

// With action classes a swarm runs each seed with the actions its draw
// gave: a class's line counts exactly the seeds whose draw had it on, and
// of those the failing ones; a failing seed names its actions and classes.
func TestSwarmActionClassesCountTheSeedsTheyWereOnIn(t *testing.T) {
	base := DefaultConfig()
	base.Agent = "cancel-only-named"
	base.SetUserActions(users.DefaultActionBase)
	const first, seeds = 1, 300
	sum, err := Swarm(SwarmConfig{Base: base, FirstSeed: first, Seeds: seeds, Classes: true, Actions: true, MaxFailures: -1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed == 0 {
		t.Fatalf("cancel-only-named passed %d seeds with actions on", seeds)
	}
	failed := map[uint64]bool{}
	for _, f := range sum.Failures {
		failed[f.Seed] = true
		d := users.DrawActions(f.Seed, base.UserActions())
		if f.Actions == nil || *f.Actions != d.Actions || !slices.Equal(f.ActionsOn, d.On) {
			t.Fatalf("seed %d: failure states actions %+v on %v, its draw %+v", f.Seed, f.Actions, f.ActionsOn, d)
		}
	}
	want := map[string]ClassTotal{}
	for seed := uint64(first); seed < first+seeds; seed++ {
		for _, c := range users.DrawActions(seed, base.UserActions()).On {
			w := want[c]
			w.On++
			if failed[seed] {
				w.Failed++
			}
			want[c] = w
		}
	}
	if len(sum.ActionClasses) != len(users.ActionClasses) {
		t.Fatalf("action classes %v, want one line per class", sum.ActionClasses)
	}
	for _, c := range sum.ActionClasses {
		w := want[c.Class]
		if c.On != w.On || c.Failed != w.Failed {
			t.Errorf("class %s: on %d failed %d, the draws say on %d failed %d", c.Class, c.On, c.Failed, w.On, w.Failed)
		}
		if c.Class == "cancel-request" && c.Failed != sum.Failed {
			t.Errorf("cancel-request failed in %d seeds of %d failing: its bug needs $/cancel_request", c.Failed, sum.Failed)
		}
	}
	if !slices.ContainsFunc(sum.Anomalies, func(k KindTotal) bool { return k.Kind == mutants.Catches(base.Agent) }) {
		t.Errorf("anomalies %v lack %s", sum.Anomalies, mutants.Catches(base.Agent))
	}
}

// A seed whose draw switched every action class off runs exactly as it
// would with no action classes: the draws shift neither the fault stream
// nor the scenario.
func TestSeedsWithActionsOffRunAsWithoutClasses(t *testing.T) {
	n := 0
	for seed := uint64(1); n < 5 && seed < 200; seed++ {
		d := users.DrawActions(seed, users.DefaultActionBase)
		if len(d.On) > 0 {
			continue
		}
		n++
		plain := DefaultConfig()
		plain.Seed = seed
		drawn := plain
		drawn.SetUserActions(d.Actions)
		if !bytes.Equal(traceBytes(t, plain), traceBytes(t, drawn)) {
			t.Fatalf("seed %d: actions drawn off, yet its trace differs from a run without action classes", seed)
		}
	}
	if n == 0 {
		t.Fatal("no seed of 200 drew every action class off")
	}
}

// An impatient seed runs exactly as its rerun, which states the timeout as
// --timeout: the same trace bytes; and the timeout matters to it.
func TestImpatientSeedRunsAsWithItsTimeoutGiven(t *testing.T) {
	n := 0
	for seed := uint64(1); n < 3 && seed < 200; seed++ {
		d := users.DrawActions(seed, users.DefaultActionBase)
		if d.Timeout == 0 {
			continue
		}
		n++
		drawn := DefaultConfig()
		drawn.Seed = seed
		drawn.SetUserActions(d.Actions)
		rerun, patient := DefaultConfig(), DefaultConfig()
		rerun.Seed, patient.Seed = seed, seed
		a := d.Actions
		a.Timeout = 0
		rerun.SetUserActions(a)
		patient.SetUserActions(a)
		rerun.Timeout = d.Timeout
		if !bytes.Equal(traceBytes(t, drawn), traceBytes(t, rerun)) {
			t.Fatalf("seed %d: impatient, yet its trace differs from a run with --timeout=%v", seed, d.Timeout)
		}
		if bytes.Equal(traceBytes(t, drawn), traceBytes(t, patient)) {
			t.Fatalf("seed %d: impatient, yet its trace is the patient one", seed)
		}
	}
	if n == 0 {
		t.Fatal("no seed of 200 drew the impatient class")
	}
}
