package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim/explore"
	"github.com/acpsim/acpsim/sim/parallel"
)

func newExploreCmd() *cobra.Command {
	var sf simFlags
	var seed uint64
	var faults, jobs, workers int
	var twins bool
	var kinds []string
	var delays []time.Duration
	cmd := &cobra.Command{
		Use:   "explore",
		Short: "Run every schedule of at most K faults (bounded-exhaustive) and report the first counterexample",
		Long: `Depth-first search over every choice sequence with at most --faults non-zero
decisions among those a run with --prompts prompts per Client asks: each
schedule is one whole simulation, the faults it forces at the decisions it
names and no fault anywhere else. Ids, keys and the users' scenario come from
--seed, as in run.

Only the kinds in --kinds are forced (default: the kinds the run's
configuration can draw, i.e. with a non-zero rate: delay, cut, kill,
lose-unsynced, reject and client-restart, plus the HTTP kinds on --link http
and route with several --nodes), and a delay only by the steps in --delays
(default: the first step longer than --timeout, 300ms at the default 250ms:
the one that makes a Client give up on a frame still in flight and retry).

Ends with "all M schedules explored, 0 anomalies", or with the first
counterexample in depth-first order (whatever --jobs): its report, its
forced choices and its trace under acpsim-failures/, which acpsim replay and
acpsim shrink read. Progress goes to stderr: on a terminal a bar with
schedules per second and an estimate of the total, elsewhere a line every 10 s.

Exit codes: 0 every schedule passed, 1 a counterexample, 2 bad usage,
3 no counterexample but some run hit its cap while still busy.`,
		Example: `  acpsim explore --prompts 3 --faults 1
  acpsim explore --agent memory-keys                             # a counterexample: exit 1
  acpsim explore --agent cancel-keeps-held --cancels 1 --seed 4  # exit 1
  acpsim explore --faults 1 --kinds delay,cut --delays 30ms,300ms,1500ms`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer parallel.TuneGC()() // many seeds, each a small heap
			cfg, err := sf.config()
			if err != nil {
				return err
			}
			if faults < 0 {
				return fmt.Errorf("--faults %d: expected 0 or more", faults)
			}
			if cmd.Flags().Changed("workers") && !cmd.Flags().Changed("jobs") {
				jobs = workers
			}
			if workers, err = resolveJobs(jobs, 0); err != nil {
				return err
			}
			cfg.Seed = seed
			skip := []string{"faults", "kinds", "delays", "jobs", "workers", "prompts"}
			cfg.Command = fmt.Sprintf("%s %s --prompts=%d", binName(), rerunCommand(cmd.Flags(), seed, skip...)[len("acpsim "):], cfg.Prompts)
			space := explore.DefaultSpace(cfg)
			if cmd.Flags().Changed("kinds") {
				if space.Kinds, err = checkKinds(kinds); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("delays") {
				if space.Delays, err = delayOptions(delays); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "explore: policy %s · agent %s · %d Client(s) × %d prompts · seed %d · at most %d faults of %s · %d workers\n",
				cfg.Policy, cfg.Agent, cfg.Clients, cfg.Prompts, seed, faults, spaceText(space), workers)

			ec := explore.Config{Faults: faults, Workers: workers, Options: space.Options()}
			if twins {
				ec.Twin = explore.KillTwin
			}
			bar := newProgress(cmd.ErrOrStderr(), "acpsim explore", "schedules", "schedules", 1)
			total, failed := 1, false
			ec.Progress = func(p explore.Progress) {
				// The bar must not reach its end before the search does:
				// a full bar stops drawing.
				if t := max(p.Estimate, p.Done+1); t != total {
					total = t
					bar.Estimate(total)
				}
				if p.Failed && !failed {
					failed = true
					bar.Describe("schedules (counterexample found: running the ones before it)")
				}
				bar.Set(p.Done)
			}
			start := time.Now()
			res, err := explore.Search(explore.World(cfg), ec)
			bar.Finish()
			if err != nil {
				return err
			}
			took := time.Since(start)
			rate := fmt.Sprintf("%s (%.0f schedules/s)", took.Round(time.Millisecond), float64(res.Schedules)/took.Seconds())
			if !res.Failed {
				fmt.Fprintf(out, "all %d schedules explored, 0 anomalies · %s · %s\n", res.Schedules, byFaults(res.ByFaults), rate)
				fmt.Fprintf(out, "the run without faults asks %d decisions; %d subtrees of a kill before a sync were cut as twins of a kill just after it\n",
					res.Decisions, res.Twins)
				if res.Inconclusive > 0 {
					fmt.Fprintf(out, "INCONCLUSIVE: %d of %d schedules could not be judged whole (a cap hit while still busy, or no submission)\n", res.Inconclusive, res.Schedules)
					return exitError{exitInconclusive}
				}
				fmt.Fprintln(out, "PASS: every schedule, every submission inserted at most once and never silently lost")
				return nil
			}
			v, err := explore.Rerun(cfg, res.Counterexample)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "counterexample after %d schedules · %s: the first in depth-first order\n\n", res.Schedules, rate)
			v.Report.WriteText(out)
			fmt.Fprintln(out)
			writeForced(out, res.Counterexample)
			path := saveFailure(v.Result.Log, "explore", fmt.Sprintf("%s-seed-%d", cfg.Agent, seed))
			fmt.Fprintf(out, "FAIL\n  trace: %s\n  replay: %s replay %s\n  shrink: %s shrink %s -o small.ndjson\n  explore again: %s explore --seed %d %s\n",
				path, binName(), path, binName(), path, binName(), seed, rerunFlags(cmd.Flags(), "jobs", "workers"))
			return exitError{exitAnomaly}
		},
	}
	sf.register(cmd.Flags())
	// Three prompts per Client by default: the bound the design names.
	sf.prompts = 3
	cmd.Flags().Lookup("prompts").DefValue = "3"
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the ids, keys and the users' scenario (faults come from the search)")
	cmd.Flags().IntVar(&faults, "faults", 2, "most non-zero decisions (faults) a schedule forces")
	registerJobs(cmd.Flags(), &jobs, "schedules")
	cmd.Flags().IntVar(&workers, "workers", 0, "schedules run side by side")
	_ = cmd.Flags().MarkDeprecated("workers", "use --jobs")
	cmd.Flags().StringSliceVar(&kinds, "kinds", nil, "fault kinds forced (default: those with a non-zero rate; acpsim help faults)")
	cmd.Flags().BoolVar(&twins, "twins", true, "skip a kill before a sync when a kill just after it runs the same (checked by running both)")
	cmd.Flags().DurationSliceVar(&delays, "delays", nil, "delay steps forced (default: the first longer than --timeout); from "+delaySteps())
	cmd.Flags().Lookup("delays").DefValue = "" // the usage says the default: pflag's own would be "[]"
	withCatalogues(cmd, "agents", "policies")
	return cmd
}

