package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/sim/world"
)

func newSwarmCmd() *cobra.Command {
	var sf simFlags
	var seeds, workers, show int
	var checkDet, coverage, guided bool
	var classes, ledger string
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

--coverage counts the (fault point × protocol state) pairs the seeds hit,
e.g. "kill × respond-prompt" (an Agent killed after insertion, before the
response), and lists the pairs never hit; --guided runs the seeds in batches
and raises the rates of the fault kinds whose pairs are still missing.`,
		Example: `  acpsim swarm --seeds 2000 --policy keyed
  acpsim swarm --seeds 2000 --policy naive
  acpsim swarm --seeds 2000 --agent ignore-key
  acpsim swarm --seeds 2000 --coverage --guided`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			sc := world.SwarmConfig{Base: cfg, FirstSeed: first, Seeds: seeds, Workers: workers, CheckDeterminism: checkDet,
				Classes: classes == "on", Coverage: coverage || guided, Guided: guided}
			var bar *progressbar.ProgressBar
			if isatty.IsTerminal(os.Stderr.Fd()) {
				bar = progressbar.NewOptions(seeds, progressbar.OptionSetWriter(os.Stderr),
					progressbar.OptionSetDescription("seeds"), progressbar.OptionShowCount(),
					progressbar.OptionShowIts(), progressbar.OptionSetItsString("seeds"),
					progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
				sc.Progress = func(done, failed int) {
					bar.Describe(fmt.Sprintf("seeds (%d failed)", failed))
					_ = bar.Set(done)
				}
			}
			start := time.Now()
			sum, err := world.Swarm(sc)
			if bar != nil {
				_ = bar.Finish()
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			writeSummary(out, sum, cfg, time.Since(start))
			writeFaultClasses(out, sum, cfg)
			writeCoverage(out, sum.Coverage)
			skip := []string{"seeds", "first-seed", "workers", "show", "check-determinism", "classes", "coverage", "guided", "ledger"}
			if len(sum.Failures) > 0 {
				n := min(show, len(sum.Failures))
				fmt.Fprintf(out, "\nfailing seeds (%d of %d shown):\n", n, len(sum.Failures))
				for _, f := range sum.Failures[:n] {
					fmt.Fprintf(out, "  seed %d: %s%s\n    rerun: %s\n", f.Seed, strings.Join(f.Kinds, ", "), classesOn(sc, f),
						seedRerun(cmd.Flags(), cfg, f, skip))
				}
			}
			if ledger != "" && len(sum.Failures) > 0 {
				entries := make([]ledgerEntry, 0, len(sum.Failures))
				rev := commit()
				for _, f := range sum.Failures {
					entries = append(entries, ledgerEntry{Seed: f.Seed, Commit: rev, Command: seedRerun(cmd.Flags(), cfg, f, skip),
						Anomalies: f.Kinds, Time: time.Now().UTC().Truncate(time.Second)})
				}
				if err := appendLedger(ledger, entries); err != nil {
					return err
				}
				fmt.Fprintf(out, "\n%d failing seed(s) appended to %s: acpsim replay --ledger %s reruns them\n", len(entries), ledger, shellQuote(ledger))
			}
			if checkDet {
				if len(sum.Nondeterministic) == 0 {
					fmt.Fprintf(out, "\ndeterministic: every seed ran twice gave the same trace\n")
				}
				for i, d := range sum.Nondeterministic {
					if i == show {
						break
					}
					fmt.Fprintf(out, "\nseed %d: %s\n", d.Seed, d.Divergence)
				}
			}
			fmt.Fprintln(out)
			switch {
			case len(sum.Nondeterministic) > 0:
				fmt.Fprintf(out, "FAIL: %d of %d seeds are not deterministic\n", len(sum.Nondeterministic), sum.Seeds)
				return exitError{exitAnomaly}
			case sum.Failed > 0:
				fmt.Fprintf(out, "FAIL: %d of %d seeds broke a property\n", sum.Failed, sum.Seeds)
				return exitError{exitAnomaly}
			case sum.Inconclusive > 0:
				fmt.Fprintf(out, "INCONCLUSIVE: %d of %d seeds hit their cap while still busy\n", sum.Inconclusive, sum.Seeds)
				return exitError{exitInconclusive}
			}
			fmt.Fprintf(out, "PASS: %d seeds, every submission inserted at most once and never silently lost\n", sum.Seeds)
			return nil
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().IntVar(&seeds, "seeds", 100, "number of seeds to run")
	cmd.Flags().Uint64Var(&first, "first-seed", 1, "first seed")
	cmd.Flags().IntVar(&workers, "workers", 0, "parallel workers (0: one per core)")
	cmd.Flags().IntVar(&show, "show", 10, "how many failing seeds to list with their rerun command")
	cmd.Flags().BoolVar(&checkDet, "check-determinism", false, "run every seed twice and name the first event where its traces differ")
	cmd.Flags().StringVar(&classes, "classes", "on", "fault classes per seed, as TigerBeetle's VOPR: on (each seed switches whole classes of faults on or off and draws the rates of those on; a rerun command carries them as --fault-rates) or off (every seed at the --fault-rates rates)")
	cmd.Flags().StringVar(&ledger, "ledger", "", "append every failing seed (its commit, rerun command and anomalies) to this file, one JSON line each; acpsim replay --ledger FILE reruns them")
	cmd.Flags().BoolVar(&coverage, "coverage", false, "count the (fault point × protocol state) pairs the seeds hit and list those never hit")
	cmd.Flags().BoolVar(&guided, "guided", false, fmt.Sprintf("run the seeds in batches of %d and raise, for the next batch, the rates of the fault kinds whose pairs no seed hit yet (implies --coverage)", world.GuideBatch))
	return cmd
}

func writeSummary(out io.Writer, sum *world.Summary, cfg world.Config, took time.Duration) {
	mode := ""
	if sum.Classes != nil {
		mode += " · fault classes"
	}
	if sum.Coverage != nil && sum.Coverage.Batches > 0 {
		mode += " · guided"
	}
	fmt.Fprintf(out, "swarm: %d seeds · policy %s · agent %s · %d Client(s) × %d prompts%s · %s (%.0f seeds/s)\n\n",
		sum.Seeds, cfg.Policy, cfg.Agent, cfg.Clients, cfg.Prompts, mode, took.Round(time.Millisecond), float64(sum.Seeds)/took.Seconds())
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
