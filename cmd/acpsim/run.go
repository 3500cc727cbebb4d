package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

func newRunCmd() *cobra.Command {
	var sf simFlags
	var seed uint64
	var tracePath string
	var checkDet bool
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one seed and print its submissions, outcomes and anomalies",
		Long: `Run one simulation: the Clients submit prompts while faults hit the links and
the Agent processes, then the run heals (faults stop, processes restart) and
goes on until it is quiet; finally an observer reads every session's
transcript and the checkers judge the trace.

Without --trace, a failing run writes its trace to
acpsim-failures/run-RUNID-seed-N.ndjson (RUNID: when acpsim started, UTC;
no file is ever overwritten) and prints where.`,
		Example: `  acpsim run
  acpsim run --seed 7 --trace a.ndjson
  acpsim run --policy naive --seed 3                # the naive Client duplicates: exit 1
  ACPSIM_SEED=2 acpsim run --agent memory-keys      # a known-bad Agent, caught: exit 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := sf.config()
			if err != nil {
				return err
			}
			cfg.Seed = seed
			cfg.Command = binName() + " " + rerunCommand(cmd.Flags(), seed, "trace", "check-determinism")[len("acpsim "):]
			var trace *os.File
			if tracePath != "" {
				if trace, err = createTrace(tracePath); err != nil {
					return err
				}
			}
			if checkDet {
				d, err := world.CheckDeterminism(cfg)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "seed %d: %s\n", seed, d)
				if !d.Equal {
					return exitError{exitAnomaly}
				}
			}
			v, err := world.Judge(cfg)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "seed %d · policy %s · agent %s · %d Client(s) × %d prompts · %d events\n\n",
				seed, cfg.Policy, cfg.Agent, cfg.Clients, cfg.Prompts, len(v.Result.Log.Events))
			v.Report.WriteText(out)
			fmt.Fprintln(out)
			writeFaults(out, v.Result.Faults)
			if trace != nil {
				if err := writeTrace(trace, v.Result.Log); err != nil {
					return err
				}
			}
			return verdict(out, v.Report, cfg.Command, func() string {
				if tracePath != "" {
					return tracePath
				}
				return saveFailure(v.Result.Log, "run", fmt.Sprintf("seed-%d", seed))
			}, "")
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the run: the same seed gives the same trace, byte for byte")
	cmd.Flags().StringVar(&tracePath, "trace", "", "write the run's trace (ndjson) to this file")
	cmd.Flags().BoolVar(&checkDet, "check-determinism", false, "run the seed twice first and name the first event where the traces differ")
	withCatalogues(cmd, "agents", "policies")
	return cmd
}

// verdict prints the last line of a run and turns it into the exit code;
// note is added to a PASS or INCONCLUSIVE line (what is beside it).
func verdict(out io.Writer, rep *properties.Report, rerun string, tracePath func() string, note string) error {
	switch v, line := rep.Verdict(); v {
	case properties.VerdictInconclusive:
		fmt.Fprintln(out, line+note)
		return exitError{exitInconclusive}
	case properties.VerdictPass:
		fmt.Fprintln(out, line+note)
		return nil
	}
	path := tracePath()
	fmt.Fprintf(out, "FAIL\n  trace: %s\n", path)
	if rerun != "" { // a trace no command made (acpsim tap's) has nothing to rerun
		fmt.Fprintf(out, "  rerun: %s\n", rerun)
	}
	fmt.Fprint(out, eventsLine(path, rep))
	return exitError{exitAnomaly}
}

// eventsLine is the footer line that prints the first anomaly's events
// whole (acpsim events), "" when it cites none or no trace was written.
func eventsLine(path string, rep *properties.Report) string {
	if path == "" || strings.HasPrefix(path, "(") || len(rep.Anomalies) == 0 || len(rep.Anomalies[0].Events) == 0 {
		return ""
	}
	if strings.HasPrefix(path, "-") {
		path = "./" + path // not a flag
	}
	return fmt.Sprintf("  events: %s events %s %s\n", binName(), shell.Quote(path), seqRanges(rep.Anomalies[0].Events))
}

// seqRanges writes ascending seqs as acpsim events takes them, runs of
// consecutive numbers as ranges: 34-36 38.
func seqRanges(seqs []int64) string {
	var b strings.Builder
	for i := 0; i < len(seqs); {
		j := i
		for j+1 < len(seqs) && seqs[j+1] == seqs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(seqs[i], 10))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.FormatInt(seqs[j], 10))
		}
		i = j + 1
	}
	return b.String()
}

func writeFaults(out io.Writer, faults []sim.KindCount) {
	if len(faults) == 0 {
		return
	}
	parts := make([]string, 0, len(faults))
	for _, f := range faults {
		parts = append(parts, fmt.Sprintf("%s %d/%d", f.Kind, f.Faults, f.Asked))
	}
	fmt.Fprintf(out, "faults injected/asked: %s\n", strings.Join(parts, ", "))
}

// createTrace opens the trace file before the run, so a bad path fails fast.
func createTrace(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("--trace %s: is a directory, expected a file path", path)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--trace: %v", err)
	}
	return f, nil
}

func writeTrace(f *os.File, log *traces.Log) error {
	bw := bufio.NewWriterSize(f, 1<<16)
	if _, err := log.WriteTo(bw); err != nil {
		f.Close()
		return fmt.Errorf("writing trace %s: %v", f.Name(), err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing trace %s: %v", f.Name(), err)
	}
	return f.Close()
}

// binName is how rerun commands start: the name of the binary the user
// ran, or "acpsim" when started with go run, whose "go run ./cmd/acpsim"
// works only inside the checkout and a trace is often judged elsewhere.
func binName() string {
	exe := os.Args[0]
	if strings.Contains(exe, "go-build") {
		return "acpsim"
	}
	return filepath.Base(exe)
}
