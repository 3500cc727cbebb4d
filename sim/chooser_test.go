package sim_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/acpsim/acpsim/sim"
)

// chooserFunc adapts a function to sim.Chooser.
type chooserFunc func(sim.Decision) int

func (f chooserFunc) Choose(d sim.Decision) int { return f(d) }

// decisions is a fixed mix of kinds, sites and option counts.
func decisions(n int) []sim.Decision {
	kinds := []string{"delay", "cut", "kill", "reject"}
	sizes := []int{5, 2, 2, 3}
	out := make([]sim.Decision, n)
	for i := range out {
		k := i % len(kinds)
		out[i] = sim.Decision{Kind: kinds[k], Site: fmt.Sprintf("link/c2a/%d", i), N: sizes[k]}
	}
	return out
}

func draw(c sim.Chooser, ds []sim.Decision) []int {
	out := make([]int, len(ds))
	for i, d := range ds {
		out[i] = c.Choose(d)
	}
	return out
}

var halfRates = map[string]float64{"delay": 0.5, "cut": 0.5, "kill": 0.5, "reject": 0.5}

func TestSeededSameSeedSameDecisions(t *testing.T) {
	ds := decisions(2000)
	a := draw(sim.NewSeeded(42, halfRates), ds)
	b := draw(sim.NewSeeded(42, halfRates), ds)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two Choosers of seed 42 made different decisions")
	}
	faults := 0
	for i, opt := range a {
		if opt < 0 || opt >= ds[i].N {
			t.Fatalf("decision %d (%+v): option %d out of [0,%d)", i, ds[i], opt, ds[i].N)
		}
		if opt != 0 {
			faults++
		}
	}
	if faults < 800 || faults > 1200 {
		t.Errorf("rate 0.5 over %d decisions gave %d faults, want about half", len(ds), faults)
	}
	if c := draw(sim.NewSeeded(43, halfRates), ds); reflect.DeepEqual(a, c) {
		t.Error("seeds 42 and 43 made the same 2000 decisions")
	}
}

func TestSeededRates(t *testing.T) {
	c := sim.NewSeeded(1, map[string]float64{"never": 0, "always": 1})
	seen := map[int]int{}
	for i := range 1000 {
		site := fmt.Sprint(i)
		if got := c.Choose(sim.Decision{Kind: "never", Site: site, N: 5}); got != 0 {
			t.Fatalf("rate 0: got option %d, want 0", got)
		}
		if got := c.Choose(sim.Decision{Kind: "unlisted", Site: site, N: 5}); got != 0 {
			t.Fatalf("kind without a rate: got option %d, want 0", got)
		}
		got := c.Choose(sim.Decision{Kind: "always", Site: site, N: 5})
		if got < 1 || got >= 5 {
			t.Fatalf("rate 1: got option %d, want one in [1,5)", got)
		}
		seen[got]++
	}
	for opt := 1; opt < 5; opt++ {
		if seen[opt] < 150 {
			t.Errorf("rate 1, N=5: option %d drawn %d times of 1000, want the non-zero options drawn uniformly (%v)", opt, seen[opt], seen)
		}
	}
	for _, n := range []int{1, 0, -1} {
		if got := c.Choose(sim.Decision{Kind: "always", Site: "x", N: n}); got != 0 {
			t.Errorf("rate 1, N=%d: got option %d, want 0", n, got)
		}
	}
}

// The World draws ids from NewIDs(seed) and faults from NewSeeded(seed) side
// by side: how many ids it draws must not change a single fault decision.
func TestSeededIndependentOfIDs(t *testing.T) {
	ds := decisions(500)
	want := draw(sim.NewSeeded(9, halfRates), ds)

	c := sim.NewSeeded(9, halfRates)
	ids := sim.NewIDs(9)
	got := make([]int, len(ds))
	buf := make([]byte, 13)
	for i, d := range ds {
		for range i % 4 {
			ids.UUID()
			ids.IntN(7)
			ids.Float64()
			ids.Read(buf)
		}
		got[i] = c.Choose(d)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("drawing from the id stream of the same seed changed the fault decisions")
	}
}

func TestHealthyNeverFaults(t *testing.T) {
	for _, d := range decisions(20) {
		if got := (sim.Healthy{}).Choose(d); got != 0 {
			t.Fatalf("Healthy chose %d for %+v", got, d)
		}
	}
}

