package main

// The Client adapter template, interop/template-client-adapter.py, is what
// docs/client-adapter.md tells a user to copy; these tests keep the promise
// that it passes `acpsim check-client` as shipped: the command the doc shows,
// and a run with faults turned up so that its recovery (a restart with
// pending input, a new Agent process after a kill) is surely exercised. It
// needs python3 on PATH (CI has it): without it the test fails, it never
// skips.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// seedLine is check-client's line for one seed, with its faults.
var seedLine = regexp.MustCompile(`(?m)^seed (\d+)\s+(\S+) · .*faults: (\d+) kills, (\d+) cuts, (\d+) client restarts$`)

// checkTemplateClient runs check-client on the template with args and wants
// exit 0 and every one of its seeds passed; it returns the output and the
// faults the seeds saw.
func checkTemplateClient(t *testing.T, seeds int, args ...string) (out string, kills, cuts, restarts int) {
	t.Helper()
	requirePython(t)
	bin := acpsim(t)
	// --start-timeout as the Agent template's test: python3 can take a second
	// to start beside a CI run on two cores.
	args = append(append([]string{"check-client", "--seeds", strconv.Itoa(seeds), "--start-timeout", "30s"}, args...),
		"--", "python3", filepath.Join(interopDir, "template-client-adapter.py"))
	out, code := execIn(t, t.TempDir(), bin, args...)
	if code != 0 {
		t.Fatalf("acpsim %v: exit %d, want 0:\n%s", args, code, out)
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^PASS: %d seeds; `, seeds)).MatchString(out) {
		t.Fatalf("want PASS: %d seeds:\n%s", seeds, out)
	}
	lines := seedLine.FindAllStringSubmatch(out, -1)
	if len(lines) != seeds {
		t.Fatalf("%d seed lines, want %d:\n%s", len(lines), seeds, out)
	}
	for _, m := range lines {
		if m[2] != "PASS" {
			t.Errorf("seed %s: %s, want PASS", m[1], m[2])
		}
		k, _ := strconv.Atoi(m[3])
		c, _ := strconv.Atoi(m[4])
		r, _ := strconv.Atoi(m[5])
		kills, cuts, restarts = kills+k, cuts+c, restarts+r
	}
	if t.Failed() {
		t.Fatalf("output:\n%s", out)
	}
	return out, kills, cuts, restarts
}

// The command docs/client-adapter.md shows, as CI runs it.
func TestTemplateClientAdapterPassesCheckClient(t *testing.T) {
	checkTemplateClient(t, 10)
}

// With kills and restarts turned up, the template recovers its pending
// input from $ACPSIM_STATE_DIR and resends it with the same key on a
// resumed session: still every seed passes, and the faults did happen.
func TestTemplateClientAdapterRecoversFromRestarts(t *testing.T) {
	out, kills, _, restarts := checkTemplateClient(t, 6, "--first-seed", "2", "--fault-rates", "kill=0.4,client-restart=0.6")
	if kills == 0 || restarts == 0 {
		t.Fatalf("%d kills and %d client restarts in 6 seeds: the recovery was not exercised:\n%s", kills, restarts, out)
	}
}
