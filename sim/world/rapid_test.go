package world

import (
	"flag"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
)

// capture is a rapid.TB that records a property's failure instead of
// failing the test: the property here is meant to fail.
type capture struct {
	testing.TB
	failed bool
	msg    string
}

func (c *capture) Fatalf(format string, args ...any) {
	c.failed, c.msg = true, fmt.Sprintf(format, args...)
}
func (c *capture) Fatal(args ...any) { c.failed, c.msg = true, fmt.Sprint(args...) }
func (c *capture) Errorf(format string, args ...any) {
	c.failed, c.msg = true, fmt.Sprintf(format, args...)
}
func (c *capture) Error(args ...any) { c.failed, c.msg = true, fmt.Sprint(args...) }
func (c *capture) FailNow()          { c.failed = true }
func (c *capture) Fail()             { c.failed = true }
func (c *capture) Failed() bool      { return c.failed }

// The property tests draw whole fault plans from *rapid.T, so rapid's own
// shrinker minimises the plan: against an Agent that keeps key bindings in
// memory, "keyed never duplicates" fails, and the plan rapid ends with is a
// couple of faults, not the dozens a random plan starts with. (A property
// that fails for real writes its plan to testdata/rapid/<test>/, which
// rapid replays first on every later run: commit those files.)
func TestRapidShrinksAFaultPlanToAFewFaults(t *testing.T) {
	if f := flag.Lookup("rapid.nofailfile"); f != nil {
		_ = f.Value.Set("true") // this failure is expected: no fail file
		defer func() { _ = f.Value.Set("false") }()
	}
	last := -1
	c := &capture{TB: t}
	rapid.Check(c, func(rt *rapid.T) {
		cfg := drawConfig(rt, "keyed")
		cfg.Agent = "memory-keys"
		plan := drawPlan(rt)
		cfg.Chooser = sim.NewPlan(plan)
		v := judge(t, cfg)
		for _, a := range v.Report.Anomalies {
			if a.Kind == properties.Duplicate {
				last = distinct(plan)
				rt.Fatalf("duplicate under plan %+v", plan)
			}
		}
	})
	if !c.failed {
		t.Fatal("rapid found no plan under which memory-keys duplicates")
	}
	if last < 1 || last > 3 {
		t.Fatalf("rapid's shrunk plan has %d faults, want 1 to 3: %s", last, c.msg)
	}
}

// distinct counts the different faults of a plan: a fault planned twice for
// the same decision happens once.
func distinct(plan []sim.PlannedFault) int {
	seen := map[sim.PlannedFault]bool{}
	for _, f := range plan {
		f.Option = 0
		seen[f] = true
	}
	return len(seen)
}