func TestRecorderCountsAndReports(t *testing.T) {
	answers := []int{0, 1, 0, 2, 0, 1}
	i := 0
	inner := chooserFunc(func(sim.Decision) int { i++; return answers[i-1] })
	var faults []sim.Choice
	r := &sim.Recorder{Inner: inner, OnFault: func(c sim.Choice) { faults = append(faults, c) }}

	asked := []sim.Decision{
		{Kind: "kill", Site: "agent#1/prompt/stored", N: 2},
		{Kind: "cut", Site: "p/c2a/1", N: 2},
		{Kind: "kill", Site: "agent#1/prompt/synced", N: 2},
		{Kind: "delay", Site: "p/c2a/1", N: 5},
		{Kind: "cut", Site: "p/a2c/1", N: 2},
		{Kind: "kill", Site: "agent#2/prompt/stored", N: 2},
	}
	for k, d := range asked {
		if got := r.Choose(d); got != answers[k] {
			t.Fatalf("decision %d: Recorder returned %d, inner chose %d", k, got, answers[k])
		}
	}
	wantTally := []sim.KindCount{
		{Kind: "kill", Asked: 3, Faults: 1},
		{Kind: "cut", Asked: 2, Faults: 1},
		{Kind: "delay", Asked: 1, Faults: 1},
	}
	if got := r.Tally(); !reflect.DeepEqual(got, wantTally) {
		t.Errorf("Tally = %+v, want %+v (kinds in first-asked order)", got, wantTally)
	}
	wantFaults := []sim.Choice{
		{Decision: asked[1], Option: 1},
		{Decision: asked[3], Option: 2},
		{Decision: asked[5], Option: 1},
	}
	if !reflect.DeepEqual(faults, wantFaults) {
		t.Errorf("OnFault saw %+v, want only the non-zero choices %+v", faults, wantFaults)
	}
}

func TestRecorderWithoutOnFault(t *testing.T) {
	r := &sim.Recorder{Inner: chooserFunc(func(sim.Decision) int { return 1 })}
	if got := r.Choose(sim.Decision{Kind: "cut", Site: "s", N: 2}); got != 1 {
		t.Fatalf("got %d, want 1", got)
	}
	if got := r.Tally(); len(got) != 1 || got[0].Faults != 1 {
		t.Errorf("Tally = %+v, want one cut fault", got)
	}
}

func TestRecorderClampsOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		name  string
		inner int
		n     int
	}{
		{"too large", 5, 2},
		{"equal to N", 2, 2},
		{"negative", -1, 3},
		{"N zero", 1, 0},
		{"N one", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reported := 0
			r := &sim.Recorder{
				Inner:   chooserFunc(func(sim.Decision) int { return tc.inner }),
				OnFault: func(sim.Choice) { reported++ },
			}
			if got := r.Choose(sim.Decision{Kind: "k", Site: "s", N: tc.n}); got != 0 {
				t.Errorf("inner %d for N=%d: got %d, want 0", tc.inner, tc.n, got)
			}
			if reported != 0 {
				t.Errorf("a clamped choice was reported to OnFault")
			}
			if got := r.Tally(); !reflect.DeepEqual(got, []sim.KindCount{{Kind: "k", Asked: 1}}) {
				t.Errorf("Tally = %+v, want one asked, no fault", got)
			}
		})
	}
}

