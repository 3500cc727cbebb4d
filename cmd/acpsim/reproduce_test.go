package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// runPrinted runs a command acpsim printed for a human, as printed, in a
// directory outside the checkout, with this test binary standing in for
// acpsim on PATH; it returns the exit code and output.
func runPrinted(t *testing.T, printed string) (int, string) {
	t.Helper()
	words, err := shell.Split(printed)
	if err != nil || len(words) == 0 || words[0] != "acpsim" {
		t.Fatalf("printed command %q: want one that begins acpsim (%v)", printed, err)
	}
	c := exec.Command(os.Args[0], words[1:]...)
	c.Dir = t.TempDir()
	c.Env = append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1")
	out, err := c.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

var rerunLine = regexp.MustCompile(`(?m)^  rerun: (.*)$`)

// A shrunk trace is reproduced by replaying it: its header's run --skip
// command draws other faults. judge and view print the replay, and it fails
// again when run as printed outside the checkout; no recorded command
// begins "go run ./cmd/acpsim", which works only inside it.
func TestJudgeAndViewOfAShrunkTracePrintAReplayThatReproduces(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	big := failingTrace(t, dir)
	small := filepath.Join(dir, "small.ndjson")
	if code, out, errs := run(t, "shrink", big, "-o", small); code != exitOK || !strings.Contains(out, "replay: acpsim replay "+small) {
		t.Fatalf("shrink: exit %d, want 0 and the replay line:\n%s%s", code, out, errs)
	}
	for _, path := range []string{big, small} {
		log, err := traces.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(log.Header.Command, "acpsim run ") {
			t.Errorf("%s: recorded command %q, want one that begins acpsim run", path, log.Header.Command)
		}
	}
	code, out, _ := run(t, "judge", small)
	m := rerunLine.FindStringSubmatch(out)
	if code != exitAnomaly || m == nil || m[1] != "acpsim replay "+small {
		t.Fatalf("judge of the shrunk trace: exit %d, want 1 and rerun: acpsim replay %s:\n%s", code, small, out)
	}
	if code, out := runPrinted(t, m[1]); code != exitAnomaly || !strings.Contains(out, "outcome: the same as recorded (duplicate)") {
		t.Errorf("%s run as printed: exit %d, want 1 and the same duplicate:\n%s", m[1], code, out)
	}
	code, out, _ = run(t, "view", small, "-o", "-")
	if code != exitOK || !strings.Contains(out, `acpsim replay `+small) {
		t.Errorf("view of the shrunk trace: exit %d, want 0 and the replay command in the page", code)
	}
	code, out, _ = run(t, "judge", big)
	m = rerunLine.FindStringSubmatch(out)
	if code != exitAnomaly || m == nil || !strings.HasPrefix(m[1], "acpsim run ") {
		t.Fatalf("judge of the seed's trace: exit %d, want 1 and its acpsim run command:\n%s", code, out)
	}
	if code, out := runPrinted(t, m[1]); code != exitAnomaly || !strings.Contains(out, "duplicate") {
		t.Errorf("%s run as printed: exit %d, want 1 and the duplicate:\n%s", m[1], code, out)
	}
}
