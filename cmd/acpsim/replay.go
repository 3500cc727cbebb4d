package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

func newReplayCmd() *cobra.Command {
	var tracePath, ledger string
	cmd := &cobra.Command{
		Use:   "replay [TRACE]",
		Short: "Re-run a trace from its recorded faults and say whether the outcome is the same",
		Long: `Re-run the run a trace recorded: the same scenario (from the trace header's
command) with the faults the trace recorded, matched by kind and site, not by
position. A decision the trace has no record of gets "no fault", so a trace
stays valid after code changes that add, remove or move random draws (a seed
would then give another run). Prints the replayed run's report, whether its
outcome (the anomaly kinds) matches the recorded one, and if the events differ
the first one that does.

--ledger FILE first reruns every failing seed a swarm appended to FILE
(swarm --ledger), like rapid's fail files, and says which still fail.

Exit codes as for run: 0 the replayed run passed, 1 it failed (a ledger
seed still fails), 2 bad input.`,
		Example: `  acpsim replay acpsim-failures/run-20261204T152824-seed-7.ndjson # fails again: exit 1
  acpsim replay small.ndjson --trace again.ndjson   # exit 1
  acpsim replay --ledger acpsim-ledger.ndjson       # a seed still fails: exit 1`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && ledger == "" {
				return errors.New("nothing to replay: give a trace file, or --ledger FILE")
			}
			out := cmd.OutOrStdout()
			failed := false
			if ledger != "" {
				f, err := replayLedger(out, ledger)
				if err != nil {
					return err
				}
				failed = f
			}
			if len(args) == 1 {
				var trace *os.File
				if tracePath != "" {
					var err error
					if trace, err = createTrace(tracePath); err != nil {
						return err
					}
				}
				f, err := replayTrace(out, args[0], trace)
				if err != nil {
					return err
				}
				failed = failed || f
			}
			if failed {
				return exitError{exitAnomaly}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tracePath, "trace", "", "write the replayed run's trace to this file")
	cmd.Flags().StringVar(&ledger, "ledger", "", "rerun every failing seed recorded in this ledger first (written by swarm --ledger)")
	return cmd
}

// replayTrace replays path and prints the comparison; failed says the
// replayed run showed an anomaly.
func replayTrace(out io.Writer, path string, trace *os.File) (failed bool, err error) {
	rec, err := readTrace(path)
	if err != nil {
		return false, err
	}
	cfg, _, err := traceConfig(rec, path)
	if err != nil {
		return false, err
	}
	cfg.Chooser = sim.NewSchedule(sim.Recorded(rec.Events))
	v, err := world.Judge(cfg)
	if err != nil {
		return false, err
	}
	was := properties.Check(rec.Header, rec.Events)
	fmt.Fprintf(out, "replay of %s: seed %d · policy %s · agent %s · %d recorded faults · %d events (recorded %d)\n\n",
		path, cfg.Seed, cfg.Policy, cfg.Agent, countKind(rec.Events, traces.KindChoose), len(v.Result.Log.Events), len(rec.Events))
	v.Report.WriteText(out)
	fmt.Fprintln(out)
	before, after := kindList(was), kindList(v.Report)
	if slices.Equal(before, after) {
		fmt.Fprintf(out, "outcome: the same as recorded (%s)\n", orNone(after))
	} else {
		fmt.Fprintf(out, "outcome: DIFFERENT: recorded %s, replayed %s\n", orNone(before), orNone(after))
	}
	if d := world.Diverge(rec, v.Result.Log); !d.Equal {
		fmt.Fprintf(out, "events: the runs differ first at event %d\n  recorded: %s\n  replayed: %s\n", d.Seq, orEnded(d.A), orEnded(d.B))
	} else {
		fmt.Fprintln(out, "events: identical to the recorded ones")
	}
	if trace != nil {
		if err := writeTrace(trace, v.Result.Log); err != nil {
			return false, err
		}
	}
	return !v.Report.OK(), nil
}

func orEnded(s string) string {
	if s == "" {
		return "(none: the run had ended)"
	}
	return s
}

func countKind(evs []traces.Event, kind string) int {
	n := 0
	for i := range evs {
		if evs[i].Kind == kind {
			n++
		}
	}
	return n
}

// kindList is the report's anomaly kinds, each once, in report order.
func kindList(r *properties.Report) []string {
	var out []string
	for _, a := range r.Anomalies {
		if !slices.Contains(out, a.Kind) {
			out = append(out, a.Kind)
		}
	}
	return out
}

func orNone(kinds []string) string {
	if len(kinds) == 0 {
		return "no anomaly"
	}
	return strings.Join(kinds, ", ")
}

// traceConfig rebuilds the configuration of a simulated run from its trace
// header's rerun command, parsed with run's own flags.
func traceConfig(log *traces.Log, path string) (world.Config, *pflag.FlagSet, error) {
	h := log.Header
	if strings.HasPrefix(h.Tool, "acpsim check") {
		return world.Config{}, nil, fmt.Errorf("%s: a trace of acpsim check (a real Agent) cannot be replayed in the simulator: re-drive it with acpsim check --schedule %s", path, shell.Quote(path))
	}
	return commandConfig(h.Command, path+`:1: header: field "command"`)
}

// commandConfig parses an `acpsim run …` command line into a configuration.
func commandConfig(command, what string) (world.Config, *pflag.FlagSet, error) {
	words, err := shell.Split(command)
	if err != nil {
		return world.Config{}, nil, fmt.Errorf("%s %q: %v", what, command, err)
	}
	// The subcommand is the last "run" before the first flag: the command
	// may start with "go run ./cmd/acpsim run".
	i := -1
	for j, w := range words {
		if strings.HasPrefix(w, "-") {
			break
		}
		if w == "run" {
			i = j
		}
	}
	if i < 0 {
		return world.Config{}, nil, fmt.Errorf("%s %q: expected an `acpsim run …` command", what, command)
	}
	var sf simFlags
	var seed uint64
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf.register(fs)
	fs.Uint64Var(&seed, "seed", 1, "")
	fs.String("trace", "", "")
	fs.Bool("check-determinism", false, "")
	if err := fs.Parse(words[i+1:]); err != nil {
		return world.Config{}, nil, fmt.Errorf("%s %q: %v", what, command, err)
	}
	cfg, err := sf.config()
	if err != nil {
		return world.Config{}, nil, fmt.Errorf("%s %q: %v", what, command, err)
	}
	cfg.Seed = seed
	cfg.Command = command
	return cfg, fs, nil
}

// ledgerEntry is one failing seed a swarm recorded.
type ledgerEntry struct {
	Seed      uint64    `json:"seed"`
	Commit    string    `json:"commit"`
	Command   string    `json:"command"`
	Anomalies []string  `json:"anomalies"`
	Time      time.Time `json:"time"`
}

// appendLedger appends failing seeds to the ledger file.
func appendLedger(path string, entries []ledgerEntry) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("--ledger: %v", err)
	}
	w := bufio.NewWriter(f)
	for _, e := range entries {
		b, _ := json.Marshal(e)
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("--ledger %s: %v", path, err)
	}
	return f.Close()
}

