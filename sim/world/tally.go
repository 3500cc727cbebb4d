package world

import (
	"maps"
	"slices"

	"github.com/acpsim/acpsim/sim/users"
)

// CoverageTotal is a swarm's coverage: per pair of CoveragePairs, how often
// it was hit, in how many seeds, and whether the swarm's configuration can
// reach it at all.
type CoverageTotal struct {
	Hits, Seeds []int
	Applicable  []bool
	// Raised counts, for a guided swarm, in how many batches each fault
	// kind's rate was raised.
	Raised map[string]int
	// Batches is how many batches a guided swarm ran (0: not guided).
	Batches int
}

// Missing lists the indexes of the reachable pairs no seed hit.
func (c *CoverageTotal) Missing() []int {
	var out []int
	for i, ok := range c.Applicable {
		if ok && c.Hits[i] == 0 {
			out = append(out, i)
		}
	}
	return out
}

// Reachable is how many pairs the configuration can reach.
func (c *CoverageTotal) Reachable() int {
	n := 0
	for _, ok := range c.Applicable {
		if ok {
			n++
		}
	}
	return n
}

// swarmTally adds up the fault classes, action classes and coverage of a
// swarm's seeds.
type swarmTally struct {
	classes, actions classTally
	coverage         *CoverageTotal
}

// classTally counts, per class, the seeds it was on in and those that
// failed; totals stays nil when the swarm draws no such classes, or none
// is present.
type classTally struct {
	totals []ClassTotal
	index  map[string]int
}

func newClassTally(names []string) classTally {
	t := classTally{index: map[string]int{}}
	for _, c := range names {
		t.index[c] = len(t.totals)
		t.totals = append(t.totals, ClassTotal{Class: c})
	}
	return t
}

func (t *classTally) add(on []string, failed bool) {
	for _, c := range on {
		if j, ok := t.index[c]; ok {
			t.totals[j].On++
			if failed {
				t.totals[j].Failed++
			}
		}
	}
}

func newSwarmTally(sc *SwarmConfig, g *guide) *swarmTally {
	t := &swarmTally{}
	if sc.Classes {
		t.classes = newClassTally(PresentClasses(sc.Base.Rates))
	}
	if sc.Actions {
		t.actions = newClassTally(users.PresentActionClasses(sc.Base.UserActions()))
	}
	if sc.Coverage || sc.Guided {
		n := len(CoveragePairs)
		t.coverage = &CoverageTotal{Hits: make([]int, n), Seeds: make([]int, n), Applicable: Applicable(&sc.Base)}
		if sc.Guided {
			t.coverage.Raised = maps.Clone(g.raised)
			t.coverage.Batches = len(g.batches(sc.Seeds))
		}
	}
	return t
}

func (t *swarmTally) add(r *seedResult, failed bool) {
	t.classes.add(r.on, failed)
	if r.acts != nil {
		t.actions.add(r.acts.On, failed)
	}
	if t.coverage == nil {
		return
	}
	for i, n := range r.cov {
		t.coverage.Hits[i] += n
		if n > 0 {
			t.coverage.Seeds[i]++
		}
	}
}

// RaisedKinds lists the kinds a guided swarm raised, sorted.
func (c *CoverageTotal) RaisedKinds() []string { return slices.Sorted(maps.Keys(c.Raised)) }
