package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/sim/mutation"
	"github.com/acpsim/acpsim/sim/parallel"
)

func newMutantsCmd() *cobra.Command {
	var maxSeeds, runs, jobs int
	var format string
	var list bool
	var designs designFlags
	cmd := &cobra.Command{
		Use:   "mutants [NAME…]",
		Short: "Mutation score: run every known-bad Agent, Client and proxy until the checkers catch it",
		Long: `Run every known-bad actor for seeds until the checkers catch it: the known-bad
Agents against the keyed Client, the known-bad Clients (--policy) against the
reference Agent, and the known-bad proxy modes as one proxy between the keyed
Client and the reference Agent. The users cancel, close and fork (--cancels 2
--closes 1 --forks 1); a few mutants get other users, knobs or rates, which
their rerun command shows. NAME… runs only those mutants.

--design (repeatable) and --design-file add your designs as mutants (actor
"design"; acpsim knobs for the spelling): a known-bad design of yours is
caught when any anomaly shows, so --design 'forgetful=agent:memory-keys'
asks how many seeds it takes the checkers to see that design fail. Given
with no NAME, only your designs run.

A run of a mutant takes seeds in order, from r*max-seeds+1 for run r, until
one shows an anomaly (the mutant is caught) and one shows the anomaly the
mutant must be caught by, or max-seeds seeds are spent. Per mutant the table
gives the runs that caught it, the median seeds that took, the anomaly kinds
of the catching seeds, whether the expected kind was among them ("later":
only at a later seed, "no": not within max-seeds in every run) and the rerun
command of its first catching seed.

The results are the same for every --jobs. Exit 1 when a mutant went
uncaught, or without its expected anomaly, in some run.`,
		Example: `  acpsim mutants
  acpsim mutants --format json
  acpsim mutants --runs 1 reuse-key memory-keys
  acpsim mutants --list
  acpsim mutants --design 'forgetful=agent:memory-keys' --design 'mine=busy:reject,keys:memory'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer parallel.TuneGC()() // many seeds, each a small heap
			if format != "table" && format != "json" {
				return fmt.Errorf("--format %q: expected table or json", format)
			}
			if maxSeeds < 1 || runs < 1 {
				return fmt.Errorf("--max-seeds %d, --runs %d: expected at least 1 each", maxSeeds, runs)
			}
			jobs, err := resolveJobs(jobs, 0) // this run's, the flag's 0 resolved
			if err != nil {
				return err
			}
			mine, err := designs.all()
			if err != nil {
				return err
			}
			var ms []mutation.Mutant
			if len(mine) == 0 || len(args) > 0 {
				if ms, err = selectMutants(args); err != nil {
					return err
				}
			}
			for _, d := range mine {
				m, err := mutation.FromDesign(d)
				if err != nil {
					return fmt.Errorf("--design: %v", err)
				}
				ms = append(ms, m)
			}
			out := cmd.OutOrStdout()
			if list {
				writeMutantList(out, ms)
				return nil
			}
			o := mutation.Options{MaxSeeds: maxSeeds, Runs: runs, Jobs: jobs}
			bar := newProgress(cmd.ErrOrStderr(), "acpsim mutants", "mutant runs", "runs", len(ms)*runs)
			o.Progress = func(done, _ int) { bar.Set(done) }
			res, err := mutation.Run(ms, o)
			bar.Finish()
			if err != nil {
				return err
			}
			if format == "json" {
				err = writeMutantsJSON(out, res, o)
			} else {
				writeMutantsTable(out, res, o)
			}
			if err != nil {
				return err
			}
			for _, r := range res {
				if !r.OK() {
					return exitError{exitAnomaly}
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&maxSeeds, "max-seeds", 100, "seeds a run of a mutant may take before it counts as not caught")
	cmd.Flags().IntVar(&runs, "runs", 5, "independent runs per mutant (run r starts at seed r*max-seeds+1); seeds is their median")
	registerJobs(cmd.Flags(), &jobs, "seeds")
	cmd.Flags().StringVar(&format, "format", "table", "output: table or json")
	designs.register(cmd.Flags(), true)
	cmd.Flags().BoolVar(&list, "list", false, "list the mutants (actor, name, expected anomaly, the bug, its run flags) without running them")
	return cmd
}

// selectMutants is every mutant, or the named ones in table order.
func selectMutants(names []string) ([]mutation.Mutant, error) {
	all := mutation.All()
	if len(names) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []mutation.Mutant
	for _, m := range all {
		if want[m.Name] {
			out = append(out, m)
			delete(want, m.Name)
		}
	}
	for _, n := range names {
		if want[n] {
			known := make([]string, 0, len(all))
			for _, m := range all {
				known = append(known, m.Name)
			}
			return nil, fmt.Errorf("unknown mutant %q: expected one of %s", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

func writeMutantList(out io.Writer, ms []mutation.Mutant) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "actor\tmutant\texpects\tbug\tflags")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Actor, m.Name, m.Expect, m.Doc, strings.Join(m.Setup.Flags(), " "))
	}
	_ = tw.Flush()
}

// seedsText is a median of seeds, or ">N" when most runs did not get there.
func seedsText(median float64, maxSeeds int) string {
	if median > float64(maxSeeds) {
		return fmt.Sprintf(">%d", maxSeeds)
	}
	return fmt.Sprintf("%g", median)
}

// asExpected says whether the catching seeds showed the expected anomaly:
// yes (in every run), later (in every run, but not always at the catching
// seed: the median seeds to it follow) or no (not in every run).
func asExpected(r mutation.Result, maxSeeds int) string {
	if r.Expected < len(r.Runs) {
		return fmt.Sprintf("no (%d/%d runs)", r.Expected, len(r.Runs))
	}
	for _, run := range r.Runs {
		if run.ExpectSeed != run.Seed {
			return "later (" + seedsText(r.ExpectMedian, maxSeeds) + ")"
		}
	}
	return "yes"
}

func writeMutantsTable(out io.Writer, res []mutation.Result, o mutation.Options) {
	counts := map[string]int{}
	ok := 0
	for _, r := range res {
		counts[r.Actor]++
		if r.OK() {
			ok++
		}
	}
	designs := ""
	if n := counts[mutation.ActorDesign]; n > 0 {
		designs = fmt.Sprintf(", %d designs of yours (caught by any anomaly)", n)
	}
	fmt.Fprintf(out, "mutants: %d (%d Agents, %d Clients, %d proxies%s) · runs per mutant: %d · seeds per run: at most %d\n\n",
		len(res), counts[mutation.ActorAgent], counts[mutation.ActorClient], counts[mutation.ActorProxy], designs, o.Runs, o.MaxSeeds)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "actor\tmutant\texpects\tcaught\tseeds\tby\tas expected\trerun (first catching seed)")
	for _, r := range res {
		by, rerun := strings.Join(r.Kinds, ", "), r.Rerun
		if by == "" {
			by, rerun = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\n", r.Actor, r.Name, r.Expect, r.Caught, len(r.Runs),
			seedsText(r.Median, o.MaxSeeds), by, asExpected(r, o.MaxSeeds), rerun)
	}
	_ = tw.Flush()
	var bad []mutation.Result
	for _, r := range res {
		if !r.OK() {
			bad = append(bad, r)
		}
	}
	for _, r := range bad {
		fmt.Fprintf(out, "\n%s %s (%s) was not caught as it must be in every run:\n", r.Actor, r.Name, r.Doc)
		for i, run := range r.Runs {
			last := run.FirstSeed + uint64(o.MaxSeeds) - 1
			switch {
			case !run.Caught():
				fmt.Fprintf(out, "  run %d (seeds %d-%d): no anomaly\n", i, run.FirstSeed, last)
			case run.ExpectSeed == 0:
				fmt.Fprintf(out, "  run %d (seeds %d-%d): %s at seed %d, never %s\n", i, run.FirstSeed, last, strings.Join(run.Kinds, ", "), run.Seed, r.Expect)
			default:
				fmt.Fprintf(out, "  run %d (seeds %d-%d): caught at seed %d\n", i, run.FirstSeed, last, run.Seed)
			}
		}
	}
	fmt.Fprintln(out)
	if len(bad) > 0 {
		fmt.Fprintf(out, "FAIL: %d of %d mutants caught, each by its expected anomaly, in every run within %d seeds\n", ok, len(res), o.MaxSeeds)
		return
	}
	fmt.Fprintf(out, "PASS: all %d mutants caught, each by its expected anomaly, in every run within %d seeds\n", len(res), o.MaxSeeds)
}

// mutantsReport is the JSON output.
type mutantsReport struct {
	MaxSeeds int             `json:"max_seeds"`
	Runs     int             `json:"runs"`
	Mutants  []mutantsResult `json:"mutants"`
	Caught   int             `json:"caught"` // mutants OK
	OK       bool            `json:"ok"`
}

type mutantsResult struct {
	Actor        string      `json:"actor"`
	Name         string      `json:"name"`
	Doc          string      `json:"doc"`
	Expects      string      `json:"expects"`
	Flags        []string    `json:"flags"`
	OK           bool        `json:"ok"`
	CaughtRuns   int         `json:"caught_runs"`
	ExpectedRuns int         `json:"expected_runs"`
	MedianSeeds  float64     `json:"median_seeds"`
	MedianExpect float64     `json:"median_seeds_expected"`
	Kinds        []string    `json:"kinds"`
	Rerun        string      `json:"rerun"`
	ExpectRerun  string      `json:"rerun_expected"`
	PerRun       []mutantRun `json:"per_run"`
}

type mutantRun struct {
	FirstSeed   uint64   `json:"first_seed"`
	Seed        uint64   `json:"seed"` // 0: not caught
	Seeds       int      `json:"seeds"`
	Kinds       []string `json:"kinds"`
	ExpectSeed  uint64   `json:"expect_seed"`
	ExpectSeeds int      `json:"expect_seeds"`
}

func writeMutantsJSON(out io.Writer, res []mutation.Result, o mutation.Options) error {
	rep := mutantsReport{MaxSeeds: o.MaxSeeds, Runs: o.Runs, Mutants: []mutantsResult{}, OK: true}
	for _, r := range res {
		m := mutantsResult{Actor: r.Actor, Name: r.Name, Doc: r.Doc, Expects: r.Expect, Flags: r.Setup.Flags(), OK: r.OK(),
			CaughtRuns: r.Caught, ExpectedRuns: r.Expected, MedianSeeds: r.Median, MedianExpect: r.ExpectMedian,
			Kinds: append([]string{}, r.Kinds...), Rerun: r.Rerun, ExpectRerun: r.ExpectRerun}
		for _, run := range r.Runs {
			m.PerRun = append(m.PerRun, mutantRun{FirstSeed: run.FirstSeed, Seed: run.Seed, Seeds: run.Seeds,
				Kinds: append([]string{}, run.Kinds...), ExpectSeed: run.ExpectSeed, ExpectSeeds: run.ExpectSeeds})
		}
		if m.OK {
			rep.Caught++
		} else {
			rep.OK = false
		}
		rep.Mutants = append(rep.Mutants, m)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
