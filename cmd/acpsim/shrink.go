package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/shrink"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

func newShrinkCmd() *cobra.Command {
	var outPath, kind string
	var repeat int
	cmd := &cobra.Command{
		Use:   "shrink TRACE -o SMALL",
		Short: "Make a failing trace small: fewer faults, prompts and Clients, the same kind of anomaly",
		Long: `Shrink a failing run to a counterexample a person can read: delta debugging
over its recorded faults, then leaving out whole Clients, actions and
submissions, then shortening delays, for as long as the run still shows the
same kind of anomaly (the trace's first, or --kind). Faults are replayed by
kind and site, as replay does; left-out submissions are named in the small
trace's command (--skip), so the rest of the scenario stays as it was.

Prints the sizes before and after (faults, prompts, events) and the command
that replays the small trace.

A trace of acpsim check is shrunk against the real Agent its header names
(a stdio command): each candidate schedule is re-driven as check --schedule
does, under the clock the trace was run on, --repeat times (every run must
show the anomaly, so a flaky Agent leaves a schedule that fails every
time). It prints the re-drive command of the small schedule.`,
		Example: `  acpsim shrink acpsim-failures/run-20261204T152824-seed-7.ndjson -o small.ndjson
  acpsim shrink big.ndjson -o small.ndjson --kind lost
  acpsim shrink check-seed-1.ndjson -o small.ndjson   # a check trace: re-drives its Agent`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if outPath == "" {
				return errors.New("-o is required: the file to write the small trace to")
			}
			rec, err := readTrace(args[0])
			if err != nil {
				return err
			}
			var cfg world.Config
			var fs *pflag.FlagSet
			if !isCheckTrace(rec) {
				if cfg, fs, err = traceConfig(rec, args[0]); err != nil {
					return err
				}
			}
			was := properties.Check(rec.Header, rec.Events)
			if kind == "" {
				if len(was.Anomalies) == 0 {
					return fmt.Errorf("%s: the trace shows no anomaly: nothing to shrink", args[0])
				}
				kind = was.Anomalies[0].Kind
			} else if !contains(properties.Kinds, kind) {
				return fmt.Errorf("--kind %q: expected one of %s", kind, strings.Join(properties.Kinds, ", "))
			}
			if isCheckTrace(rec) {
				return shrinkCheckTrace(cmd, args[0], rec, was, kind, outPath, repeat)
			}
			out, err := createTrace(outPath)
			if err != nil {
				return err
			}
			start := time.Now()
			res, err := shrink.Shrink(cfg, sim.Recorded(rec.Events), kind)
			if err != nil {
				out.Close()
				os.Remove(outPath)
				return fmt.Errorf("%s: %v", args[0], err)
			}
			// The small trace reruns itself: its command carries the skips.
			if len(res.Config.Skip) > 0 {
				if err := fs.Set("skip", strings.Join(res.Config.Skip, ",")); err != nil {
					return err
				}
			}
			seed, _ := fs.GetUint64("seed")
			command := binName() + " " + rerunCommand(fs, seed, "trace", "check-determinism")[len("acpsim "):]
			log := res.Verdict.Result.Log
			log.Header.Command = command
			if err := writeTrace(out, log); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "shrunk %s (%s) in %v, %d runs:\n", args[0], kind, time.Since(start).Round(time.Millisecond), res.Runs)
			fmt.Fprintf(w, "  faults  %4d → %d\n", countKind(rec.Events, traces.KindChoose), len(res.Choices))
			fmt.Fprintf(w, "  prompts %4d → %d\n", countKind(rec.Events, traces.KindSubmit), countKind(log.Events, traces.KindSubmit))
			fmt.Fprintf(w, "  events  %4d → %d\n\n", len(rec.Events), len(log.Events))
			for _, c := range res.Choices {
				fmt.Fprintf(w, "  fault: %s at %s (option %d)\n", c.Kind, c.Site, c.Option)
			}
			for _, a := range res.Verdict.Report.Anomalies {
				if a.Kind == kind {
					fmt.Fprintf(w, "\n%s: %s\n", a.Kind, a.Explanation)
					break
				}
			}
			fmt.Fprintf(w, "\nwritten to %s\n  replay: %s replay %s\n", outPath, binName(), shell.Quote(outPath))
			if hint := installHint(); hint != "" && binName() == "acpsim" {
				fmt.Fprintf(w, "  (%s)\n", hint)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&outPath, "output", "o", "", "write the small trace here")
	cmd.Flags().StringVar(&kind, "kind", "", "the anomaly kind to keep (default: the trace's first)")
	cmd.Flags().IntVar(&repeat, "repeat", 1, "a check trace: re-drive each candidate this many times; it must fail every time")
	return cmd
}
