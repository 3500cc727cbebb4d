package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/sim/world"
)

// seedRerun is the command that reruns a failing seed of a swarm on its own:
// the swarm's flags, and when fault classes or guidance gave the seed rates
// of its own, those rates, stated in full as --fault-rates (over the user's
// --fault-rates, which they already include); when action classes drew
// the seed's user actions, those, stated in full (--cancels, --closes,
// --forks, --cancel-by). The rerun is an ordinary run: it needs neither the
// class tables nor the batches before it.
func seedRerun(fs *pflag.FlagSet, base world.Config, f world.SeedFailure, skip []string) string {
	skip, stated := slices.Clone(skip), ""
	if f.Rates != nil {
		skip = append(skip, "fault-rates")
		stated += " --fault-rates=" + world.FormatRates(f.Rates, rerunKinds(base, f.Rates))
	}
	if f.Actions != nil {
		skip = append(skip, actionFlags...)
		stated += actionArgs(*f.Actions)
	}
	return binName() + " " + rerunCommand(fs, f.Seed, skip...)[len("acpsim "):] + stated
}

// rerunKinds are the kinds a seed's --fault-rates must name: every kind a
// class draw may change, and every kind whose rate is not what run would
// take by default with the same flags.
func rerunKinds(base world.Config, rates map[string]float64) []string {
	def := world.DefaultConfig()
	def.Link, def.Nodes = base.Link, base.Nodes
	def.EnableLinkFaults()
	kinds := world.ClassedKinds(base.Rates)
	for k, r := range rates {
		if r != def.Rates[k] && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	return kinds
}

// classesOn names a failing seed's classes for its line in the summary.
func classesOn(sc world.SwarmConfig, f world.SeedFailure) string {
	if !sc.Classes {
		return ""
	}
	if len(f.On) == 0 {
		return " (classes on: none)"
	}
	return " (classes on: " + strings.Join(f.On, ", ") + ")"
}

// writeFaultClasses prints, per fault class, how many seeds had it on and how
// many of those failed.
func writeFaultClasses(out io.Writer, sum *world.Summary, cfg world.Config) {
	if sum.Classes == nil {
		return
	}
	fmt.Fprintln(out, "fault classes (each seed switches a class on or off and draws its rates):")
	fmt.Fprintf(out, "  %-15s %-40s %6s %7s\n", "class", "kinds", "on", "failed")
	for _, c := range sum.Classes {
		var kinds []string
		for _, fc := range world.FaultClasses {
			if fc.Name != c.Class {
				continue
			}
			for _, k := range fc.Kinds {
				if cfg.Rates[k] > 0 {
					kinds = append(kinds, k)
				}
			}
		}
		fmt.Fprintf(out, "  %-15s %-40s %6d %7d\n", c.Class, strings.Join(kinds, ", "), c.On, c.Failed)
	}
	for _, n := range world.NotModelled {
		fmt.Fprintf(out, "  not modelled: %s (%s)\n", n.Name, n.Why)
	}
}

// writeCoverage prints the pairs hit, with counts, then the pairs never hit.
func writeCoverage(out io.Writer, c *world.CoverageTotal) {
	if c == nil {
		return
	}
	missing := c.Missing()
	reach := c.Reachable()
	fmt.Fprintf(out, "coverage: %d of %d (fault point × protocol state) pairs hit", reach-len(missing), reach)
	if n := len(c.Applicable) - reach; n > 0 {
		fmt.Fprintf(out, " (%d more not reachable with these flags)", n)
	}
	fmt.Fprintf(out, ":\n  %-38s %7s %6s\n", "pair", "hits", "seeds")
	for i, p := range world.CoveragePairs {
		if c.Applicable[i] && c.Hits[i] > 0 {
			fmt.Fprintf(out, "  %-38s %7d %6d\n", p.Name(), c.Hits[i], c.Seeds[i])
		}
	}
	if len(missing) == 0 {
		fmt.Fprintln(out, "never hit: none")
	} else {
		fmt.Fprintf(out, "never hit (%d):\n", len(missing))
		for _, i := range missing {
			p := world.CoveragePairs[i]
			fmt.Fprintf(out, "  %-38s %s\n", p.Name(), p.Doc)
		}
	}
	if c.Batches > 0 {
		var raised []string
		for _, k := range c.RaisedKinds() {
			raised = append(raised, fmt.Sprintf("%s in %d", k, c.Raised[k]))
		}
		if len(raised) == 0 {
			raised = []string{"none"}
		}
		fmt.Fprintf(out, "guided: %d batches of %d seeds; rates raised for missing pairs: %s\n", c.Batches, world.GuideBatch, strings.Join(raised, ", "))
	}
}
