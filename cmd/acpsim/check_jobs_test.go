package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces/shell"
)

// timingFigures are the parts of check's report that depend on the OS's
// timing, not on the seed: how many Agent processes a seed took and how
// many events its trace has, how long the run took, the fault tally, how
// many restarts the sessions survived, how many sessions there were (a fork
// asked for while the Client is reconnecting is not made), and which of a
// seed's first Agent processes was the first to show it broken.
var timingFigures = regexp.MustCompile(` · \d+ Agent processes: .*| in \d[^:]*:|^faults injected/asked: .*| \(\d+ restarts?\)|a1#\d+|of \d+ sessions \d+ survived`)

// exercisedFigures are the parts of check's report that say which action
// classes the wire shows done: whether a cancel met a pending prompt is the
// OS's timing too. The table's exercised column, the PASS line's note.
var exercisedFigures = regexp.MustCompile(`^(  [a-z-]+ .* \d+) +\d+( +\d+)$|; not exercised: .*`)

// verdicts is check's report without its timing figures and without the
// header line, which names the Agent's command.
// accountLine is a line of the summary's account: its counts depend on the
// OS's timing (an outcome told failed in one run is inserted in another).
var accountLine = regexp.MustCompile(`^  [a-z-]+: (judged for|not applicable)`)

func verdicts(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "checking ") || strings.HasPrefix(l, "  not exercised: ") || accountLine.MatchString(l) {
			continue
		}
		l = exercisedFigures.ReplaceAllString(l, "$1$2")
		lines = append(lines, timingFigures.ReplaceAllString(l, ""))
	}
	return lines
}

// seedsSeen runs check with an Agent wrapper that notes, each time an Agent
// process starts, how many seeds' scratch stores exist at that moment, and
// returns check's output and the largest such number.
func seedsSeen(t *testing.T, args ...string) (out string, code, most int) {
	t.Helper()
	tmp, notes := t.TempDir(), filepath.Join(t.TempDir(), "stores")
	t.Setenv("TMPDIR", tmp) // where check makes each seed's $ACPSIM_STORE
	wrapper := `ls -d "$TMPDIR"/acpsim-check-* | wc -l >> ` + shell.Quote(notes) + `; exec ` + shell.Quote(os.Args[0]) + ` agent`
	out, code = checkRun(t, append(args, "--", "sh", "-c", wrapper)...)
	b, err := os.ReadFile(notes)
	if err != nil {
		t.Fatalf("the Agent never started: %v\n%s", err, out)
	}
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		most = max(most, n)
	}
	return out, code, most
}

// --jobs runs seeds side by side, each in its own store, and the report
// (verdict lines in seed order, summary) is the same as one at a time.
func TestCheckJobsPrintTheSameVerdictsInSeedOrder(t *testing.T) {
	out1, code1, most1 := seedsSeen(t, "--seeds", "4", "--jobs", "1")
	out3, code3, most3 := seedsSeen(t, "--seeds", "4", "--jobs", "3")
	if code1 != 0 || code3 != 0 {
		t.Fatalf("exit %d with --jobs 1 and %d with --jobs 3, want 0:\n%s\n%s", code1, code3, out1, out3)
	}
	if most1 != 1 {
		t.Errorf("--jobs 1: an Agent started while %d seeds' stores existed, want one seed at a time", most1)
	}
	if most3 < 2 {
		t.Errorf("--jobs 3: no Agent ever started while another seed's store existed: the seeds did not run side by side")
	}
	if v1, v3 := verdicts(out1), verdicts(out3); !slices.Equal(v1, v3) {
		t.Fatalf("--jobs 1 and --jobs 3 report differently:\n%s\n---\n%s", out1, out3)
	}
	var seeds []string
	for _, l := range strings.Split(out3, "\n") {
		if strings.HasPrefix(l, "seed ") {
			seeds = append(seeds, strings.SplitN(l, ":", 2)[0])
		}
	}
	if want := []string{"seed 1", "seed 2", "seed 3", "seed 4"}; !slices.Equal(seeds, want) {
		t.Fatalf("--jobs 3 reported %v, want %v:\n%s", seeds, want, out3)
	}
}

// A seed with a broken Agent stops the run at that seed for any --jobs:
// the seeds before it are reported, the ones after it neither reported nor
// left behind in acpsim-failures/.
func TestCheckJobsStopAtTheFirstBrokenSeed(t *testing.T) {
	// The Agent can tell seed 3 from the others by its store's name; it
	// notes every store it is started in.
	notes := filepath.Join(t.TempDir(), "stores")
	wrapper := `echo "$ACPSIM_STORE" >> ` + shell.Quote(notes) + `; case "$ACPSIM_STORE" in */acpsim-check-3-*) exit 7;; esac; exec ` + shell.Quote(os.Args[0]) + ` agent`
	seedOfStore := regexp.MustCompile(`acpsim-check-(\d+)-`)
	var outs [][]string
	for _, jobs := range []string{"1", "3"} {
		os.Remove(notes)
		out, code := checkRun(t, "--seeds", "6", "--jobs", jobs, "--", "sh", "-c", wrapper)
		b, _ := os.ReadFile(notes)
		for _, m := range seedOfStore.FindAllStringSubmatch(string(b), -1) {
			// With --jobs 3, seeds 1 and 2 are still running when seed 3
			// breaks: its worker must not start seed 4.
			if n, _ := strconv.Atoi(m[1]); n > 3 {
				t.Errorf("--jobs %s: an Agent was started for seed %d, after the broken seed 3", jobs, n)
			}
		}
		if code != 1 || !strings.Contains(out, "seed 3: BROKEN AGENT: the Agent exited before it answered initialize (exit status 7)") ||
			!strings.Contains(out, "stopped after seed 3") || !strings.Contains(out, "3 seed(s)") || strings.Contains(out, "seed 4:") {
			t.Fatalf("--jobs %s: exit %d, want 1, seeds 1-3 reported and seed 3 broken:\n%s", jobs, code, out)
		}
		failures, _ := filepath.Glob("acpsim-failures/*")
		if len(failures) != 1 || !failureFile.MatchString(failures[0]) || !strings.HasSuffix(failures[0], "-seed-3.ndjson") {
			t.Errorf("--jobs %s: acpsim-failures holds %v, want only check-RUNID-seed-3.ndjson", jobs, failures)
		}
		outs = append(outs, verdicts(out))
	}
	if !slices.Equal(outs[0], outs[1]) {
		t.Fatalf("--jobs 1 and --jobs 3 report differently:\n%s\n---\n%s", strings.Join(outs[0], "\n"), strings.Join(outs[1], "\n"))
	}
}

func TestCheckJobsBadUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--jobs", "-1", "--", "true"}, "--jobs -1: expected 0 (one per core) or more"},
		{[]string{"--jobs", "2", "--url", "http://127.0.0.1:1/acp", "--restart", "true"}, "--jobs 2 with --restart"},
	} {
		out, code := checkRun(t, c.args...)
		if code != 2 || !strings.Contains(out, c.want) || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Errorf("check %v: exit %d, want 2 and one line with %q:\n%s", c.args, code, c.want, out)
		}
	}
}
