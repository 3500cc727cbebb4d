package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/traces"
)

// failureFile is how check, run and explore name a failing seed's trace.
var failureFile = regexp.MustCompile(`^acpsim-failures/[a-z-]+-\d{8}T\d{6}-.*seed-\d+(-\d+)?\.ndjson$`)

// closedPort is an address nothing listens on: a port just freed.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// An Agent nothing listens for is a broken Agent within --start-timeout
// (5 s by default), not a verdict after --cap, and never a pass: over
// Streamable HTTP (whose dial sends nothing) and WebSocket alike. The
// verdict names the URL the user gave.
func TestCheckAnAgentNothingListensForIsBrokenWithinStartTimeout(t *testing.T) {
	for _, scheme := range []string{"http", "ws"} {
		t.Run(scheme, func(t *testing.T) {
			t.Setenv("ACPSIM_START_TIMEOUT", "5s") // the default, which checkRun raises
			u := scheme + "://" + closedPort(t) + "/acp"
			start := time.Now()
			out, code := checkRun(t, "--url", u, "--seeds", "3")
			took := time.Since(start)
			if code != exitAnomaly || !strings.Contains(out, "seed 1: BROKEN AGENT: cannot connect to the Agent at "+u+" for 5s") ||
				!strings.Contains(out, "stopped after seed 1") || strings.Contains(out, "PASS") {
				t.Fatalf("exit %d, want 1 and a broken Agent at %s:\n%s", code, u, out)
			}
			if scheme == "http" && strings.Contains(out, "ws://") {
				t.Errorf("the verdict names a URL the user did not give:\n%s", out)
			}
			if took > 10*time.Second { // 5 s measured; the issue asks under 10
				t.Errorf("the verdict took %v, want within --start-timeout 5s and well under 10s", took)
			}
		})
	}
}

// --start-timeout bounds the wait: a second of it gives the verdict in
// about a second.
func TestCheckStartTimeoutBoundsTheWaitForAnUnreachableAgent(t *testing.T) {
	start := time.Now()
	out, code := checkRun(t, "--url", "http://"+closedPort(t)+"/acp", "--seeds", "1", "--start-timeout", "1s")
	if took := time.Since(start); code != exitAnomaly || took > 4*time.Second {
		t.Fatalf("exit %d after %v, want 1 within about 1s:\n%s", code, took, out)
	}
}

// conform against a closed port says so in seconds (exit 1), rather than
// timing out case after case.
func TestConformAnAgentNothingListensForIsBrokenInSeconds(t *testing.T) {
	u := "http://" + closedPort(t) + "/acp"
	start := time.Now()
	out, code := conformProcess(t, "--url", u)
	if took := time.Since(start); code != exitAnomaly || !strings.Contains(out, "BROKEN AGENT: cannot connect to the Agent at "+u) || took > 10*time.Second {
		t.Fatalf("exit %d after %v, want 1 within 10s naming %s:\n%s", code, took, u, out)
	}
}

// thirtyLines is an Agent that writes 30 lines on stderr and exits 1.
const thirtyLines = `i=1; while [ $i -le 30 ]; do echo "line $i" >&2; i=$((i+1)); done; exit 1`

// A crashed Agent's verdict shows the end of its stderr, 20 lines, and its
// trace keeps all 30; judge, lint and view read that trace.
func TestCheckShowsTheEndOfACrashedAgentsStderrAndKeepsItAll(t *testing.T) {
	out, code := checkRun(t, "--seeds", "1", "--", "sh", "-c", thirtyLines)
	if code != exitAnomaly || !strings.Contains(out, "BROKEN AGENT: the Agent exited before it answered initialize (exit status 1: line 30)") {
		t.Fatalf("exit %d, want 1 and a broken Agent:\n%s", code, out)
	}
	if !strings.Contains(out, "its stderr, the end (20 of 30 lines; the trace's kill event holds all of it):") {
		t.Errorf("no stderr excerpt heading:\n%s", out)
	}
	for i := 1; i <= 30; i++ {
		shown := strings.Contains(out, fmt.Sprintf("\n    line %d\n", i))
		if shown != (i > 10) {
			t.Errorf("line %d shown %v, want the last 20 lines shown:\n%s", i, shown, out)
		}
	}
	paths, _ := filepath.Glob("acpsim-failures/*.ndjson")
	if len(paths) != 1 {
		t.Fatalf("acpsim-failures holds %v, want one trace", paths)
	}
	log, err := traces.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var whole string
	for _, e := range log.Events {
		if e.Kind == traces.KindKill && e.Text != "" {
			whole = e.Text
		}
	}
	var want []string
	for i := 1; i <= 30; i++ {
		want = append(want, fmt.Sprintf("line %d", i))
	}
	if whole != strings.Join(want, "\n") {
		t.Errorf("the trace's kill event holds %q, want the 30 lines", whole)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"judge", paths[0]}, exitInconclusive}, // nothing was submitted
		{[]string{"lint", paths[0]}, exitOK},
		{[]string{"view", paths[0], "-o", filepath.Join(t.TempDir(), "v.html")}, exitOK},
	} {
		if code, stdout, stderr := run(t, c.args...); code != c.want {
			t.Errorf("acpsim %s: exit %d, want %d:\n%s%s", strings.Join(c.args, " "), code, c.want, stdout, stderr)
		}
	}
}

