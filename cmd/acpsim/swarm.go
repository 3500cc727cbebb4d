package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces/shell"
)

func newSwarmCmd() *cobra.Command {
	var sf simFlags
	var seeds, jobs, workers, show, shardCount int
	var checkDet, coverage, guided bool
	var classes, actions, ledger, shard, summaryJSON, format string
	var first uint64
	cmd := &cobra.Command{
		Use:   "swarm",
		Short: "Run many seeds on all cores and summarise anomalies and fault coverage",
		Long: `Run seeds first-seed … first-seed+seeds-1, each as "acpsim run" would, on all
cores. The summary counts anomalies per kind, the interesting events the
faults produced (so a clean result is not a fault that never fired), and
prints the exact rerun command of each failing seed.

Fault classes (as TigerBeetle's VOPR): each seed switches whole classes of
faults on or off and draws the rates of those on, so some seeds see only
kills, others only delays and cuts. A failing seed's rerun command states
its rates (--fault-rates), so it reruns on its own. --classes=off runs every
seed at the --fault-rates rates.

User action classes, the same way (--actions, on by default): each seed
switches cancel by $/cancel_request, cancel by session/cancel,
close-and-resume and fork on or off and draws how often each user does
those on (1 … 2× the base: --cancels, --closes, --forks when given, else
2, 1, 1), so the Agent's cancel, close and fork paths run without asking.
The summary counts per class the seeds it was on in and the failing ones;
a failing seed's rerun command states its actions (--cancels=N --closes=N
--forks=N, --cancel-by when one way of cancelling was on). --actions=off
runs every seed with the count flags as given (none by default).

--coverage counts the (fault point × protocol state) pairs the seeds hit,
e.g. "kill × respond-prompt" (an Agent killed after insertion, before the
response), and lists the pairs never hit; --guided runs the seeds in batches
and raises the rates of the fault kinds whose pairs are still missing.`,
		Example: `  acpsim swarm --seeds 2000 --policy keyed
  acpsim swarm --seeds 2000 --policy naive               # exit 1
  acpsim swarm --seeds 2000 --agent ignore-key           # exit 1
  acpsim swarm --seeds 2000 --agent cancel-keeps-held    # exit 1
  acpsim swarm --seeds 2000 --actions=off --cancels 3
  acpsim swarm --seeds 2000 --coverage --guided`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer parallel.TuneGC()() // many seeds, each a small heap
			cfg, err := sf.config()
			if err != nil {
				return err
			}
			if seeds < 1 {
				return fmt.Errorf("--seeds %d: expected at least 1", seeds)
			}
			if classes != "on" && classes != "off" {
				return fmt.Errorf("--classes %q: expected on or off", classes)
			}
			base, err := actionBase(cmd.Flags(), actions, cfg.UserActions(), users.DefaultActionBase)
			if err != nil {
				return err
			}
			cfg.SetUserActions(base)
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: expected text or json", format)
			}
			if !cmd.Flags().Changed("jobs") && cmd.Flags().Changed("workers") {
				jobs = workers
			}
			if jobs, err = resolveJobs(jobs, 0); err != nil {
				return err
			}
			if strings.Contains(summaryJSON, "$(") {
				// Every pod would write the same file.
				return fmt.Errorf("--summary-json %q: an unexpanded $(…): Kubernetes expands $(JOB_COMPLETION_INDEX) in a container's args, a shell does not", summaryJSON)
			}
			index, count, err := shardOf(shard, shardCount)
			if err != nil {
				return err
			}
			if count > 1 && guided {
				return fmt.Errorf("--guided cannot be sharded: each batch's rates depend on every batch before it")
			}
			sc := world.SwarmConfig{Base: cfg, FirstSeed: first, Seeds: seeds, Workers: jobs, CheckDeterminism: checkDet,
				Classes: classes == "on", Actions: actions == "on", Coverage: coverage || guided, Guided: guided,
				Shard: index, Shards: count, MaxFailures: max(world.DefaultMaxFailures, show)}
			lo, n := world.ShardRange(first, seeds, index, count) // n may be 0: more shards than seeds
			rerun := func(f world.SeedFailure) string { return seedRerun(cmd.Flags(), cfg, f, swarmRerunSkip) }
			var ledgerErr error
			var pending []ledgerEntry
			appended := 0
			flush := func() {
				if len(pending) > 0 && ledgerErr == nil {
					ledgerErr = appendLedger(ledger, pending)
					appended += len(pending)
				}
				pending = pending[:0]
			}
			if ledger != "" {
				rev := commit()
				sc.OnFailure = func(f world.SeedFailure) {
					pending = append(pending, ledgerEntry{Seed: f.Seed, Commit: rev, Command: rerun(f),
						Anomalies: f.Kinds, Time: time.Now().UTC().Truncate(time.Second)})
					if len(pending) == 256 {
						flush()
					}
				}
			}
			bar := newProgress(cmd.ErrOrStderr(), "acpsim swarm", "seeds", "seeds", n)
			sc.Progress = func(done, failed int) {
				if failed > 0 {
					bar.Describe(fmt.Sprintf("seeds (%d failed)", failed))
				}
				bar.Set(done)
			}
			start := time.Now()
			sum, err := world.Swarm(sc)
			bar.Finish()
			if err != nil {
				return err
			}
			flush()
			if ledgerErr != nil {
				return ledgerErr
			}
			took := time.Since(start)
			part := ""
			switch {
			case count > 1 && n == 0:
				part = fmt.Sprintf(" (shard %d/%d: no seeds, there are more shards than seeds)", index, count)
			case count > 1:
				part = fmt.Sprintf(" (shard %d/%d: seeds %d…%d)", index, count, lo, lo+uint64(n)-1)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "swarm: %d seeds%s in %s (%.0f seeds/s) on %d jobs\n",
				sum.Seeds, part, took.Round(time.Millisecond), float64(sum.Seeds)/max(took.Seconds(), 1e-9), jobs)
			scfg := world.SummaryConfig{Args: swarmArgs(cmd.Flags()), FirstSeed: first, Seeds: seeds,
				Policy: cfg.Policy, Agent: cfg.Agent, Link: cfg.Link, Clients: cfg.Clients, Prompts: cfg.Prompts, Rates: cfg.Rates,
				Classes: sc.Classes, Actions: sc.Actions, Coverage: sc.Coverage, Guided: guided, CheckDeterminism: checkDet,
				Show: show, MaxFailures: sc.MaxFailures}
			if summaryJSON != "" || format == "json" {
				scfg.Commit = commit()
			}
			file := world.NewSummaryFile(sum, scfg, world.ShardInfo{Index: index, Count: count, FirstSeed: lo, Seeds: n,
				ElapsedSeconds: took.Seconds(), Jobs: jobs}, rerun)
			if summaryJSON != "" {
				if err := writeSummaryFile(summaryJSON, file); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				if err := file.WriteJSON(out); err != nil {
					return err
				}
				return swarmVerdict(sum)
			}
			note := ""
			if appended > 0 {
				note = fmt.Sprintf("\n%d failing seed(s) appended to %s: acpsim replay --ledger %s reruns them\n", appended, ledger, shell.Quote(ledger))
			}
			return writeSwarm(out, file, note)
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().IntVar(&seeds, "seeds", 100, "number of seeds to run (all shards together)")
	cmd.Flags().Uint64Var(&first, "first-seed", 1, "first seed")
	registerJobs(cmd.Flags(), &jobs, "seeds")
	cmd.Flags().IntVar(&workers, "workers", 0, "parallel workers (0: one per core)")
	_ = cmd.Flags().MarkDeprecated("workers", "use --jobs")
	cmd.Flags().SetOutput(stderrOf{cmd})
	cmd.Flags().StringVar(&shard, "shard", "", "run only shard i/n of the seeds, the i-th of n blocks (acpsim merge joins the shards)")
	cmd.Flags().IntVar(&shardCount, "shard-count", 0, "n shards, this one's index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)")
	cmd.Flags().StringVar(&summaryJSON, "summary-json", "", "also write the summary as JSON to this file, for acpsim merge")
	cmd.Flags().StringVar(&format, "format", "text", "output: text (the summary) or json (the --summary-json document on stdout)")
	cmd.Flags().IntVar(&show, "show", 10, "how many failing seeds to list with their rerun command")
	cmd.Flags().BoolVar(&checkDet, "check-determinism", false, "run every seed twice and name the first event where its traces differ")
	cmd.Flags().StringVar(&classes, "classes", "on", "on: each seed switches whole fault classes on or off and draws their rates; off: --fault-rates")
	registerActions(cmd.Flags(), &actions, users.DefaultActionBase)
	cmd.Flags().StringVar(&ledger, "ledger", "", "append every failing seed to this file, one JSON line each (acpsim replay --ledger reruns them)")
	cmd.Flags().BoolVar(&coverage, "coverage", false, "count the (fault point × protocol state) pairs the seeds hit and list those never hit")
	cmd.Flags().BoolVar(&guided, "guided", false, fmt.Sprintf("run seeds in batches of %d, raising the rates of kinds whose pairs are missing (implies --coverage)", world.GuideBatch))
	withCatalogues(cmd, "agents", "policies")
	return cmd
}

