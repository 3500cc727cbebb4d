package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// acpsimOnPath puts this test binary on PATH as acpsim, so that --via
// 'acpsim proxy …' starts it (acting as acpsim, TestMain) whatever acpsim
// may be installed, as a user's PATH would.
func acpsimOnPath(t *testing.T) {
	t.Helper()
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "acpsim")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// The honest model proxy, a real process in front of the reference Agent,
// keeps it honest.
func TestCheckThroughAcpsimProxyPasses(t *testing.T) {
	acpsimOnPath(t)
	out, code := checkRun(t, "--seeds", "3", "--via", "acpsim proxy", "--", "acpsim", "agent")
	if code != 0 || !strings.Contains(out, "PASS") || !strings.Contains(out, "via acpsim proxy") {
		t.Fatalf("exit %d, want 0 and PASS through acpsim proxy:\n%s", code, out)
	}
}

// A proxy that drops idempotencyKey makes the Client's retries second
// insertions.
func TestCheckThroughAStripKeyProxyFindsDuplicates(t *testing.T) {
	acpsimOnPath(t)
	out, code := checkRun(t, "--seeds", "5", "--via", "acpsim proxy --mode strip-key", "--", "acpsim", "agent")
	if code != 1 || !regexp.MustCompile(`\n  duplicate +\d+ seed\(s\)`).MatchString(out) {
		t.Fatalf("exit %d, want 1 with seeds failed by duplicates:\n%s", code, out)
	}
	if !strings.Contains(out, "--via='acpsim proxy --mode strip-key'") {
		t.Fatalf("the rerun command must name the proxy:\n%s", out)
	}
}

// A proxy that retries on its own with a fresh key inserts the message
// again behind the Client's back: the final transcript holds it twice,
// though the Client sent it once per key.
func TestCheckThroughAFreshKeyRetryProxyFails(t *testing.T) {
	acpsimOnPath(t)
	out, code := checkRun(t, "--seeds", "3", "--via", "acpsim proxy --mode fresh-key-retry", "--", "acpsim", "agent")
	if code != 1 || !strings.Contains(out, "0 passed, 3 failed") {
		t.Fatalf("exit %d, want 1 with every seed failed:\n%s", code, out)
	}
	if !strings.Contains(out, "inserted twice") && !strings.Contains(out, "inserting twice") {
		t.Fatalf("the report must show a message inserted a second time:\n%s", out)
	}
}

func TestProxyBadUsageIsExit2(t *testing.T) {
	t.Setenv(agentEnv, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"proxy", "--mode", "drop-all", "--", "cat"}, "expected one of honest, strip-key, fresh-key-retry, wrong-response"},
		{[]string{"proxy"}, "no Agent command"},
		{[]string{"proxy", "--retry-after", "0s", "--", "cat"}, "expected a positive duration"},
		{[]string{"proxy", "cat"}, "put the Agent's command after --"},
	} {
		out, code := acpsimRun(t, c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("acpsim %q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, out)
		}
	}
}

// The mode's env twin works as for every other flag.
func TestProxyModeTwinIsChecked(t *testing.T) {
	t.Setenv("ACPSIM_MODE", "nope")
	out, code := acpsimRun(t, "proxy", "--", "cat")
	if code != 2 || !strings.Contains(out, `proxy mode "nope"`) {
		t.Fatalf("ACPSIM_MODE=nope: exit %d, want 2:\n%s", code, out)
	}
}
