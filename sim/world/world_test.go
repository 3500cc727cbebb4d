package world

import (
	"bytes"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// tb is what both *testing.T and *rapid.T offer.
type tb interface {
	Helper()
	Fatal(args ...any)
}

func traceBytes(t tb, cfg Config) []byte {
	t.Helper()
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := res.Log.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A seed is a pure function of its inputs: two runs give the same bytes.
func TestSameSeedSameTraceBytes(t *testing.T) {
	for _, policy := range []string{"none", "naive", "keyed"} {
		for seed := uint64(1); seed <= 4; seed++ {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Policy = seed, policy
			cfg.Rates = boosted()
			a, b := traceBytes(t, cfg), traceBytes(t, cfg)
			if !bytes.Equal(a, b) {
				t.Fatalf("policy %s seed %d: two runs differ (%d vs %d bytes)", policy, seed, len(a), len(b))
			}
		}
	}
}

// boosted are fault rates high enough that a few seeds hit every kind.
func boosted() map[string]float64 {
	r := netfault.DefaultRates()
	for k := range r {
		r[k] = min(1, r[k]*4)
	}
	return r
}

func judge(t tb, cfg Config) *Verdict {
	t.Helper()
	v, err := Judge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func describe(r *properties.Report) string {
	var b bytes.Buffer
	r.WriteText(&b)
	return b.String()
}

// Without faults every policy gets every submission inserted exactly once.
func TestFaultFreeRunsHaveNoAnomalies(t *testing.T) {
	for _, p := range client.Policies {
		for seed := uint64(1); seed <= 5; seed++ {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Policy = seed, p.Name
			cfg.Rates = map[string]float64{}
			v := judge(t, cfg)
			if !v.Report.OK() || v.Report.Inconclusive {
				t.Fatalf("policy %s seed %d without faults:\n%s", p.Name, seed, describe(v.Report))
			}
			if got := len(v.Report.Submissions); got != cfg.Prompts {
				t.Fatalf("policy %s seed %d: %d submissions judged, want %d", p.Name, seed, got, cfg.Prompts)
			}
		}
	}
}

// The checker reads frames only: removing the simulator's bookkeeping
// events from a trace never changes its verdict.
func TestVerdictIgnoresBookkeeping(t *testing.T) {
	failing := 0
	for _, policy := range []string{"none", "naive", "keyed"} {
		for seed := uint64(1); seed <= 30; seed++ {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Policy, cfg.Rates = seed, policy, boosted()
			v := judge(t, cfg)
			stripped := properties.Check(v.Result.Log.Header, traces.Strip(v.Result.Log.Events, traces.Bookkeeping))
			if a, b := describe(v.Report), describe(stripped); a != b {
				t.Fatalf("policy %s seed %d: verdict changed without bookkeeping events:\n%s\n---\n%s", policy, seed, a, b)
			}
			if !v.Report.OK() {
				failing++
			}
		}
	}
	if failing == 0 {
		t.Fatal("no failing run among the seeds: the comparison proved nothing")
	}
}

// drawPlan draws a whole fault schedule up front, so rapid shrinks the plan
// (drop a fault, lower its ordinal or option) rather than thousands of draws.
// The plan is a rapid slice, not a count then a loop: rapid's shrinker can
// delete any one element of a slice, while a drawn count only drops faults
// from the end, which left a needless fault in the middle of shrunk plans.
func drawPlan(t *rapid.T) []sim.PlannedFault {
	var kinds []string // the faults a stdio world asks for (the HTTP link's are off by default)
	for _, f := range netfault.Faults {
		if f.Rate > 0 {
			kinds = append(kinds, f.Kind)
		}
	}
	fault := rapid.Custom(func(t *rapid.T) sim.PlannedFault {
		return sim.PlannedFault{
			Kind:   rapid.SampledFrom(kinds).Draw(t, "kind"),
			Nth:    rapid.IntRange(0, 120).Draw(t, "nth"),
			Option: rapid.IntRange(1, len(netfault.DelaySteps)-1).Draw(t, "option"),
		}
	})
	return rapid.SliceOfN(fault, 0, 6).Draw(t, "faults")
}

func drawConfig(t *rapid.T, policy string) Config {
	cfg := DefaultConfig()
	cfg.Policy = policy
	cfg.Seed = rapid.Uint64Range(1, 1<<20).Draw(t, "seed")
	cfg.Prompts = rapid.IntRange(1, 6).Draw(t, "prompts")
	cfg.Sessions = rapid.IntRange(1, 2).Draw(t, "sessions")
	return cfg
}

// The keyed Client against the reference Agent shows no anomaly under any
// fault schedule.
func TestKeyedClientNeverShowsAnAnomaly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t, "keyed")
		cfg.Chooser = sim.NewPlan(drawPlan(t))
		v := judge(t, cfg)
		if !v.Report.OK() {
			t.Fatalf("anomaly under plan %+v:\n%s", cfg.Chooser, describe(v.Report))
		}
	})
}

// A naive Client whose prompt response is lost after insertion (the Agent
// dies after the sync, before the response) inserts the prompt twice, and
// the checker says so.
func TestNaiveClientDuplicatesWhenResponseIsLostAfterInsertion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t, "naive")
		plan := drawPlan(t)
		plan = append(plan, sim.PlannedFault{Kind: netfault.Kill, Match: "/respond-prompt", Nth: rapid.IntRange(0, cfg.Prompts-1).Draw(t, "victim"), Option: 1})
		cfg.Chooser = sim.NewPlan(plan)
		v := judge(t, cfg)
		if !killedBeforeResponse(v.Result.Log) {
			t.Skip("the planned kill was not reached (the run had fewer responses)")
		}
		for _, a := range v.Report.Anomalies {
			if a.Kind == properties.Duplicate {
				return
			}
		}
		t.Fatalf("no duplicate reported:\n%s", describe(v.Report))
	})
}

func killedBeforeResponse(l *traces.Log) bool {
	for _, e := range l.Events {
		if e.Kind == traces.KindKill && e.Note == "killed before respond-prompt" {
			return true
		}
	}
	return false
}

func ExampleJudge() {
	cfg := DefaultConfig()
	cfg.Seed = 42
	cfg.Rates = map[string]float64{} // no faults
	v, err := Judge(cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(v.Report.Submissions), "submissions, anomalies:", len(v.Report.Anomalies))
	// Output: 10 submissions, anomalies: 0
}

// A Runner reuses memory between seeds, never state: seed after seed on
// one Runner, over links, sizes and a run that hits its cap (its queue
// still full), every trace equals that seed's own fresh run.
func TestRunnerSeedsEqualFreshRuns(t *testing.T) {
	var r Runner
	for i, link := range []string{LinkStdio, LinkHTTP, LinkWS, LinkMixed, LinkStdio, LinkWS} {
		cfg := DefaultConfig()
		cfg.Seed, cfg.Link, cfg.Prompts = uint64(i+1), link, 3+7*(i%3)
		if i == 4 {
			cfg.MaxEvents = 1000 // stops while busy
			cfg.Prompts = 60
		}
		cfg.EnableLinkFaults()
		cfg.Rates = boosted()
		res, err := r.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := res.Log.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		if fresh := traceBytes(t, cfg); !bytes.Equal(b.Bytes(), fresh) {
			t.Fatalf("seed %d on %s: the Runner's trace (%d bytes) differs from a fresh run's (%d bytes)", cfg.Seed, link, b.Len(), len(fresh))
		}
	}
}
