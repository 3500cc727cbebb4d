package world

import (
	"maps"
	"slices"
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/traces"
)

// Every fault kind but route belongs to exactly one class.
func TestEveryFaultKindHasOneClass(t *testing.T) {
	seen := map[string]string{}
	for _, c := range FaultClasses {
		for _, k := range c.Kinds {
			if other, dup := seen[k]; dup {
				t.Errorf("%s is in classes %s and %s", k, other, c.Name)
			}
			seen[k] = c.Name
		}
	}
	for _, f := range netfault.Faults {
		if _, ok := seen[f.Kind]; !ok && f.Kind != netfault.Route {
			t.Errorf("fault kind %s has no class", f.Kind)
		}
		delete(seen, f.Kind)
	}
	if len(seen) > 0 {
		t.Errorf("classes name kinds netfault does not have: %v", seen)
	}
}

// A seed's draw is a function of the seed alone: the same on every call,
// the same classes on whatever the other classes' rates, rates between a
// quarter and four times the base, two significant digits, and a class
// with no rate in the base (HTTP's on stdio) never on.
func TestDrawClassesIsAFunctionOfTheSeed(t *testing.T) {
	stdio := DefaultConfig()
	http := DefaultConfig()
	http.Link = LinkHTTP
	http.EnableLinkFaults()
	ons := map[string]int{}
	for seed := uint64(1); seed <= 400; seed++ {
		a, b := DrawClasses(seed, stdio.Rates, nil), DrawClasses(seed, stdio.Rates, nil)
		if !maps.Equal(a.Rates, b.Rates) || !slices.Equal(a.On, b.On) {
			t.Fatalf("seed %d: two draws differ: %v %v", seed, a, b)
		}
		h := DrawClasses(seed, http.Rates, nil)
		if slices.Contains(a.On, "loss") {
			t.Fatalf("seed %d: loss on over stdio, which has none", seed)
		}
		if got := slices.DeleteFunc(slices.Clone(h.On), func(c string) bool { return c == "loss" }); !slices.Equal(got, a.On) {
			t.Fatalf("seed %d: classes on over stdio %v, over http %v: the HTTP rates moved the other draws", seed, a.On, h.On)
		}
		for _, k := range ClassedKinds(stdio.Rates) {
			if a.Rates[k] != h.Rates[k] {
				t.Fatalf("seed %d: %s is %g over stdio, %g over http", seed, k, a.Rates[k], h.Rates[k])
			}
			r, base := a.Rates[k], stdio.Rates[k]
			if r != 0 && (r < base/4*0.95 || r > min(1, base*4*1.05) || r != roundRate(r)) {
				t.Fatalf("seed %d: %s rate %g from base %g", seed, k, r, base)
			}
		}
		for _, c := range a.On {
			ons[c]++
		}
		if a.Rates[netfault.Route] != stdio.Rates[netfault.Route] {
			t.Fatalf("seed %d: route changed", seed)
		}
	}
	for _, c := range PresentClasses(stdio.Rates) {
		if ons[c] < 150 || ons[c] > 250 {
			t.Errorf("class %s on in %d of 400 seeds, want about half", c, ons[c])
		}
	}
}

// A swarm with classes counts each class's seeds, and every failing seed's
// rates rerun it on their own: the same anomalies from a plain run.
func TestSwarmClassesAreCountedAndFailuresRerun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Policy = "naive"
	sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 100, Classes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Classes) != len(PresentClasses(cfg.Rates)) || sum.Failed == 0 {
		t.Fatalf("classes %+v, %d failed", sum.Classes, sum.Failed)
	}
	for _, c := range sum.Classes {
		if c.On == 0 || c.On == 100 || c.Failed > c.On {
			t.Errorf("class %+v", c)
		}
	}
	for _, f := range sum.Failures[:min(5, len(sum.Failures))] {
		if f.Rates == nil {
			t.Fatalf("seed %d: no rates", f.Seed)
		}
		again := cfg
		again.Seed, again.Rates = f.Seed, f.Rates
		v, err := Judge(again)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, a := range v.Report.Anomalies {
			if !slices.Contains(kinds, a.Kind) {
				kinds = append(kinds, a.Kind)
			}
		}
		if !slices.Equal(kinds, f.Kinds) {
			t.Errorf("seed %d: swarm found %v, its rerun %v", f.Seed, f.Kinds, kinds)
		}
		// The draw has a stream of its own: the users type the same.
		plain := cfg
		plain.Seed = f.Seed
		u, err := Run(plain)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := submits(u.Log.Events), submits(v.Result.Log.Events); !slices.Equal(a, b) {
			t.Errorf("seed %d: the users' submissions differ with classes:\n%v\n%v", f.Seed, a, b)
		}
	}
	// Off, nothing changes: no class counts, failures keep the base rates.
	off, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 20})
	if err != nil {
		t.Fatal(err)
	}
	if off.Classes != nil || (len(off.Failures) > 0 && off.Failures[0].Rates != nil) {
		t.Fatalf("classes off: %+v", off.Classes)
	}
}

func submits(evs []traces.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == traces.KindSubmit {
			out = append(out, e.Sub+" "+e.Text)
		}
	}
	return out
}

// With classes on, as acpsim swarm runs by default, every known-bad Agent
// is still caught and the reference Agent still passes (the users cancel,
// close and fork, as in TestSwarmCatchesEveryMutantAndNotTheReference).
func TestSwarmWithClassesCatchesEveryMutant(t *testing.T) {
	const seeds = 300
	for _, name := range append([]string{agent.Reference}, mutants.Names()...) {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.UseAgent(name) // with what its bug needs to show (lost-writes: nodes)
			cfg.Cancels, cfg.Closes, cfg.Forks = 2, 1, 1
			sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: seeds, Classes: true})
			if err != nil {
				t.Fatal(err)
			}
			want := mutants.Catches(name)
			if want == "" {
				if sum.Failed != 0 || sum.Inconclusive != 0 {
					t.Fatalf("reference Agent: %d failed, %d inconclusive seeds (first: %+v)", sum.Failed, sum.Inconclusive, sum.Failures[0])
				}
				return
			}
			for _, k := range sum.Anomalies {
				if k.Kind == want && k.Seeds > 0 {
					return
				}
			}
			t.Fatalf("%s: no %s in %d seeds with classes; anomalies: %+v", name, want, seeds, sum.Anomalies)
		})
	}
}