// replayLedger reruns every seed of the ledger at path; failed says one
// still fails.
func replayLedger(out io.Writer, path string) (failed bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("--ledger: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	still, fixed := 0, 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var e ledgerEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return false, fmt.Errorf("%s:%d: not a ledger entry (expected {\"seed\":…,\"command\":\"acpsim run …\",…}): %v", path, line, err)
		}
		cfg, _, err := commandConfig(e.Command, fmt.Sprintf("%s:%d: field \"command\"", path, line))
		if err != nil {
			return false, err
		}
		v, err := world.JudgeOnly(cfg) // only the verdict: no trace to keep
		if err != nil {
			return false, err
		}
		now := kindList(v.Report)
		if len(now) > 0 {
			still++
			fmt.Fprintf(out, "ledger seed %d (commit %s, %s): still fails: %s\n", e.Seed, e.Commit, strings.Join(e.Anomalies, ", "), strings.Join(now, ", "))
		} else {
			fixed++
			fmt.Fprintf(out, "ledger seed %d (commit %s, %s): passes now\n", e.Seed, e.Commit, strings.Join(e.Anomalies, ", "))
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	fmt.Fprintf(out, "ledger %s: %d still fail, %d pass now\n\n", path, still, fixed)
	return still > 0, nil
}

// commit names the code a ledger entry was found with: the build's VCS
// stamp, else the checkout's HEAD, else "unknown".
func commit() string {
	bi, _ := debug.ReadBuildInfo()
	if rev, dirty := buildVCS(bi); rev != "" {
		rev = rev[:min(len(rev), 12)]
		if dirty {
			rev += "+dirty"
		}
		return rev
	}
	if b, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output(); err == nil {
		return strings.TrimSpace(string(b))
	}
	return "unknown"
}