// checkKinds checks --kinds against the fault table.
func checkKinds(kinds []string) ([]string, error) {
	known := netfault.Kinds()
	for _, k := range kinds {
		if !slices.Contains(known, k) {
			return nil, fmt.Errorf("--kinds %s: unknown fault kind, expected one of %s", k, strings.Join(known, ", "))
		}
	}
	return kinds, nil
}

// delayOptions maps --delays to delay options (indices into DelaySteps).
func delayOptions(ds []time.Duration) ([]int, error) {
	var out []int
	for _, d := range ds {
		i := slices.Index(netfault.DelaySteps, d)
		if i <= 0 {
			return nil, fmt.Errorf("--delays %v: not a delay step, expected one of %s", d, delaySteps())
		}
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out, nil
}

func delaySteps() string {
	parts := make([]string, 0, len(netfault.DelaySteps))
	for _, d := range netfault.DelaySteps[1:] {
		parts = append(parts, d.String())
	}
	return strings.Join(parts, ", ")
}

// spaceText names the kinds and delays explored.
func spaceText(sp explore.Space) string {
	if len(sp.Kinds) == 0 {
		return "no kind"
	}
	parts := make([]string, 0, len(sp.Kinds))
	for _, k := range sp.Kinds {
		if k != netfault.Delay {
			parts = append(parts, k)
			continue
		}
		var ds []string
		for _, o := range slices.Sorted(slices.Values(sp.Delays)) {
			ds = append(ds, netfault.DelaySteps[o].String())
		}
		parts = append(parts, "delay ("+strings.Join(ds, ", ")+")")
	}
	return strings.Join(parts, ", ")
}

// byFaults renders the schedules per number of faults.
func byFaults(n []int) string {
	parts := make([]string, len(n))
	for i, c := range n {
		parts[i] = fmt.Sprintf("%d with %d", c, i)
	}
	return strings.Join(parts, ", ") + " faults"
}

// writeForced lists a counterexample's forced choices.
func writeForced(out io.Writer, s explore.Schedule) {
	if len(s) == 0 {
		fmt.Fprintln(out, "forced choices: none (the run without faults fails)")
		return
	}
	fmt.Fprintln(out, "forced choices (decision number, kind, site, option):")
	for _, f := range s {
		what := ""
		if f.Decision.Kind == netfault.Delay && f.Option < len(netfault.DelaySteps) {
			what = fmt.Sprintf(" (+%v)", netfault.DelaySteps[f.Option])
		}
		fmt.Fprintf(out, "  #%-4d %-15s %-32s option %d of %d%s\n", f.Index, f.Decision.Kind, f.Decision.Site, f.Option, f.Decision.N, what)
	}
}