// stderrOf writes to a command's stderr, looked up at each write. A flag
// set's output: cobra would print pflag's deprecation notices (--workers)
// on stdout, into a --format json document.
type stderrOf struct{ cmd *cobra.Command }

func (w stderrOf) Write(p []byte) (int, error) { return w.cmd.ErrOrStderr().Write(p) }

// swarmPerShard are the swarm flags that may differ between the shards of
// one run: they change neither a seed's result nor the summary.
var swarmPerShard = []string{"jobs", "workers", "shard", "shard-count", "summary-json", "format", "ledger"}

// swarmRerunSkip are the swarm flags a seed's rerun command leaves out.
var swarmRerunSkip = append([]string{"seeds", "first-seed", "show", "check-determinism", "classes", "actions", "coverage", "guided"}, swarmPerShard...)

// swarmArgs are the flags that shape a swarm's result, for its summary's
// config: those set away from their default, less the per-shard ones, as
// --name=value, sorted.
func swarmArgs(fs *pflag.FlagSet) []string {
	args := []string{}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Changed || contains(swarmPerShard, f.Name) || f.Value.String() == f.DefValue {
			return
		}
		v := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",")
		}
		args = append(args, "--"+f.Name+"="+v)
	})
	slices.Sort(args)
	return args
}

