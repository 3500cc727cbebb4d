package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/acpsim/acpsim/netfault/realmode/checkclient"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/properties/clientcheck"
	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/traces"
)

// Property groups of check-client's account: what each judges, and on
// which submissions it can be judged.
const (
	outcomeProps = "outcomes (duplicate, lost, phantom, unresolved, wrong-id)"
	resendProps  = "keys on resend (key-changed, unkeyed-resend, resend-before-resume)"
)

// clientSeedReport is one seed as check-client reports it: the seed's
// result and what the report adds (its verdict, schema findings, the
// trace kept).
type clientSeedReport struct {
	checkclient.Result
	// schemaClient and schemaAgent count the lint problems (acpsim lint)
	// of the frames the Client sent and of those it received.
	schemaClient, schemaAgent, frames int
	// kept is the trace copied to acpsim-failures/ ("" if none).
	kept  string
	rerun string
}

// verdict is the seed's: PASS, INCONCLUSIVE, or FAIL with the kinds.
func (r *clientSeedReport) verdict() string {
	switch {
	case r.Broken != "":
		return "FAIL broken adapter"
	case len(r.Anomalies) > 0:
		return "FAIL " + clientKinds(r.Anomalies)
	case r.Inconclusive != "":
		return "INCONCLUSIVE"
	}
	return "PASS"
}

// lintSeed validates every frame of the seed's trace against the ACP v2
// schema, as acpsim lint does.
func (r *clientSeedReport) lintSeed() {
	log, err := traces.ReadFile(r.Trace)
	if err != nil {
		return
	}
	for _, e := range log.Events {
		if e.Kind == traces.KindSend {
			r.frames++
		}
	}
	for _, p := range conform.TraceVersion(conform.Negotiated(log.Events).Version, log.Events) {
		if p.Dir == traces.ClientToAgent {
			r.schemaClient++
		} else {
			r.schemaAgent++
		}
	}
}

// judgedLine is the seed's account: what was judged on how many of its
// submissions; under ACP v1 the outcomes by text and the keys not at all.
func judgedLine(c clientcheck.Coverage, v1 bool) string {
	if v1 {
		return fmt.Sprintf("judged: outcomes on %d of %d submissions (by text: ACP v1); keys not judged (v1 has none)", c.Outcomes, c.Subs)
	}
	return fmt.Sprintf("judged: outcomes on %d of %d submissions, keys on resend on %d", c.Outcomes, c.Subs, c.Resent)
}

