package world

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// An Agent whose every session/resume answers -32603 gets its verdict from
// the Client's bounded backoff, not from the cap: every seed ends quiet,
// within a few hundred events, and fails with setup-failed naming the
// resume, with no pile of lost or unresolved submissions; the reference
// Agent's same seeds show no setup-failed; and a seed runs to the same
// bytes twice.
func TestResumeAlwaysErrorsEndsQuietWithSetupFailed(t *testing.T) {
	const seeds = 40
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, name := range []string{"resume-always-errors", agent.Reference} {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Agent = seed, name
			res, err := Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rep := properties.Check(res.Log.Header, res.Log.Events)
			end := res.Log.Events[len(res.Log.Events)-1]
			if end.Kind != traces.KindEnd || end.Note != traces.EndQuiet {
				t.Fatalf("seed %d, %s: the run ended %q, want quiet", seed, name, end.Note)
			}
			kinds := map[string]int{}
			for _, a := range rep.Anomalies {
				kinds[a.Kind]++
			}
			if name == agent.Reference {
				if kinds[properties.SetupFailed] != 0 {
					t.Fatalf("seed %d: the reference Agent shows setup-failed: %+v", seed, rep.Anomalies)
				}
				continue
			}
			if n := len(res.Log.Events); n > 2000 {
				t.Errorf("seed %d: %d events, want the Client to give up long before", seed, n)
			}
			if kinds[properties.SetupFailed] == 0 || kinds[properties.Lost] != 0 || kinds[properties.Unresolved] != 0 {
				t.Fatalf("seed %d: anomalies %v, want setup-failed and no lost or unresolved:\n%+v", seed, kinds, rep.Anomalies)
			}
			for _, a := range rep.Anomalies {
				if a.Kind != properties.SetupFailed {
					continue
				}
				if !strings.Contains(a.Explanation, "session/resume of session") || !strings.Contains(a.Explanation, "-32603 'storage unavailable'") {
					t.Errorf("seed %d: %s", seed, a.Explanation)
				}
			}
		}
	}
	cfg := DefaultConfig()
	cfg.Seed, cfg.Agent, cfg.Rates = 3, "resume-always-errors", boosted()
	if d, err := CheckDeterminism(cfg); err != nil || !d.Equal {
		t.Fatalf("determinism: %v %v", d, err)
	}
}
