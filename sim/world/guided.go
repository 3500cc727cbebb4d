package world

import (
	"maps"
	"slices"
)

// Guided swarms (SwarmConfig.Guided) run their seeds in batches of
// GuideBatch, in seed order. After each batch, every fault kind that could
// reach a pair no seed has hit yet (the pair's point, and its boost kinds)
// has its rate doubled for the next batch, up to maxBoost doublings; a
// kind whose pairs are all hit goes back to its base rate. With classes on,
// the classes of raised kinds are also on more often (guidedOn). A batch's
// rates depend only on the batches before it, merged in seed order, so the
// result is the same for any number of workers; the rates each seed ran
// with are its rerun command's --fault-rates.

// GuideBatch is how many seeds a guided swarm runs between two adjustments.
const GuideBatch = 100

// maxBoost bounds the doublings of a rate (×4): more and a seed's faults
// leave the Agent no time to make progress.
const maxBoost = 2

// guide hands each seed its rates: the base, or its class draw, or the
// guided batch's.
type guide struct {
	base       map[string]float64
	classes    bool
	guided     bool
	applicable []bool
	seen       []bool
	// The current batch's rates, the classes favoured and each kind's
	// doublings; set between batches only.
	rates  map[string]float64
	favour map[string]bool
	level  map[string]int
	// raised counts, per kind, the batches it was raised in.
	raised map[string]int
}

func newGuide(sc *SwarmConfig) *guide {
	g := &guide{base: sc.Base.Rates, classes: sc.Classes, guided: sc.Guided, rates: sc.Base.Rates,
		level: map[string]int{}, raised: map[string]int{}}
	if sc.Guided {
		g.applicable = Applicable(&sc.Base)
		g.seen = make([]bool, len(CoveragePairs))
	}
	return g
}

// batches are the [lo, hi) seed index ranges run one after the other.
func (g *guide) batches(n int) [][2]int {
	size := n
	if g.guided {
		size = GuideBatch
	}
	var out [][2]int
	for lo := 0; lo < n; lo += size {
		out = append(out, [2]int{lo, min(lo+size, n)})
	}
	return out
}

// seedRates are seed's rates and the classes it has on; nil rates: the
// base, unchanged. Safe to call from several goroutines during a batch.
func (g *guide) seedRates(seed uint64) (map[string]float64, []string) {
	switch {
	case g.classes:
		d := DrawClasses(seed, g.rates, g.favour)
		return d.Rates, d.On
	case g.guided:
		return maps.Clone(g.rates), nil
	}
	return nil, nil
}

// learn takes a finished batch's coverage and sets the next batch's rates.
func (g *guide) learn(covs []Coverage) {
	if !g.guided {
		return
	}
	for _, c := range covs {
		for i, n := range c {
			g.seen[i] = g.seen[i] || n > 0
		}
	}
	wanted := map[string]bool{}
	for i, p := range CoveragePairs {
		if !g.applicable[i] || g.seen[i] {
			continue
		}
		for _, k := range append([]string{p.Point}, p.boost...) {
			if g.base[k] > 0 {
				wanted[k] = true
			}
		}
	}
	g.rates = maps.Clone(g.base)
	g.favour = map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(g.base)) {
		if !wanted[k] {
			g.level[k] = 0
			continue
		}
		g.level[k] = min(g.level[k]+1, maxBoost)
		g.raised[k]++
		g.rates[k] = roundRate(min(1, g.base[k]*float64(int(1)<<g.level[k])))
		for _, c := range FaultClasses {
			if slices.Contains(c.Kinds, k) {
				g.favour[c.Name] = true
			}
		}
	}
}
