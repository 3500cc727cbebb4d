package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// acpsim events prints the events a report cites, each whole: its number,
// its link and ends, and a delivery's frame (in format 2 with the send it
// delivers), in either format; with no numbers, every event, numbered as its
// line.
func TestEventsPrintsWhatAReportCites(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "seed7.ndjson")
	if code, _, stderr := run(t, "run", "--seed", "7", "--policy", "naive", "--trace", trace); code != exitAnomaly {
		t.Fatalf("setup run: exit %d: %s", code, stderr)
	}
	log, err := traces.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	v1 := filepath.Join(dir, "seed7-format1.ndjson")
	f1 := *log
	f1.Header.Format = traces.FormatV1
	writeLog(t, v1, &f1)

	// The first delivery of a frame in flight, and its send.
	var deliver traces.Event
	for _, e := range log.Events {
		if e.Kind == traces.KindDeliver && e.Send != 0 && e.Seq > 20 {
			deliver = e
			break
		}
	}
	send := log.Events[deliver.Send-1]
	for _, path := range []string{trace, v1} {
		sel := []string{"events", path, seqArg(send.Seq), seqArg(deliver.Seq) + "-" + seqArg(deliver.Seq+1)}
		code, stdout, stderr := run(t, sel...)
		if code != exitOK || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", path, code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("%s: %d lines, want 3:\n%s", path, len(lines), stdout)
		}
		var got []wholeEvent
		for _, l := range lines {
			var one wholeEvent
			if err := json.Unmarshal([]byte(l), &one); err != nil {
				t.Fatalf("%s: a line that is not JSON: %s", path, l)
			}
			got = append(got, one)
		}
		if got[0].Seq != send.Seq || got[1].Seq != deliver.Seq || got[2].Seq != deliver.Seq+1 {
			t.Errorf("%s: printed events %d, %d, %d; asked %d, %d-%d", path, got[0].Seq, got[1].Seq, got[2].Seq, send.Seq, deliver.Seq, deliver.Seq+1)
		}
		d := got[1]
		wantSend := send.Seq // format 1 pairs nothing: its deliveries repeat the frame
		if path == v1 {
			wantSend = 0
		}
		if d.Kind != traces.KindDeliver || d.Send != wantSend || d.Link != send.Link || d.From != send.From || string(d.Msg) != send.Frame {
			t.Errorf("%s: the delivery printed %+v, want it whole: send %d's link %s, ends and frame %s", path, d, send.Seq, send.Link, send.Frame)
		}
	}

	code, stdout, _ := run(t, "events", trace)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != exitOK || len(lines) != len(log.Events) {
		t.Fatalf("every event: exit %d, %d lines for %d events", code, len(lines), len(log.Events))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, `{"t":`) || !strings.Contains(l, `,"seq":`+seqArg(int64(i+1))+`,"kind":`) {
			t.Fatalf("line %d: %s, want event %d", i+1, l, i+1)
		}
	}
}

// Bad numbers, numbers past the end and unreadable traces are one line on
// stderr and exit 2; what exists is printed first.
func TestEventsBadInputIsExit2(t *testing.T) {
	dir := t.TempDir()
	trace, n := aPassingTrace(t, dir)
	garbage := filepath.Join(dir, "garbage.ndjson")
	os.WriteFile(garbage, []byte("not a trace\n"), 0o644)
	for _, tc := range []struct {
		name  string
		args  []string
		want  string
		lines int
	}{
		{"not a number", []string{"events", trace, "3x"}, `"3x": not an event's number; expected an event's number (34)`, 0},
		{"zero", []string{"events", trace, "0"}, `"0": not an event's number`, 0},
		{"backwards", []string{"events", trace, "9-3"}, `"9-3": the range ends before it starts`, 0},
		{"bad end", []string{"events", trace, "3-x"}, `"3-x": "x" is not an event's number`, 0},
		{"past the end", []string{"events", trace, seqArg(n - 1), seqArg(n + 5)}, "has " + seqArg(n) + " events: event " + seqArg(n+5) + " is past its end", 1},
		{"not a trace", []string{"events", garbage}, "garbage.ndjson:1:", 0},
		{"missing", []string{"events", filepath.Join(dir, "missing.ndjson")}, "no such file", 0},
		{"no trace", []string{"events"}, "requires at least 1 arg(s)", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
			}
			if got := strings.Count(stdout, "\n"); got != tc.lines {
				t.Errorf("%d lines printed, want %d:\n%s", got, tc.lines, stdout)
			}
		})
	}
}

// wholeEvent is what a test reads of a line acpsim events prints.
type wholeEvent struct {
	Seq  int64           `json:"seq"`
	Kind string          `json:"kind"`
	Link string          `json:"link"`
	From string          `json:"from"`
	Msg  json.RawMessage `json:"msg"`
	Send int64           `json:"send"`
}

func seqArg(n int64) string { return strconv.FormatInt(n, 10) }

