package world

import (
	"testing"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
)

func shows(r *properties.Report, kind string) bool {
	for _, a := range r.Anomalies {
		if a.Kind == kind {
			return true
		}
	}
	return false
}

// A code change that adds one draw to the fault stream (ExtraDraws) gives a
// seed another run: the duplicate it showed is gone. The trace recorded
// before the change still reproduces the duplicate, because replay matches
// faults by kind and site, not by position in the stream.
func TestARecordedTraceSurvivesAnExtraDrawWhileItsSeedDoesNot(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		cfg := DefaultConfig()
		cfg.Policy, cfg.Seed = "naive", seed
		old, err := Judge(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !shows(old.Report, properties.Duplicate) {
			continue
		}
		cfg.ExtraDraws = 1 // the code change
		now, err := Judge(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if shows(now.Report, properties.Duplicate) {
			continue // this seed happens to duplicate either way: look for one that does not
		}
		cfg.Chooser = sim.NewSchedule(sim.Recorded(old.Result.Log.Events))
		replayed, err := Judge(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !shows(replayed.Report, properties.Duplicate) {
			t.Fatalf("seed %d: the recorded trace no longer reproduces its duplicate after the extra draw", seed)
		}
		return
	}
	t.Fatal("no seed of 200 lost its duplicate to the extra draw: the test shows nothing")
}
