// shrink on a trace of acpsim check: the same search as the simulator's
// (sim/shrink), each candidate re-driven against the real Agent by check
// itself, in this process: the schedule of the candidate's choices written
// as a trace, run with --skip, judged from the trace check writes.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/shrink"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// isCheckTrace reports whether log was written by acpsim check.
func isCheckTrace(log *traces.Log) bool { return strings.HasPrefix(log.Header.Tool, "acpsim check") }

// checkRedriver re-drives schedules of one check trace.
type checkRedriver struct {
	rec     *traces.Log
	kind    string
	repeat  int
	scratch string
	n       int
}

// redrive runs check on choices with skip once and returns its trace.
func (r *checkRedriver) redrive(skip []string, choices []sim.Choice) (*traces.Log, error) {
	r.n++
	sched := filepath.Join(r.scratch, fmt.Sprintf("schedule-%d.ndjson", r.n))
	log := &traces.Log{Header: r.rec.Header}
	for _, c := range choices {
		log.Append(traces.Event{Kind: traces.KindChoose, Decision: c.Kind, Site: c.Site, Option: c.Option})
	}
	log.Append(traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	f, err := os.Create(sched)
	if err != nil {
		return nil, err
	}
	if err := writeTrace(f, log); err != nil {
		return nil, err
	}
	dir := filepath.Join(r.scratch, fmt.Sprintf("run-%d", r.n))
	args := []string{"--schedule", sched, "--trace-dir", dir, "--show", "0"}
	if len(skip) > 0 {
		args = append(args, "--skip", strings.Join(skip, ","))
	}
	cmd := newCheckCmd()
	cmd.SetArgs(args)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err != nil && !errors.As(err, new(exitError)) {
		return nil, fmt.Errorf("re-driving a candidate: %v\n%s", err, out.String())
	}
	return readTrace(filepath.Join(dir, fmt.Sprintf("check-seed-%d.ndjson", r.rec.Header.Seed)))
}

// fails re-drives a candidate repeat times: it still fails only if every
// run shows the kind, so the schedule kept fails every time.
func (r *checkRedriver) fails(skip []string, choices []sim.Choice) (bool, error) {
	for range r.repeat {
		log, err := r.redrive(skip, choices)
		if err != nil {
			return false, err
		}
		if !shrink.Shows(properties.Check(log.Header, log.Events), r.kind) {
			return false, nil
		}
	}
	return true, nil
}

// shrinkCheckTrace shrinks a check trace against the real Agent its
// header names and writes the smallest run's trace to outPath.
// was is the trace's own report.
func shrinkCheckTrace(cmd *cobra.Command, path string, rec *traces.Log, was *properties.Report, kind, outPath string, repeat int) error {
	h := rec.Header
	if h.Link != "stdio" {
		return fmt.Errorf("%s: shrink re-drives a check of a stdio Agent; this trace's Agent is %s (%s): re-drive it with acpsim check --schedule", path, h.Agent, h.Link)
	}
	scratch, err := os.MkdirTemp("", "acpsim-shrink-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	r := &checkRedriver{rec: rec, kind: kind, repeat: max(repeat, 1), scratch: scratch}
	evs, skip, err := recordedScenario(h)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	start := time.Now()
	choices := sim.Recorded(rec.Events)
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "shrinking %s (%s) against %s: each candidate re-driven %d time(s)\n", path, kind, h.Agent, r.repeat)
	ok, err := r.fails(skip, choices)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s: re-driven, the run does not show %s: nothing to shrink (acpsim check --schedule %s --repeat 10 tells how often it comes back)", path, kind, shell.Quote(path))
	}
	focus := anomalySubs(rec, was, kind)
	skip, choices, runs, err := shrink.Search(shrink.Problem{Events: evs, Clients: h.Clients, Skip: skip, Choices: choices, Fails: r.fails, Rounds: 3, Focus: focus})
	if err != nil {
		return err
	}
	best, err := r.redrive(skip, choices)
	if err != nil {
		return err
	}
	report := properties.Check(best.Header, best.Events)
	if !shrink.Shows(report, kind) {
		return fmt.Errorf("%s: the smallest schedule shows no %s when re-driven once more: the Agent is not deterministic; shrink with --repeat 5", path, kind)
	}
	out, err := createTrace(outPath)
	if err != nil {
		return err
	}
	if err := writeTrace(out, best); err != nil {
		return err
	}
	fmt.Fprintf(w, "shrunk %s (%s) in %v, %d re-drives:\n", path, kind, time.Since(start).Round(time.Millisecond), (runs+1)*r.repeat+1)
	fmt.Fprintf(w, "  faults      %4d → %d\n", len(sim.Recorded(rec.Events)), len(sim.Recorded(best.Events)))
	fmt.Fprintf(w, "  submissions %4d → %d\n", countKind(rec.Events, traces.KindSubmit), countKind(best.Events, traces.KindSubmit))
	fmt.Fprintf(w, "  events      %4d → %d\n\n", len(rec.Events), len(best.Events))
	for _, c := range sim.Recorded(best.Events) {
		fmt.Fprintf(w, "  fault: %s at %s (option %d)\n", c.Kind, c.Site, c.Option)
	}
	if len(skip) > 0 {
		fmt.Fprintf(w, "  left out: %s\n", strings.Join(skip, ", "))
	}
	for _, a := range report.Anomalies {
		if a.Kind == kind {
			fmt.Fprintf(w, "\n%s: %s\n", a.Kind, a.Explanation)
			break
		}
	}
	fmt.Fprintf(w, "\nwritten to %s\n  re-drive: %s check --schedule %s --repeat 10\n  view:     %s view %s\n", outPath, binName(), shell.Quote(outPath), binName(), shell.Quote(outPath))
	return nil
}

// anomalySubs are the submissions the first anomaly of kind is about and
// those of the events it cites: the leap's guess at what the failure needs.
func anomalySubs(rec *traces.Log, report *properties.Report, kind string) []string {
	bySeq := map[int64]string{}
	for _, e := range rec.Events {
		if e.Sub != "" {
			bySeq[e.Seq] = e.Sub
		}
	}
	var subs []string
	for _, a := range report.Anomalies {
		if a.Kind != kind {
			continue
		}
		add := func(sub string) {
			if sub != "" && !slices.Contains(subs, sub) {
				subs = append(subs, sub)
			}
		}
		add(a.Sub)
		for _, seq := range a.Events {
			add(bySeq[seq])
		}
		break
	}
	return subs
}

// recordedScenario is the users' scenario a check trace ran (its header's
// seed and its rerun command's flags: the seed's drawn actions are stated
// there) and the events it left out (--skip).
func recordedScenario(h traces.Header) ([]users.Event, []string, error) {
	fs, err := recordedCheckFlags(h)
	if err != nil {
		return nil, nil, err
	}
	cancels, _ := fs.GetInt("cancels")
	closes, _ := fs.GetInt("closes")
	forks, _ := fs.GetInt("forks")
	maxGap, _ := fs.GetDuration("max-gap")
	by, _ := fs.GetString("cancel-by")
	cancelBy, err := cancelByFlag(by)
	if err != nil {
		return nil, nil, err
	}
	skip, _ := fs.GetStringSlice("skip")
	evs := users.Draw(sim.NewIDs(h.Seed), users.Spec{Clients: h.Clients, Prompts: h.Prompts, Sessions: h.Sessions,
		Cancels: cancels, Closes: closes, Forks: forks, CancelBy: cancelBy, MaxGap: maxGap})
	return evs, skip, nil
}