// shardOf reads --shard i/n and --shard-count n (the index then from
// JOB_COMPLETION_INDEX); 0 of 1 without either.
func shardOf(shard string, count int) (int, int, error) {
	if shard == "" && count == 0 {
		return 0, 1, nil
	}
	if count < 0 {
		return 0, 0, fmt.Errorf("--shard-count %d: expected at least 1", count)
	}
	if shard == "" {
		env, ok := os.LookupEnv("JOB_COMPLETION_INDEX")
		if !ok {
			return 0, 0, fmt.Errorf("--shard-count %d: JOB_COMPLETION_INDEX is not set (a Kubernetes Indexed Job sets it per pod); give --shard i/%d instead", count, count)
		}
		i, err := strconv.Atoi(strings.TrimSpace(env))
		if err != nil || i < 0 || i >= count {
			return 0, 0, fmt.Errorf("JOB_COMPLETION_INDEX=%q: expected 0 … %d for --shard-count %d", env, count-1, count)
		}
		return i, count, nil
	}
	is, ns, ok := strings.Cut(shard, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: expected i/n with 0 ≤ i < n, e.g. 0/4", shard)
	}
	if count != 0 && count != n {
		return 0, 0, fmt.Errorf("--shard %s and --shard-count %d disagree on the number of shards", shard, count)
	}
	return i, n, nil
}

// writeSummaryFile writes a summary file, or says why it could not.
func writeSummaryFile(path string, f *world.SummaryFile) error {
	var b bytes.Buffer
	if err := f.WriteJSON(&b); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--summary-json: %v", err)
	}
	return nil
}

