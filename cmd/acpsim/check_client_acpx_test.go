package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// requireAcpx fails the test without node or interop's acpx.
func requireAcpx(t *testing.T) {
	t.Helper()
	requireNode(t)
	requireInteropPackage(t, "acpx")
}

var (
	errorAnswers = regexp.MustCompile(`error answers: (\d+) of (\d+) prompt attempts`)
	outcomesTold = regexp.MustCompile(`outcomes told: (\d+) inserted, (\d+) failed, (\d+) unknown`)
)

// acpx (npm acpx 0.19.1), a published headless Client, run as a script
// runs it: one `acpx exec` per submission. It speaks ACP v1 and is judged
// under v1. It retries a turn the Agent answered with an error
// (--prompt-retries), which the Agent did not insert, and never a turn its
// Agent died in (the script then tells unknown): it passes. A script that
// runs acpx again after its Agent died inserts a message twice, and acpsim
// reports the duplicate with its cause: a resend without a key.
func TestCheckClientJudgesAcpx(t *testing.T) {
	requireAcpx(t)
	out, code := checkClientRun(t, "acpx-client-adapter.mjs --prompt-retries 2", "--seeds", "3", "--prompt-errors", "0.4", "--start-timeout", "30s")
	if code != exitOK || !strings.Contains(out, "protocol: the Client speaks ACP v1") || !strings.Contains(out, "judged: outcomes") ||
		!strings.Contains(out, "conform to the ACP v1 schema") || !strings.Contains(out, "PASS: 3 seeds") {
		t.Fatalf("exit %d, want a PASS judged under v1:\n%s", code, out)
	}
	// An unknown is never false: the PASS means something only if acpx's
	// answers were read and told.
	told := outcomesTold.FindStringSubmatch(out)
	if told == nil {
		t.Fatalf("no count of the outcomes told in the report:\n%s", out)
	}
	if inserted, _ := strconv.Atoi(told[1]); inserted == 0 {
		t.Fatalf("no outcome told inserted: the adapter read none of acpx's answers\n%s", out)
	}
	m := errorAnswers.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no count of error answers in the report:\n%s", out)
	}
	if refused, _ := strconv.Atoi(m[1]); refused == 0 {
		t.Fatalf("no prompt was answered with an error: acpx's retry of one was not tried\n%s", out)
	}
	out, code = checkClientRun(t, "acpx-client-adapter.mjs --resend", "--seeds", "4", "--first-seed", "4", "--fault-rates", "kill=0.5", "--start-timeout", "30s")
	if code != exitAnomaly || !strings.Contains(out, "FAIL duplicate") {
		t.Fatalf("--resend: exit %d, want 1 with a duplicate:\n%s", code, out)
	}
	// The first failing seed is told in full: each duplicate there cites
	// its cause, the resend without a key.
	for _, detail := range strings.Split(out, "\n  duplicate")[1:] {
		if _, rule, _ := strings.Cut(detail, "RFD: "); !strings.HasPrefix(rule, "The Client retries, and the first message was inserted") {
			t.Fatalf("--resend: a duplicate cites %.80q, want the keyless resend:\n%s", rule, out)
		}
	}
}

// The acpx adapter tells what acpx got: run by hand on one submission, it
// tells inserted with the turn's stop reason, and failed with the code when
// the Agent refuses every prompt. A text that starts with "-" reaches the
// Agent as text, not as a flag of acpx.
func TestAcpxAdapterTellsWhatAcpxGot(t *testing.T) {
	requireAcpx(t)
	self := acpsim(t)
	for _, c := range []struct{ agentFlags, want string }{
		{"", `{"id":"s1","outcome":"inserted","stopReason":"end_turn"}`},
		{" --prompt-errors 1", `{"id":"s1","outcome":"failed","error":"`},
	} {
		dir := t.TempDir()
		cmd := exec.Command("node", filepath.Join(interopDir, "acpx-client-adapter.mjs"))
		// As check-client gives it: acpsim agent would read $ACPSIM_AGENT as its --agent.
		cmd.Env = append(os.Environ(), "ACPSIM_AGENT=env -u ACPSIM_AGENT "+self+" agent --protocol negotiate --db "+filepath.Join(dir, "agent.db")+c.agentFlags,
			"ACPSIM_STATE_DIR="+dir, "ACPSIM_CWD="+dir)
		cmd.Stdin = strings.NewReader(`{"submit":"-v hello","id":"s1"}` + "\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || !strings.HasPrefix(string(out), c.want) {
			t.Fatalf("agent%s: adapter said %q (%v), want a line starting %s\nstderr: %s", c.agentFlags, out, err, c.want, stderr.String())
		}
	}
}
