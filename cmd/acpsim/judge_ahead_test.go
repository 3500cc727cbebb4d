package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/acpsim/acpsim/properties"
)

// judge decodes the trace on a goroutine a few batches ahead of the
// checker: a bad line deep in a trace, past several batches, is still
// reported with its own line number, and the decoding goroutine ends with
// the judgement either way.
func TestJudgeReadsAheadAndStopsAtTheBadLine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	path := filepath.Join(dir, "long.ndjson")
	run(t, "run", "--seed", "5", "--prompts", "40", "--trace", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) < 4*256 {
		t.Fatalf("the trace has %d lines, want more than four batches of 256", len(lines))
	}
	_, rep, events, err := judgeFile(path, "", nil)
	if err != nil || rep == nil || events != int64(len(lines)-1) {
		t.Fatalf("judging the whole trace: %d events (want %d), error %v", events, len(lines)-1, err)
	}
	var bar bytes.Buffer
	_, withBar, _, err := judgeFile(path, "", &bar)
	if err != nil || describeReport(withBar) != describeReport(rep) {
		t.Fatalf("judging with a progress bar: error %v, or another report", err)
	}
	if !strings.Contains(bar.String(), "judging") {
		t.Fatalf("the progress bar drew nothing: %q", bar.String())
	}
	bad := 3*256 + 17 // 1-based line number, inside the fourth batch
	lines[bad-1] = []byte(`{"t":1,"seq":`)
	broken := filepath.Join(dir, "broken.ndjson")
	if err := os.WriteFile(broken, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rep, _, err = judgeFile(broken, "", nil)
	if want := fmt.Sprintf("%s:%d:", broken, bad); err == nil || rep != nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("judging a trace with line %d cut short: report %v, error %v, want an error naming %s", bad, rep != nil, err, want)
	}
}

func describeReport(r *properties.Report) string {
	var b bytes.Buffer
	r.WriteText(&b)
	return b.String()
}

// A trace whose first MiB is blank lines and whose rest is a hole (a file
// truncated to a length it never had) fails at its second line, as it
// did before judge sized its checker from the file: the size is no reason
// to reserve tables for events no line holds. (Sized from the raw line
// count, the first MiB of a 2 GiB file reserved tables for a billion
// events and ran out of memory.)
func TestJudgeOfAHollowTraceFailsAtItsSecondLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hollow.ndjson")
	good := filepath.Join(dir, "good.ndjson")
	run(t, "run", "--trace", good)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := bytes.Cut(data, []byte("\n"))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(header)
	f.Write(bytes.Repeat([]byte("\n"), 1<<20))
	if err := f.Truncate(256 << 20); err != nil { // a hole: no disk, no writes
		t.Fatal(err)
	}
	f.Close()
	_, _, _, err = judgeFile(path, "", nil)
	if want := path + ":2: empty line, expected an event"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("judging a header, blank lines and a hole: %v, expected %q…", err, want)
	}
}