// writeSwarm prints a swarm's summary, whole or merged from shards, and
// returns its verdict as the exit error; note (the ledger's line) goes
// just before the verdict's paragraph.
func writeSwarm(out io.Writer, file *world.SummaryFile, note string) error {
	sum, reruns, err := file.Summary()
	if err != nil {
		return err
	}
	c := file.Config
	cfg := world.Config{Policy: c.Policy, Agent: c.Agent, Clients: c.Clients, Prompts: c.Prompts, Rates: c.Rates}
	writeSummary(out, sum, cfg)
	writeFaultClasses(out, sum, cfg)
	writeActionClasses(out, actionTotals(sum.ActionClasses))
	writeCoverage(out, sum.Coverage)
	if sum.Failed > 0 {
		n := min(c.Show, len(sum.Failures))
		fmt.Fprintf(out, "\nfailing seeds (%d of %d shown):\n", n, sum.Failed)
		for i, f := range sum.Failures[:n] {
			fmt.Fprintf(out, "  seed %d: %s%s%s\n    rerun: %s\n", f.Seed, strings.Join(f.Kinds, ", "),
				classesOn(world.SwarmConfig{Classes: c.Classes}, f), actionsOn(c.Actions, f.ActionsOn), reruns[i])
		}
	}
	fmt.Fprint(out, note)
	if c.CheckDeterminism {
		if sum.NotDeterministic == 0 {
			fmt.Fprintf(out, "\ndeterministic: every seed ran twice gave the same trace\n")
		}
		for i, d := range sum.Nondeterministic {
			if i == c.Show {
				break
			}
			fmt.Fprintf(out, "\nseed %d: %s\n", d.Seed, d.Divergence)
		}
	}
	fmt.Fprintln(out)
	switch {
	case sum.NotDeterministic > 0:
		fmt.Fprintf(out, "FAIL: %d of %d seeds are not deterministic\n", sum.NotDeterministic, sum.Seeds)
	case sum.Failed > 0:
		fmt.Fprintf(out, "FAIL: %d of %d seeds broke a property\n", sum.Failed, sum.Seeds)
	case sum.Inconclusive > 0:
		fmt.Fprintf(out, "INCONCLUSIVE: %d of %d seeds could not be judged whole (a cap hit while still busy, or no submission)\n", sum.Inconclusive, sum.Seeds)
	case sum.JudgedNone == sum.Seeds:
		fmt.Fprintf(out, "INCONCLUSIVE: no seed could be judged for never silently lost (the first: %s)\n", sum.JudgedNoneWhy)
	case sum.JudgedNone > 0:
		fmt.Fprintf(out, "PASS on what was judged: %d seeds, every submission inserted at most once and never silently lost where it could be judged; %d seeds judged never silently lost for none of their submissions (the first: %s)\n",
			sum.Seeds, sum.JudgedNone, sum.JudgedNoneWhy)
	default:
		fmt.Fprintf(out, "PASS: %d seeds, every submission inserted at most once and never silently lost\n", sum.Seeds)
	}
	return swarmVerdict(sum)
}

// swarmVerdict is a summary's exit error (nil: every property held).
func swarmVerdict(sum *world.Summary) error {
	switch {
	case sum.NotDeterministic > 0, sum.Failed > 0:
		return exitError{exitAnomaly}
	case sum.Inconclusive > 0, sum.JudgedNone > 0 && sum.JudgedNone == sum.Seeds:
		return exitError{exitInconclusive}
	}
	return nil
}

func writeSummary(out io.Writer, sum *world.Summary, cfg world.Config) {
	mode := ""
	if sum.Classes != nil {
		mode += " · fault classes"
	}
	if sum.ActionClasses != nil {
		mode += " · action classes"
	}
	if sum.Coverage != nil && sum.Coverage.Batches > 0 {
		mode += " · guided"
	}
	seeds := "no seeds"
	if sum.Seeds > 0 {
		seeds = fmt.Sprintf("seeds %d…%d", sum.FirstSeed, sum.FirstSeed+uint64(sum.Seeds)-1)
	}
	fmt.Fprintf(out, "swarm: %d seeds · policy %s · agent %s · %d Client(s) × %d prompts%s · %s\n\n",
		sum.Seeds, cfg.Policy, cfg.Agent, cfg.Clients, cfg.Prompts, mode, seeds)
	fmt.Fprintf(out, "seeds failed: %d of %d", sum.Failed, sum.Seeds)
	if sum.Inconclusive > 0 {
		fmt.Fprintf(out, " (%d inconclusive)", sum.Inconclusive)
	}
	fmt.Fprintln(out)
	if len(sum.Anomalies) == 0 {
		fmt.Fprintln(out, "anomalies: none")
	} else {
		fmt.Fprintln(out, "anomalies:")
		for _, k := range sum.Anomalies {
			fmt.Fprintf(out, "  %-16s %6d in %d seeds\n", k.Kind, k.Count, k.Seeds)
		}
	}
	st := sum.Stats
	fmt.Fprintln(out, "interesting events (the faults reached the windows that matter):")
	for _, row := range []struct {
		name string
		n    int
	}{
		{"responses lost after insertion", st.RespLostAfterInsert},
		{"retries answered from a binding", st.RetriesFromBinding},
		{"retries of still-pending prompts", st.RetriesWhilePending},
		{"keyed retries after an Agent restart", st.RetriesAfterRestart},
		{"keys forgotten by contract (expected)", st.ExpectedForgotten},
	} {
		fmt.Fprintf(out, "  %-38s %6d\n", row.name, row.n)
	}
	writeFaults(out, sum.Faults)
}