func printClientSeed(w io.Writer, r *clientSeedReport) {
	fmt.Fprintf(w, "seed %-4d %s · %d submissions (%d cancelled), %d outcomes told (%d inserted, %d failed, %d unknown), %d prompt attempts (%d answered with an error), %d Agent processes, faults: %d kills, %d cuts, %d client restarts\n",
		r.Seed, r.verdict(), r.Submissions, r.Cancels, r.Told, r.ToldInserted, r.ToldFailed, r.ToldUnknown, r.Attempts, r.Errors, r.Agents, r.Kills, r.Cuts, r.Restarts)
	switch {
	case r.Broken != "":
	case r.Inconclusive != "":
		fmt.Fprintf(w, "  why: %s\n", r.Inconclusive)
	default:
		fmt.Fprintf(w, "  %s\n", judgedLine(r.Cover, r.V1 != nil))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if n := r.schemaClient + r.schemaAgent; n > 0 {
		fmt.Fprintf(w, "  schema: %d %s (%d in frames the Client sent, %d in frames it received): acpsim lint %s\n",
			n, plural(n, "problem"), r.schemaClient, r.schemaAgent, orTrace(r.kept))
	}
}

// orTrace names the kept trace, or says none could be kept.
func orTrace(kept string) string {
	if kept == "" {
		return "(the trace could not be kept)"
	}
	return kept
}

// printClientFailure explains a failing seed: the first with anomalies in full, a
// later one by the first anomaly of each kind no earlier seed explained,
// so every kind the closing FAIL line counts is told once on screen (a
// Client's real run may not fail the same way when rerun).
func printClientFailure(w io.Writer, r *clientSeedReport, explained map[string]bool) {
	if r.Broken != "" {
		fmt.Fprintf(w, "  the adapter broke its contract (docs/client-adapter.md): %s\n", r.Broken)
		_, lines, total := proc.StderrExcerpt(r.Stderr)
		writeStderr(w, lines, total, "")
	}
	full := len(explained) == 0
	var now []string
	for _, a := range r.Anomalies {
		if explained[a.Kind] || !full && contains(now, a.Kind) {
			continue
		}
		now = append(now, a.Kind)
		printClientAnomaly(w, a)
	}
	for _, k := range now {
		explained[k] = true
	}
}

// clientRun tallies a run's seeds for its closing lines.
type clientRun struct {
	seeds, failed, broken, inconclusive int
	perKind                             map[string]int
	cover                               clientcheck.Coverage
	v1                                  string // the one line for a v1 Client, once
	firstWhy                            string // the first inconclusive seed's reason
	schema, schemaSeeds, frames         int
	schemaTraces                        []string
	attempts, errors                    int
	// told counts the outcomes told by kind, in the judged seeds.
	told, inserted, failedTold, unknown int
	// cancelRate is the run's; canCancel is set once an adapter said it
	// takes cancels, cancels counts those sent.
	cancelRate float64
	canCancel  bool
	cancels    int
}

func (run *clientRun) add(r *clientSeedReport) {
	run.frames += r.frames
	run.attempts += r.Attempts
	run.errors += r.Errors
	run.canCancel = run.canCancel || r.CanCancel
	run.cancels += r.Cancels
	if r.V1 != nil && run.v1 == "" {
		run.v1 = r.V1.V1JudgedLine("the Client")
	}
	if n := r.schemaClient + r.schemaAgent; n > 0 {
		run.schema += n
		run.schemaSeeds++
		if r.kept != "" {
			run.schemaTraces = append(run.schemaTraces, r.kept)
		}
	}
	switch {
	case r.Broken != "" || len(r.Anomalies) > 0:
		run.failed++
		if r.Broken != "" {
			run.broken++
		}
		seen := map[string]bool{}
		for _, a := range r.Anomalies {
			if !seen[a.Kind] {
				seen[a.Kind] = true
				run.perKind[a.Kind]++
			}
		}
	case r.Inconclusive != "":
		run.inconclusive++
		if run.firstWhy == "" {
			run.firstWhy = r.Inconclusive
		}
	}
	if r.Broken == "" && r.Inconclusive == "" {
		run.cover = run.cover.Add(r.Cover)
		run.told += r.Told
		run.inserted += r.ToldInserted
		run.failedTold += r.ToldFailed
		run.unknown += r.ToldUnknown
	}
}

// finish prints the run's account and verdict, and returns its exit code:
// 0 only when every seed passed and the outcomes were judged at all.
func (run *clientRun) finish(w io.Writer) int {
	c := run.cover
	fmt.Fprintln(w)
	if run.v1 != "" {
		fmt.Fprintln(w, "protocol: "+run.v1)
	}
	if c.Subs > 0 {
		fmt.Fprintf(w, "judged: %s on %d of %d submissions of the judged seeds", outcomeProps, c.Outcomes, c.Subs)
		if n := c.Subs - c.Outcomes; n > 0 {
			fmt.Fprintf(w, "; %d never sent as session/prompt", n)
		}
		fmt.Fprintf(w, "\n        %s on %d", resendProps, c.Resent)
		if run.v1 != "" {
			fmt.Fprint(w, ": not judged, ACP v1 has no key")
		} else if c.Resent == 0 {
			fmt.Fprint(w, ": not judged, the Client resent no prompt")
		} else {
			fmt.Fprintf(w, "; %d were sent once, nothing to compare", c.Outcomes-c.Resent)
		}
		fmt.Fprintln(w)
		run.printTold(w)
	}
	if run.inconclusive > 0 {
		fmt.Fprintf(w, "not judged: %d of %d seeds (%s)\n", run.inconclusive, run.seeds, run.firstWhy)
	}
	run.printErrors(w)
	run.printCancels(w)
	run.printSchema(w)
	var kinds []string
	for _, k := range clientcheck.Kinds {
		if run.perKind[k] > 0 {
			kinds = append(kinds, fmt.Sprintf("%s in %d", k, run.perKind[k]))
		}
	}
	if run.broken > 0 {
		kinds = append(kinds, fmt.Sprintf("a broken adapter in %d", run.broken))
	}
	switch {
	case run.failed > 0:
		fmt.Fprintf(w, "FAIL: %d of %d seeds (%s)\n", run.failed, run.seeds, strings.Join(kinds, ", "))
		return exitAnomaly
	case run.inconclusive > 0 || c.Outcomes == 0:
		fmt.Fprintf(w, "INCONCLUSIVE: %d of %d seeds judged nothing, %d passed: %s\n", run.inconclusive, run.seeds, run.seeds-run.inconclusive, run.firstWhy)
		return exitInconclusive
	}
	line := fmt.Sprintf("PASS: %d seeds; every submission the Client sent was inserted at most once and never silently lost, and every outcome told was true", run.seeds)
	if c.Resent > 0 && run.v1 == "" {
		line += fmt.Sprintf("; its %d resent %s keyed as the RFD asks", c.Resent, plural(c.Resent, "submission"))
	}
	fmt.Fprintln(w, line)
	return 0
}

// printTold splits the outcomes told by kind: an unknown is never false,
// so a submission told only unknown was judged by the transcript alone (a
// duplicate), and a run told mostly unknown says little of the Client.
func (run *clientRun) printTold(w io.Writer) {
	fmt.Fprintf(w, "outcomes told: %d inserted, %d failed, %d unknown", run.inserted, run.failedTold, run.unknown)
	if run.unknown > 0 {
		fmt.Fprintf(w, " (%d%% of %d: an unknown is never false, so a submission told only unknown was judged for duplicates alone)", 100*run.unknown/max(run.told, 1), run.told)
	}
	fmt.Fprintln(w)
}

// printErrors says how many prompt attempts the Agent refused: a run that
// refused none did not put the Client's handling of an error answer to the
// test.
func (run *clientRun) printErrors(w io.Writer) {
	if run.attempts == 0 {
		return
	}
	fmt.Fprintf(w, "error answers: %d of %d prompt attempts were answered with an error (not inserted, the key unused)", run.errors, run.attempts)
	if run.errors == 0 {
		fmt.Fprint(w, ": the Client's handling of one was not tested (--prompt-errors)")
	}
	fmt.Fprintln(w)
}

// printCancels says how many cancels the user sent, or why none.
func (run *clientRun) printCancels(w io.Writer) {
	switch {
	case run.cancelRate == 0:
	case !run.canCancel:
		fmt.Fprintln(w, `user cancels: none sent: the adapter did not say it takes them ({"capabilities":{"cancel":true}}, docs/client-adapter.md)`)
	default:
		fmt.Fprintf(w, "user cancels: %d sent\n", run.cancels)
	}
}

// printSchema is the run's one schema line: a finding beside the verdict.
func (run *clientRun) printSchema(w io.Writer) {
	if run.schema == 0 {
		version := "v2"
		if run.v1 != "" {
			version = "v1"
		}
		fmt.Fprintf(w, "schema: the %d frames conform to the ACP %s schema (acpsim lint)\n", run.frames, version)
		return
	}
	cmd := "acpsim lint " + strings.Join(run.schemaTraces, " ")
	if len(run.schemaTraces) > 3 {
		cmd = "acpsim lint " + failuresDir + "/check-client-" + runID() + "-seed-*.ndjson"
	}
	fmt.Fprintf(w, "schema: %d %s in %d of %d seeds' frames (beside the verdict, not part of it): %s\n",
		run.schema, plural(run.schema, "problem"), run.schemaSeeds, run.seeds, cmd)
}
