package world

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// liveRuns are seeds across policies, links and Agents, mutants among them
// so that failing verdicts are compared too.
func liveRuns() []Config {
	var cfgs []Config
	agents := append([]string{""}, mutants.Names()...)
	i := 0
	for _, link := range []string{LinkStdio, LinkHTTP, LinkWS, LinkMixed} {
		for _, policy := range []string{"none", "naive", "keyed", "bounded", "stale", "lookup"} {
			for seed := uint64(1); seed <= 2; seed++ {
				c := DefaultConfig()
				c.Seed, c.Policy, c.Link = seed, policy, link
				c.EnableLinkFaults()
				c.Rates = boosted()
				if a := agents[i%len(agents)]; a != "" {
					c.UseAgent(a)
					c.Cancels, c.Closes, c.Forks = 2, 1, 1
				}
				i++
				cfgs = append(cfgs, c)
			}
		}
	}
	return cfgs
}

// reportBytes is a report as people and tools read it: its text and its JSON.
func reportBytes(t *testing.T, r *properties.Report) string {
	t.Helper()
	j, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return describe(r) + "\n" + string(j)
}

// The checker fed as the run goes gives the report properties.Check gives
// on the kept trace, whether the run keeps its trace (Judge) or not
// (JudgeOnly), and the counts a run without its trace reports are the
// trace's. One Runner serves both in turn, as a swarm's worker reuses it.
func TestLiveVerdictIsTheVerdictOfTheTrace(t *testing.T) {
	var r Runner
	failing := 0
	for _, cfg := range liveRuns() {
		name := fmt.Sprintf("%s/%s/%s/%d", cfg.Link, cfg.Policy, cfg.Agent, cfg.Seed)
		only, err := r.JudgeOnly(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if only.Result.Log != nil {
			t.Fatalf("%s: JudgeOnly kept a trace", name)
		}
		gotOnly, counts := reportBytes(t, only.Report), *only.Result
		v, err := r.Judge(cfg)
		if err != nil {
			t.Fatal(err)
		}
		log := v.Result.Log
		want := reportBytes(t, properties.Check(log.Header, log.Events))
		if got := reportBytes(t, v.Report); got != want {
			t.Fatalf("%s: Judge's live report differs from Check on its trace:\n%s\nwant:\n%s", name, got, want)
		}
		if gotOnly != want {
			t.Fatalf("%s: JudgeOnly's report differs from Check on the trace:\n%s\nwant:\n%s", name, gotOnly, want)
		}
		// Interned ahead, as a producer of steps does, the trace judges the same.
		in := properties.NewInterner(true)
		steps := make([]properties.Step, len(log.Events))
		for i := range log.Events {
			steps[i] = in.Step(&log.Events[i])
		}
		sc := properties.NewStepChecker(log.Header, in, len(steps))
		for i := range steps {
			sc.AddStep(&steps[i])
		}
		if got := reportBytes(t, sc.Finish()); got != want {
			t.Fatalf("%s: the checker of interned steps differs from Check on the trace:\n%s\nwant:\n%s", name, got, want)
		}
		if !only.Report.OK() {
			failing++
		}
		submits, delivers, chosen := 0, 0, 0
		for _, e := range log.Events {
			switch e.Kind {
			case traces.KindSubmit:
				submits++
			case traces.KindDeliver:
				delivers++
			case traces.KindChoose:
				chosen++
			}
		}
		faults := 0 // the matrix counts a run's faults from the tally
		for _, f := range counts.Faults {
			faults += f.Faults
		}
		if counts.Events != len(log.Events) || counts.Submits != submits || counts.Delivers != delivers || faults != chosen {
			t.Fatalf("%s: JudgeOnly counted %d events, %d submits, %d delivers, %d faults; the trace has %d, %d, %d, %d",
				name, counts.Events, counts.Submits, counts.Delivers, faults, len(log.Events), submits, delivers, chosen)
		}
	}
	t.Logf("%d of %d runs failed", failing, len(liveRuns()))
	if failing == 0 {
		t.Fatal("no run failed: the comparison never saw an anomaly")
	}
}

// A swarm that keeps no trace sums up its seeds as one that keeps them (the
// determinism check reads each seed's trace, so it takes Judge).
func TestSwarmWithoutTracesSumsUpAsWithThem(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Policy = "naive" // seeds that fail, with anomalies to sum up
	cfg.EnableLinkFaults()
	cfg.Rates = boosted()
	sc := SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 40, Workers: 2}
	only, err := Swarm(sc)
	if err != nil {
		t.Fatal(err)
	}
	sc.CheckDeterminism = true
	kept, err := Swarm(sc)
	if err != nil {
		t.Fatal(err)
	}
	if kept.NotDeterministic != 0 {
		t.Fatalf("%d seeds not deterministic", kept.NotDeterministic)
	}
	a, _ := json.Marshal(only)
	b, _ := json.Marshal(kept)
	if string(a) != string(b) {
		t.Fatalf("the swarm without traces sums up\n%s\nwith them\n%s", a, b)
	}
	if only.Failed == 0 || only.Events == 0 {
		t.Fatalf("%d failed of %d events: nothing compared", only.Failed, only.Events)
	}
}

// Coverage counted as the run goes (JudgeCovering) is what CoverageOf reads
// from the kept trace, and the verdict is Judge's.
func TestLiveCoverageIsTheCoverageOfTheTrace(t *testing.T) {
	var r Runner
	hit := 0
	for _, cfg := range liveRuns() {
		name := fmt.Sprintf("%s/%s/%s/%d", cfg.Link, cfg.Policy, cfg.Agent, cfg.Seed)
		live, err := r.JudgeCovering(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if live.Result.Log != nil {
			t.Fatalf("%s: JudgeCovering kept a trace", name)
		}
		got, rep := slices.Clone(live.Result.Coverage), reportBytes(t, live.Report)
		kept, err := r.Judge(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if want := CoverageOf(&cfg, kept.Result.Log); !slices.Equal(got, want) {
			t.Fatalf("%s: live coverage %v, the trace's %v", name, got, want)
		}
		if want := reportBytes(t, kept.Report); rep != want {
			t.Fatalf("%s: JudgeCovering's report differs from Judge's:\n%s\n---\n%s", name, rep, want)
		}
		for _, n := range got {
			hit += n
		}
	}
	if hit == 0 {
		t.Fatal("no run hit a coverage pair: the comparison proved nothing")
	}
}