func TestPlanInjectsNthMatchingDecision(t *testing.T) {
	p := sim.NewPlan([]sim.PlannedFault{{Kind: "cut", Match: "client-1:", Nth: 1, Option: 1}})
	for _, tc := range []struct {
		d    sim.Decision
		want int
	}{
		{sim.Decision{Kind: "cut", Site: "client-1:agent#1/c2a/1", N: 2}, 0},   // 0th match
		{sim.Decision{Kind: "cut", Site: "client-2:agent#1/c2a/1", N: 2}, 0},   // site does not match
		{sim.Decision{Kind: "delay", Site: "client-1:agent#1/c2a/2", N: 5}, 0}, // other kind
		{sim.Decision{Kind: "cut", Site: "client-1:agent#1/a2c/1", N: 2}, 1},   // 1st match
		{sim.Decision{Kind: "cut", Site: "client-1:agent#1/a2c/2", N: 2}, 0},   // fired already
		{sim.Decision{Kind: "cut", Site: "client-1:agent#2/c2a/1", N: 2}, 0},
	} {
		if got := p.Choose(tc.d); got != tc.want {
			t.Errorf("Choose(%+v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

func TestPlanClampsOption(t *testing.T) {
	for _, tc := range []struct {
		option, n, want int
	}{
		{option: 3, n: 5, want: 3},
		{option: 9, n: 5, want: 4},
		{option: 0, n: 5, want: 1},
		{option: -2, n: 2, want: 1},
		{option: 1, n: 1, want: 0}, // a decision with no fault option
		{option: 1, n: 0, want: 0},
	} {
		p := sim.NewPlan([]sim.PlannedFault{{Kind: "delay", Nth: 0, Option: tc.option}})
		if got := p.Choose(sim.Decision{Kind: "delay", Site: "s", N: tc.n}); got != tc.want {
			t.Errorf("Option %d, N=%d: got %d, want %d", tc.option, tc.n, got, tc.want)
		}
	}
}

func TestPlanTwoFaultsOfOneKind(t *testing.T) {
	p := sim.NewPlan([]sim.PlannedFault{
		{Kind: "kill", Match: "agent", Nth: 2, Option: 1},
		{Kind: "kill", Match: "agent", Nth: 0, Option: 1},
		{Kind: "reject", Match: "", Nth: 1, Option: 1},
	})
	var kills, rejects []int
	for i := range 5 {
		kills = append(kills, p.Choose(sim.Decision{Kind: "kill", Site: fmt.Sprintf("agent#1/step/%d", i), N: 2}))
		rejects = append(rejects, p.Choose(sim.Decision{Kind: "reject", Site: fmt.Sprintf("agent#1/prompt/%d", i), N: 2}))
	}
	if want := []int{1, 0, 1, 0, 0}; !reflect.DeepEqual(kills, want) {
		t.Errorf("kill decisions = %v, want %v", kills, want)
	}
	if want := []int{0, 1, 0, 0, 0}; !reflect.DeepEqual(rejects, want) {
		t.Errorf("reject decisions = %v, want %v", rejects, want)
	}
}

// Two planned faults that land on one decision: the one listed first decides,
// and both count as spent.
func TestPlanFaultsOnTheSameDecision(t *testing.T) {
	p := sim.NewPlan([]sim.PlannedFault{
		{Kind: "delay", Match: "c2a", Nth: 0, Option: 2},
		{Kind: "delay", Match: "/1", Nth: 0, Option: 4},
	})
	var got []int
	for _, site := range []string{"p/c2a/1", "p/c2a/2", "p/a2c/1"} {
		got = append(got, p.Choose(sim.Decision{Kind: "delay", Site: site, N: 5}))
	}
	if want := []int{2, 0, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("decisions = %v, want %v", got, want)
	}
}

func TestPlanEmptyIsHealthy(t *testing.T) {
	p := sim.NewPlan(nil)
	for _, d := range decisions(50) {
		if got := p.Choose(d); got != 0 {
			t.Fatalf("empty plan chose %d for %+v", got, d)
		}
	}
}

func ExampleRecorder() {
	// Every cut decision faults, no delay decision does, and "kill" has no rate.
	seeded := sim.NewSeeded(1, map[string]float64{"cut": 1, "delay": 0})
	r := &sim.Recorder{Inner: seeded, OnFault: func(c sim.Choice) {
		fmt.Printf("fault: %s at %s, option %d\n", c.Kind, c.Site, c.Option)
	}}
	r.Choose(sim.Decision{Kind: "delay", Site: "c1:a1/c2a/1", N: 5})
	r.Choose(sim.Decision{Kind: "kill", Site: "a1/prompt/stored", N: 2})
	r.Choose(sim.Decision{Kind: "cut", Site: "c1:a1/c2a/2", N: 2})
	r.Choose(sim.Decision{Kind: "delay", Site: "c1:a1/c2a/2", N: 5})
	for _, k := range r.Tally() {
		fmt.Printf("%s: asked %d, faults %d\n", k.Kind, k.Asked, k.Faults)
	}
	// Output:
	// fault: cut at c1:a1/c2a/2, option 1
	// delay: asked 2, faults 0
	// kill: asked 1, faults 0
	// cut: asked 1, faults 1
}

func ExamplePlan() {
	// Cut the second frame the Client writes to agent#1, and nothing else.
	p := sim.NewPlan([]sim.PlannedFault{{Kind: "cut", Match: "agent#1/c2a", Nth: 1, Option: 1}})
	for _, site := range []string{"c:agent#1/c2a/1", "c:agent#1/a2c/1", "c:agent#1/c2a/2", "c:agent#1/c2a/3"} {
		fmt.Println(site, p.Choose(sim.Decision{Kind: "cut", Site: site, N: 2}))
	}
	// Output:
	// c:agent#1/c2a/1 0
	// c:agent#1/a2c/1 0
	// c:agent#1/c2a/2 1
	// c:agent#1/c2a/3 0
}

func TestScheduleAnswersRecordedSitesOnly(t *testing.T) {
	s := sim.NewSchedule([]sim.Choice{
		{Decision: sim.Decision{Kind: "kill", Site: "a1#1/3/respond-prompt"}, Option: 1},
		{Decision: sim.Decision{Kind: "delay", Site: "c1/c2a/2"}, Option: 9},
	})
	cases := []struct {
		d    sim.Decision
		want int
	}{
		{sim.Decision{Kind: "kill", Site: "a1#1/3/respond-prompt", N: 2}, 1},
		{sim.Decision{Kind: "kill", Site: "a1#1/4/respond-prompt", N: 2}, 0}, // not recorded
		{sim.Decision{Kind: "cut", Site: "a1#1/3/respond-prompt", N: 2}, 0},  // other kind, same site
		{sim.Decision{Kind: "delay", Site: "c1/c2a/2", N: 5}, 0},             // option out of range
	}
	for _, c := range cases {
		if got := s.Choose(c.d); got != c.want {
			t.Errorf("Choose(%+v) = %d, want %d", c.d, got, c.want)
		}
	}
}

// A decision made by Numbered is, to every chooser and record, the decision
// with its whole site written out.
func TestNumberedDecisionsReadAsTheirWholeSite(t *testing.T) {
	pairs := []struct {
		lazy sim.Decision
		site string
	}{
		{sim.Numbered("cut", "c1:a1#1/c2a", 3, "", false, 2), "c1:a1#1/c2a/3"},
		{sim.Numbered("kill", "a1#1", 7, "respond-prompt", true, 2), "a1#1/7/respond-prompt"},
		{sim.Numbered("kill", "a1#1", 0, "", true, 2), "a1#1/0/"},
	}
	for _, p := range pairs {
		whole := sim.Decision{Kind: p.lazy.Kind, Site: p.site, N: p.lazy.N}
		if got := p.lazy.Where(); got != p.site {
			t.Errorf("Where() = %q, want %q", got, p.site)
		}
		if got := p.lazy.Named(); got != whole {
			t.Errorf("Named() = %+v, want %+v", got, whole)
		}
		var faults []sim.Choice
		rec := &sim.Recorder{Inner: chooserFunc(func(sim.Decision) int { return 1 }), OnFault: func(c sim.Choice) { faults = append(faults, c) }}
		rec.Choose(p.lazy)
		if len(faults) != 1 || faults[0].Decision != whole {
			t.Errorf("the recorder's fault: %+v, want %+v", faults, whole)
		}
		if got := sim.NewSchedule([]sim.Choice{{Decision: whole, Option: 1}}).Choose(p.lazy); got != 1 {
			t.Errorf("a schedule recording %q answered %d, want 1", p.site, got)
		}
		bySite := sim.BySite{Seed: 9, Rates: map[string]float64{p.lazy.Kind: 0.5}}
		for seed := range uint64(32) {
			bySite.Seed = seed
			if a, b := bySite.Choose(p.lazy), bySite.Choose(whole); a != b {
				t.Errorf("seed %d: BySite answered %d for the numbered decision, %d for %q", seed, a, b, p.site)
			}
		}
		plan := sim.NewPlan([]sim.PlannedFault{{Kind: p.lazy.Kind, Match: p.site, Option: 1}})
		if got := plan.Choose(p.lazy); got != 1 {
			t.Errorf("a plan matching %q answered %d, want 1", p.site, got)
		}
	}
}