// A Node Agent missing a package: the verdict names the error, not
// "Node.js v20…", the last line Node writes.
func TestCheckNamesTheErrorOfANodeAgentMissingAModule(t *testing.T) {
	requireNode(t)
	out, code := checkRun(t, "--seeds", "1", "--", "node", "-e", `require("acpsim-no-such-module")`)
	if code != exitAnomaly || !strings.Contains(out, "BROKEN AGENT: the Agent exited before it answered initialize (exit status 1: Error: Cannot find module 'acpsim-no-such-module')") {
		t.Fatalf("exit %d, want 1 naming the missing module on the seed's line:\n%s", code, out)
	}
	if !regexp.MustCompile(`(?s)its stderr.*\n    Error: Cannot find module 'acpsim-no-such-module'\n.*\n    Node\.js v\d+`).MatchString(out) {
		t.Errorf("the stderr excerpt lacks the error line or Node's last line:\n%s", out)
	}
}

// Failing traces are named by the run and never overwrite a file: two runs
// of a failing seed keep two traces, and re-driving one with --schedule
// leaves it byte for byte as it was.
func TestCheckNeverOverwritesATrace(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("ACPSIM_TEST_AS_MAIN", "1")
	check := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		args = append(append([]string{"check", "--seeds", "1"}, args...), "--", "sh", "-c", thirtyLines)
		if code := execute(args, &stdout, &stderr); code != exitAnomaly {
			t.Fatalf("exit %d, want 1:\n%s%s", code, stdout.String(), stderr.String())
		}
		m := regexp.MustCompile(`traces of the failing seeds: (\S+)`).FindStringSubmatch(stdout.String())
		if m == nil {
			t.Fatalf("no line saying where the trace went:\n%s", stdout.String())
		}
		if !failureFile.MatchString(m[1]) {
			t.Errorf("trace %s: want acpsim-failures/check-RUNID-seed-N.ndjson", m[1])
		}
		return m[1]
	}
	first := check()
	before, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	second := check()
	redriven := check("--schedule", first)
	if first == second || first == redriven || second == redriven {
		t.Fatalf("traces %s, %s, %s: want three files", first, second, redriven)
	}
	if after, _ := os.ReadFile(first); !bytes.Equal(before, after) {
		t.Errorf("%s changed after later runs and a --schedule of it", first)
	}
	if paths, _ := filepath.Glob("acpsim-failures/*"); len(paths) != 3 {
		t.Errorf("acpsim-failures holds %v, want 3 traces", paths)
	}
}

// createNew never opens a file that exists: a taken name gets -2, -3, ….
func TestCreateNewKeepsEveryExistingFile(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := range 3 {
		f, err := createNew(dir, "check-seed-1")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "run %d", i)
		f.Close()
		names = append(names, filepath.Base(f.Name()))
	}
	if want := []string{"check-seed-1.ndjson", "check-seed-1-2.ndjson", "check-seed-1-3.ndjson"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("names %v, want %v", names, want)
	}
	for i, n := range names {
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != fmt.Sprintf("run %d", i) {
			t.Errorf("%s holds %q, want run %d's", n, b, i)
		}
	}
}

// conform with no case that applies judged nothing: inconclusive (exit 3),
// not a pass.
func TestConformWithNoCaseThatAppliesIsInconclusive(t *testing.T) {
	out, code := conformProcess(t, "--run", "^(rfd-4|cancel-2)$", "--", "self", "agent", "--busy", "reject")
	if code != exitInconclusive || !strings.Contains(out, "0 passed, 0 failed, 2 n/a") ||
		!strings.Contains(out, "INCONCLUSIVE: no case applies to this Agent, so nothing was judged") || strings.Contains(out, "PASS:") {
		t.Fatalf("exit %d, want 3 and no pass:\n%s", code, out)
	}
}
