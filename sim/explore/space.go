// What a search of the world forces and prunes: the Space of fault kinds
// and delay steps (DefaultSpace, DelayOver) and KillTwin, the pairs of
// kill sites proposed as twins.

package explore

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/world"
)

// Space is the part of a run's decisions a search forces.
type Space struct {
	// Kinds are the fault kinds forced; every other decision gets 0.
	Kinds []string
	// Delays are the options of a delay decision forced (indices into
	// netfault.DelaySteps, not 0).
	Delays []int
}

// DefaultSpace is the space explored for cfg: the kinds a run of cfg can
// draw (a non-zero rate in cfg.Rates: the stdio kinds, plus the HTTP ones on
// an http link and route with several nodes), and one delay, the first step
// longer than the Client's timeout.
func DefaultSpace(cfg world.Config) Space {
	var sp Space
	for _, f := range netfault.Faults {
		if cfg.Rates[f.Kind] > 0 {
			sp.Kinds = append(sp.Kinds, f.Kind)
		}
	}
	sp.Delays = []int{DelayOver(cfg.Timeout)}
	return sp
}

// DelayOver is the first netfault.DelaySteps option longer than d (the
// longest if none is).
func DelayOver(d time.Duration) int {
	for i, s := range netfault.DelaySteps {
		if s > d {
			return i
		}
	}
	return len(netfault.DelaySteps) - 1
}

// KillTwin proposes the one equivalence between sites the simulator has: a
// kill before a sync output of an Agent process (site "a1#1/6/sync-insert")
// and a kill before its next output ("a1#1/7/respond-prompt"). With the
// unsynced writes kept (lose-unsynced 0, the default), dying before the sync
// or just after it leaves the same disk, and if nothing happened in between
// (the sync and the response belong to one step) the runs are the same but
// for the kill's note. Config.Twin checks each proposal by running both.
func KillTwin(d, next sim.Decision) bool {
	if d.Kind != netfault.Kill || next.Kind != netfault.Kill {
		return false
	}
	p, n, step, ok := killSite(d.Site)
	q, m, _, ok2 := killSite(next.Site)
	return ok && ok2 && p == q && m == n+1 && strings.HasPrefix(step, "sync")
}

// killSite splits a kill site "a1#1/6/sync-insert" into process, output
// number and step.
func killSite(site string) (proc string, n int, step string, ok bool) {
	parts := strings.SplitN(site, "/", 3)
	if len(parts) != 3 {
		return "", 0, "", false
	}
	n, err := strconv.Atoi(parts[1])
	return parts[0], n, parts[2], err == nil
}

// Options returns the OptionsFunc of the space.
func (sp Space) Options() OptionsFunc {
	kinds := map[string]bool{}
	for _, k := range sp.Kinds {
		kinds[k] = true
	}
	delays := slices.Sorted(slices.Values(sp.Delays))
	return func(d sim.Decision) []int {
		switch {
		case !kinds[d.Kind] || d.N <= 1:
			return nil
		case d.Kind == netfault.Delay:
			return delays
		}
		return AllOptions(d)
	}
}
