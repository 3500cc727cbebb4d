package sim

import "strings"

// PlannedFault injects one fault: at the Nth decision (from 0) of kind Kind
// whose site contains Match, choose Option (clamped to the decision's range).
type PlannedFault struct {
	Kind   string
	Match  string
	Nth    int
	Option int
}

// Plan is a Chooser that injects exactly the faults of a plan drawn up front
// (by rapid, say) and nothing else. A plan is data, so a shrinker can drop
// and simplify its faults one by one.
type Plan struct {
	Faults []PlannedFault
	seen   []int
}

// NewPlan returns a Chooser for faults.
func NewPlan(faults []PlannedFault) *Plan {
	return &Plan{Faults: faults, seen: make([]int, len(faults))}
}

// Choose implements Chooser.
func (p *Plan) Choose(d Decision) int {
	opt := 0
	for i, f := range p.Faults {
		if f.Kind != d.Kind || !strings.Contains(d.Where(), f.Match) {
			continue
		}
		if p.seen[i] == f.Nth && opt == 0 && d.N > 1 {
			opt = min(max(f.Option, 1), d.N-1)
		}
		p.seen[i]++
	}
	return opt
}
