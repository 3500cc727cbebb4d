package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 27: a verdict is an account. An Agent that keeps its sessions in
// memory over stdio (legal: ACP v2 notes, T3b) is judged for loss on the
// live connections of its processes, before they end; one whose history
// can never be read gets no PASS; a session its living process forgets is
// a finding under any contract. The Agent is the SDK keyed Agent of
// interop/ with no store ($ACPSIM_STORE emptied), and with --bug for the
// known-bad variants.

// checkInMemory runs acpsim check against interop/keyed-agent.mjs keeping
// its sessions in memory, with extra Agent arguments.
func checkInMemory(t *testing.T, seeds int, checkArgs []string, agentArgs ...string) (string, int) {
	t.Helper()
	requireNode(t)
	bin := acpsim(t)
	// A Node Agent answers initialize in about a second alone, in more than
	// the default 5 s beside the other tests' processes on two cores.
	args := append([]string{"check", "--seeds", strconv.Itoa(seeds), "--start-timeout", "30s"}, checkArgs...)
	args = append(append(args, "--", "env", "ACPSIM_STORE=", "node", filepath.Join(interopDir, "keyed-agent.mjs")), agentArgs...)
	return execIn(t, t.TempDir(), bin, args...)
}

// execIn runs bin with args in dir (a failing seed's trace goes to
// dir/acpsim-failures) and gives its output and exit code.
func execIn(t *testing.T, dir, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// judgedFor reads "PROPERTY: judged for N of M submissions" from check's
// summary.
func judgedFor(t *testing.T, out, property string) (n, of int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^  ` + property + `: judged for (\d+) of (\d+) submission`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q account line in check's summary:\n%s", property, out)
	}
	n, _ = strconv.Atoi(m[1])
	of, _ = strconv.Atoi(m[2])
	return n, of
}

func TestCheckJudgesLossOfAnInMemoryStdioAgent(t *testing.T) {
	// No cancels: what this test is about is loss, judged on the live
	// connections of processes that kills and restarts come and go under.
	out, code := checkInMemory(t, 4, []string{"--actions=off"})
	if code != 0 {
		t.Fatalf("a correct Agent keeping sessions in memory: exit %d, want 0:\n%s", code, out)
	}
	n, of := judgedFor(t, out, "lost")
	if n == 0 || of == 0 {
		t.Fatalf("lost judged for %d of %d submissions: the observer must read the sessions on the live connections:\n%s", n, of, out)
	}
	if !strings.Contains(out, "sessions process") {
		t.Errorf("the seeds should be judged by the process contract:\n%s", out)
	}
	if !strings.Contains(out, "\nPASS") {
		t.Errorf("no PASS line:\n%s", out)
	}
}

func TestCheckGivesNoPassToAnAgentWhoseResumeReplaysNothing(t *testing.T) {
	out, code := checkInMemory(t, 3, nil, "--bug", "replay-nothing")
	if code == 0 {
		t.Fatalf("an Agent whose session/resume never replays passed (exit 0):\n%s", out)
	}
	if code != 1 && code != 3 {
		t.Fatalf("exit %d, want 1 (lost) or 3 (inconclusive):\n%s", code, out)
	}
	if strings.Contains(out, "\nPASS") {
		t.Errorf("a PASS line for a run whose history could not be read:\n%s", out)
	}
	if code == 1 && !strings.Contains(out, "replayed no user message at all") {
		t.Errorf("the lost verdict should say the replay was empty in plain words:\n%s", out)
	}
}

func TestCheckFindsASessionForgottenByItsLivingProcess(t *testing.T) {
	out, code := checkInMemory(t, 3, nil, "--bug", "close-deletes")
	if code != 1 || !strings.Contains(out, "session-lost") {
		t.Fatalf("session/close forgetting the session: exit %d, want 1 with session-lost:\n%s", code, out)
	}
	if !strings.Contains(out, "vanished while its Agent process lived") {
		t.Errorf("the finding should say the process still lived:\n%s", out)
	}
	if !strings.Contains(out, "vanished while the process that had it lived, which no contract explains") {
		t.Errorf("the contract line should not put these sessions down to restarts:\n%s", out)
	}
}
