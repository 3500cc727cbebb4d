// check --repeat: one seed (a rerun) or one recorded schedule (a re-drive)
// run N times, so that a user can tell a failure that comes back from one
// that came once: "reproduced k of N", with each run's anomalies.

package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault/realmode/check"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/users"
)

// runRepeat runs seed n times, jobs at a time, and reports each run in
// order, then how many failed. A run fails as a seed of check does (an
// anomaly or a broken Agent); the exit code is 1 when any run failed, so a
// script asking "does it still fail?" gets yes even from a flaky Agent,
// and the count says how flaky.
func runRepeat(cmd *cobra.Command, cfg check.Config, agentWords []string, seed uint64, n, jobs int, flags string, draw *users.Actions, traceDir string) error {
	out := cmd.OutOrStdout()
	start := time.Now()
	outcomes := make([]*checkOutcome, n)
	done := make([]bool, n)
	next := 0
	var runErr error
	failed, kinds := 0, map[string]int{}
	var first *checkSeed
	parallel.ForEach(n, jobs, func(i int) {
		s, err := runCheckSeed(cfg, agentWords, seed, flags, draw)
		outcomes[i] = &checkOutcome{seed: s, err: err}
	}, func(i int) {
		done[i] = true
		for ; next < n && done[next]; next++ {
			o := outcomes[next]
			if runErr != nil {
				continue
			}
			if o.err != nil {
				runErr = o.err
				continue
			}
			if err := saveCheckTrace(&o.seed, traceDir); err != nil {
				runErr = err
				continue
			}
			status := "pass"
			switch {
			case o.seed.res.Broken != nil:
				status, _ = brokenStatus(o.seed.res.Broken)
			case !o.seed.report.OK():
				ks := anomalyKinds(o.seed.report)
				status = "FAIL: " + strings.Join(ks, ", ")
				for _, k := range ks {
					kinds[k]++
				}
			}
			if status != "pass" {
				failed++
				if first == nil {
					first = &o.seed
				}
			}
			fmt.Fprintf(out, "run %d of %d: %s · %d submissions · %d events\n", next+1, n, status, o.seed.report.Stats.Submissions, len(o.seed.res.Log.Events))
		}
	})
	if runErr != nil {
		return runErr
	}
	fmt.Fprintf(out, "\nreproduced %d of %d (seed %d, %v)\n", failed, n, seed, time.Since(start).Round(time.Millisecond))
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Fprintf(out, "  %-15s %d run(s)\n", k, kinds[k])
	}
	if first == nil {
		fmt.Fprintf(out, "no run failed: under --clock %s a failure that does not come back is the Agent's own timing or randomness, or a --clock wall race\n", cfg.Clock)
		return nil
	}
	writeCheckFailure(out, *first)
	return exitError{exitAnomaly}
}
