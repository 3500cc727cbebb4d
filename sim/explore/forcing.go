// Forcing, the Chooser of one schedule: it forces the schedule's choices,
// answers 0 to every other decision and records every decision asked.

package explore

import (
	"fmt"

	"github.com/acpsim/acpsim/sim"
)

// Forcing is the Chooser of one schedule: it forces the schedule's choices,
// answers 0 everywhere else and records every decision asked.
type Forcing struct {
	forced Schedule
	next   int
	record bool
	asked  []sim.Decision
	n      int
	err    error
	digest bool   // the search compares this run with its twin
	dig    []byte // what the run set with SetDigest
}

// NewForcing returns the Chooser that runs s.
func NewForcing(s Schedule) *Forcing { return &Forcing{forced: s, record: true} }

// Choose implements sim.Chooser.
func (f *Forcing) Choose(d sim.Decision) int {
	i := f.n
	f.n++
	d = d.Named()
	if f.record {
		f.asked = append(f.asked, d)
	}
	if f.next < len(f.forced) && f.forced[f.next].Index == i {
		want := f.forced[f.next]
		f.next++
		if want.Decision.Kind != d.Kind || want.Decision.Site != d.Site {
			if f.err == nil {
				f.err = fmt.Errorf("not deterministic: decision %d was %s at %s in the schedule's parent, %s at %s now",
					i, want.Decision.Kind, want.Decision.Site, d.Kind, d.Site)
			}
			return 0
		}
		return want.Option
	}
	return 0
}

// WantsDigest reports whether the search compares this run with another one
// (Config.Twin): the RunFunc should then SetDigest.
func (f *Forcing) WantsDigest() bool { return f.digest }

// SetDigest records the digest of the run's observable history: everything
// that decides what happens next, except the forced choices themselves.
// Two runs with equal digests must behave alike under equal further choices.
func (f *Forcing) SetDigest(d []byte) { f.dig = d }

// Asked returns the decisions asked so far, in order.
func (f *Forcing) Asked() []sim.Decision { return f.asked }

// Err reports a forced choice that did not meet the decision the schedule
// expected, or was never reached.
func (f *Forcing) Err() error {
	if f.err == nil && f.next < len(f.forced) {
		w := f.forced[f.next]
		return fmt.Errorf("not deterministic: decision %d (%s at %s) was never asked (%d decisions)", w.Index, w.Decision.Kind, w.Decision.Site, f.n)
	}
	return f.err
}
