package mutation_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim/mutation"
)

// The table has at least 15 mutants over Agents, Clients and proxies, each
// with a one-line doc, an anomaly kind the checkers know and a setup a run
// accepts.
func TestTable(t *testing.T) {
	all := mutation.All()
	if len(all) < 15 {
		t.Errorf("%d mutants, want at least 15", len(all))
	}
	actors := map[string]int{}
	names := map[string]bool{}
	for _, m := range all {
		actors[m.Actor]++
		if names[m.Name] {
			t.Errorf("%s: twice in the table", m.Name)
		}
		names[m.Name] = true
		if m.Doc == "" || strings.Contains(m.Doc, "\n") {
			t.Errorf("%s: doc %q, want one line", m.Name, m.Doc)
		}
		if !slices.Contains(properties.Kinds, m.Expect) {
			t.Errorf("%s: expects %q, not an anomaly kind", m.Name, m.Expect)
		}
		if _, err := m.Setup.Config(); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
		if !strings.HasPrefix(m.Setup.Rerun(7), "acpsim run --seed 7 --") {
			t.Errorf("%s: rerun %q", m.Name, m.Setup.Rerun(7))
		}
	}
	if actors[mutation.ActorAgent] == 0 || actors[mutation.ActorClient] < 5 || actors[mutation.ActorProxy] != len(proxy.Modes)-1 {
		t.Errorf("mutants per actor %v: want Agents, at least 5 Clients, and every known-bad proxy mode", actors)
	}
}

// clientSeeds is how many seeds a known-bad Client may take to be caught
// in the test, where `acpsim mutants` allows 100: gives-up-silently needs
// more than 30 since the Client writes a window of prompts and backs off
// from a timeout, so it reaches MaxAttempts less often.
const clientSeeds = 60

// Each known-bad Client is caught by its expected anomaly within a few
// seeds, and the keyed Client, with the same users, knobs and rates, is not
// caught at all in those seeds (nor, for gives-up-silently, the bounded
// Client whose "unknown" it turns into silence).
func TestClientMutantsCaughtAndKeyedNot(t *testing.T) {
	for _, m := range mutation.All() {
		if m.Actor != mutation.ActorClient {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			ms := []mutation.Mutant{m}
			for _, policy := range []string{"keyed", "bounded"} {
				if policy == "keyed" || m.Name == "gives-up-silently" {
					twin := m
					twin.Name, twin.Setup.Policy = policy, policy
					ms = append(ms, twin)
				}
			}
			res, err := mutation.Run(ms, mutation.Options{MaxSeeds: clientSeeds, Runs: 1, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			if r := res[0]; !r.OK() {
				t.Errorf("%s: not caught by %s within %d seeds: %+v", m.Name, m.Expect, clientSeeds, r.Runs)
			}
			for _, r := range res[1:] {
				if r.Caught != 0 {
					t.Errorf("%v: %v at seed %d (%s)", r.Setup.Flags(), r.Kinds, r.Runs[0].Seed, r.Rerun)
				}
			}
		})
	}
}

// How many jobs run the seeds changes nothing in the results.
func TestJobsDoNotChangeResults(t *testing.T) {
	var ms []mutation.Mutant
	for i, m := range mutation.All() {
		if i%3 == 0 || m.Name == "fold-key-case" { // a third, and one that takes many seeds
			ms = append(ms, m)
		}
	}
	o := mutation.Options{MaxSeeds: 100, Runs: 2, Jobs: 1}
	one, err := mutation.Run(ms, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Jobs = 5
	progress := 0
	o.Progress = func(done, total int) {
		if done < progress || total != len(ms)*2 {
			t.Errorf("progress %d of %d after %d", done, total, progress)
		}
		progress = done
	}
	five, err := mutation.Run(ms, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, five) {
		t.Errorf("--jobs 1 and 5 differ:\n%+v\n%+v", one, five)
	}
	if progress != len(ms)*2 {
		t.Errorf("progress ended at %d of %d", progress, len(ms)*2)
	}
}

// The reference Agent with the keyed Client is no mutant: nothing catches
// it, and the result says so.
func TestNotCaught(t *testing.T) {
	ref := mutation.Mutant{Actor: mutation.ActorAgent, Name: "reference", Expect: properties.Duplicate, Setup: mutation.Setup{Cancels: 2, Closes: 1, Forks: 1}}
	res, err := mutation.Run([]mutation.Mutant{ref}, mutation.Options{MaxSeeds: 5, Runs: 3, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.OK() || r.Caught != 0 || r.Expected != 0 || r.Median != 6 || r.Rerun != "" || len(r.Runs) != 3 || r.Runs[2].FirstSeed != 11 {
		t.Errorf("reference: %+v", r)
	}
}

// The median counts a run that did not catch as MaxSeeds+1 and halves
// between the middle two of an even count.
func TestMedian(t *testing.T) {
	m := mutation.Mutant{Name: "ignore-key", Expect: properties.Duplicate, Setup: mutation.Setup{Agent: "ignore-key"}}
	res, err := mutation.Run([]mutation.Mutant{m}, mutation.Options{MaxSeeds: 3, Runs: 4, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	var seeds []int
	for _, r := range res[0].Runs {
		n := r.Seeds
		if n == 0 {
			n = 4
		}
		seeds = append(seeds, n)
	}
	slices.Sort(seeds)
	if want := float64(seeds[1]+seeds[2]) / 2; res[0].Median != want {
		t.Errorf("median %g of %v, want %g", res[0].Median, seeds, want)
	}
	if _, err := mutation.Run([]mutation.Mutant{m}, mutation.Options{MaxSeeds: 0, Runs: 1}); err == nil {
		t.Error("MaxSeeds 0 accepted")
	}
}
