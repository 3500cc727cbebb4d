package world

import (
	"maps"
	"slices"
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

// swarmTally adds up the classes and coverage of a swarm's seeds.
type swarmTally struct {
	classes  []ClassTotal
	index    map[string]int
	coverage *CoverageTotal
}

func newSwarmTally(sc *SwarmConfig, g *guide) *swarmTally {
	t := &swarmTally{index: map[string]int{}}
	if sc.Classes {
		for _, c := range PresentClasses(sc.Base.Rates) {
			t.index[c] = len(t.classes)
			t.classes = append(t.classes, ClassTotal{Class: c})
		}
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

func (t *swarmTally) add(on []string, cov Coverage, failed bool) {
	for _, c := range on {
		if j, ok := t.index[c]; ok {
			t.classes[j].On++
			if failed {
				t.classes[j].Failed++
			}
		}
	}
	if t.coverage == nil {
		return
	}
	for i, n := range cov {
		t.coverage.Hits[i] += n
		if n > 0 {
			t.coverage.Seeds[i]++
		}
	}
}

// RaisedKinds lists the kinds a guided swarm raised, sorted.
func (c *CoverageTotal) RaisedKinds() []string { return slices.Sorted(maps.Keys(c.Raised)) }