// writeLog writes log as a trace file at path.
func writeLog(t *testing.T, path string, log *traces.Log) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A failing run's footer names the command that prints the first anomaly's
// events, and that command, run as printed, prints exactly those events.
func TestAFailuresFooterPrintsItsEvents(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "seed7.ndjson")
	code, out, _ := run(t, "run", "--seed", "7", "--policy", "naive", "--trace", trace)
	if code != exitAnomaly {
		t.Fatalf("exit %d, want a failing run:\n%s", code, out)
	}
	args := footerEvents(t, out)
	if len(args) < 2 || args[0] != trace {
		t.Fatalf("events line %q, want the trace %s and its numbers", args, trace)
	}
	code, printed, stderr := run(t, append([]string{"events"}, args...)...)
	if code != exitOK {
		t.Fatalf("the footer's command: exit %d: %s", code, stderr)
	}
	_, judged, _ := run(t, "judge", trace)
	var seqs []string
	for _, l := range strings.Split(strings.TrimSuffix(printed, "\n"), "\n") {
		var e wholeEvent
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("a line that is not JSON: %s", l)
		}
		seqs = append(seqs, seqArg(e.Seq))
	}
	if cited := "  events " + strings.Join(seqs, ", ") + "\n"; !strings.Contains(judged, cited) {
		t.Errorf("printed events %v, which no anomaly of the report cites as a whole:\n%s", seqs, judged)
	}
}

func TestSeqRanges(t *testing.T) {
	for _, c := range []struct {
		seqs []int64
		want string
	}{
		{[]int64{7}, "7"},
		{[]int64{34, 35, 36, 38}, "34-36 38"},
		{[]int64{1, 3, 4, 9, 10, 11, 12}, "1 3-4 9-12"},
		{nil, ""},
	} {
		if got := seqRanges(c.seqs); got != c.want {
			t.Errorf("seqRanges(%v) = %q, want %q", c.seqs, got, c.want)
		}
	}
}

// An open range starting past the end, or one beside a number past it, is
// past the end as a lone number is; a trace with a line taken out is
// refused, even when the events asked come before the cut (they are
// printed, then the error).
func TestEventsPastTheEndAndEditedTraces(t *testing.T) {
	dir := t.TempDir()
	trace, n := aPassingTrace(t, dir)
	for _, args := range [][]string{{seqArg(n+1) + "-"}, {seqArg(n + 3), "1-"}} {
		if code, _, stderr := run(t, append([]string{"events", trace}, args...)...); code != exitUsage || !strings.Contains(stderr, "is past its end") {
			t.Errorf("events %v: exit %d, %q; want exit 2, past its end", args, code, stderr)
		}
	}
	b, _ := os.ReadFile(trace)
	lines := strings.SplitAfter(string(b), "\n")
	cut := -1 // a line no other names: the first submit after event 2
	for i := 3; i < len(lines) && cut < 0; i++ {
		if strings.Contains(lines[i], `"kind":"submit"`) {
			cut = i
		}
	}
	if cut < 0 {
		t.Fatal("no submit to take out")
	}
	edited := filepath.Join(dir, "edited.ndjson")
	os.WriteFile(edited, []byte(strings.Join(append(lines[:cut:cut], lines[cut+1:]...), "")), 0o644)
	code, stdout, stderr := run(t, "events", edited, "2")
	// Refused where the numbering stops adding up: a delivery naming a
	// send that is no longer its number, or the end's seq.
	if code != exitUsage || !strings.Contains(stderr, edited+":") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("a line removed after the event asked: exit %d, stderr %q, %d lines", code, stderr, strings.Count(stdout, "\n"))
	}
}

// aPassingTrace writes a one-prompt run's trace in dir and returns its path
// and its number of events.
func aPassingTrace(t *testing.T, dir string) (string, int64) {
	t.Helper()
	trace := filepath.Join(dir, "ok.ndjson")
	if code, _, _ := run(t, "run", "--prompts", "1", "--trace", trace); code != exitOK {
		t.Fatalf("setup run: exit %d", code)
	}
	log, err := traces.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	return trace, int64(len(log.Events))
}

// A failing seed of acpsim check ends with the same command, for the trace
// it kept, and it prints that seed's cited events.
func TestACheckFailuresFooterPrintsItsEvents(t *testing.T) {
	out, code := checkRun(t, "--seeds", "1", "--trace-dir", ".", "--", "self", "agent", "--agent", "fresh-live-id-on-retry")
	if code != exitAnomaly {
		t.Fatalf("exit %d, want a failing seed:\n%s", code, out)
	}
	args := footerEvents(t, out)
	code, printed, stderr := run(t, append([]string{"events"}, args...)...)
	if code != exitOK || strings.Count(printed, "\n") < len(args)-1 || !strings.Contains(printed, `"seq":`) {
		t.Fatalf("events %v: exit %d, %q\n%s", args, code, stderr, printed)
	}
}

// footerEvents is the arguments of the footer's "events: acpsim events"
// line in a verdict's output.
func footerEvents(t *testing.T, out string) []string {
	t.Helper()
	_, line, ok := strings.Cut(out, "\n  events: acpsim events ")
	if !ok {
		t.Fatalf("no events line in the footer:\n%s", out)
	}
	line, _, _ = strings.Cut(line, "\n")
	return strings.Fields(line)
}
