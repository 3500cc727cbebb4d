package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// failingTrace writes the trace of the first naive seed that duplicates.
func failingTrace(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "big.ndjson")
	for seed := 1; seed <= 50; seed++ {
		code, out, _ := run(t, "run", "--policy", "naive", "--seed", strconv.Itoa(seed), "--trace", path)
		if code == exitAnomaly && strings.Contains(out, "duplicate") {
			return path
		}
	}
	t.Fatal("no naive seed of 50 duplicates")
	return ""
}

func TestShrinkGivesASmallTraceThatReplaysTheSameAnomaly(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	big := failingTrace(t, dir)
	small := filepath.Join(dir, "small.ndjson")
	code, out, errs := run(t, "shrink", big, "-o", small)
	if code != exitOK || !strings.Contains(out, "faults") || !strings.Contains(out, "prompts") || !strings.Contains(out, "replay: ") {
		t.Fatalf("shrink: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run(t, "replay", small)
	if code != exitAnomaly || !strings.Contains(out, "outcome: the same as recorded (duplicate)") || !strings.Contains(out, "events: identical to the recorded ones") {
		t.Fatalf("replay of the small trace: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "replay", big)
	if code != exitAnomaly || !strings.Contains(out, "outcome: the same as recorded") {
		t.Fatalf("replay of the big trace: exit %d\n%s", code, out)
	}
}

func TestReplayRerunsALedger(t *testing.T) {
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.ndjson")
	lines := `{"seed":3,"commit":"abc","command":"acpsim run --seed 3 --policy=naive","anomalies":["duplicate"]}
{"seed":3,"commit":"abc","command":"acpsim run --seed 3 --policy=keyed","anomalies":["duplicate"]}
`
	if err := os.WriteFile(ledger, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "replay", "--ledger", ledger)
	if code != exitAnomaly || !strings.Contains(out, "still fails") || !strings.Contains(out, "passes now") || !strings.Contains(out, "1 still fail, 1 pass now") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if err := os.WriteFile(ledger, []byte(lines+"{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "replay", "--ledger", ledger)
	if code != exitUsage || !strings.Contains(errs, "ledger.ndjson:3: not a ledger entry") {
		t.Fatalf("malformed ledger: exit %d: %s", code, errs)
	}
}

func TestReplayAndShrinkRefuseBadInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	pass := filepath.Join(dir, "pass.ndjson")
	if code, _, _ := run(t, "run", "--seed", "1", "--trace", pass); code != exitOK {
		t.Fatal("seed 1 of the keyed Client should pass")
	}
	real := filepath.Join(dir, "real.ndjson")
	head := `{"format":1,"tool":"acpsim check","source":"seed","seed":1,"policy":"keyed","agent":"x","link":"stdio","clients":1,"sessions":1,"prompts":1,"rates":{},"knobs":{},"contract":{"retention":"all","liveOnly":[]},"keyLengthUnit":"codepoints","command":"acpsim check -- x"}` + "\n"
	if err := os.WriteFile(real, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"replay"}, "nothing to replay"},
		{[]string{"replay", filepath.Join(dir, "missing.ndjson")}, "missing.ndjson"},
		{[]string{"replay", real}, "acpsim check --schedule"},
		{[]string{"shrink", pass, "-o", filepath.Join(dir, "s.ndjson")}, "shows no anomaly: nothing to shrink"},
		{[]string{"shrink", pass}, "-o is required"},
		{[]string{"shrink", pass, "-o", filepath.Join(dir, "s.ndjson"), "--kind", "dupe"}, `--kind "dupe": expected one of`},
	}
	for _, c := range cases {
		code, _, errs := run(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q: %s", c.args, code, c.want, errs)
		}
	}
}

func TestSwarmLedgerIsRerunByReplay(t *testing.T) {
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.ndjson")
	code, out, _ := run(t, "swarm", "--seeds", "20", "--policy", "naive", "--ledger", ledger)
	if code != exitAnomaly || !strings.Contains(out, "appended to "+ledger) {
		t.Fatalf("swarm: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(b), "\n")
	code, out, _ = run(t, "replay", "--ledger", ledger)
	if code != exitAnomaly || !strings.Contains(out, strconv.Itoa(n)+" still fail, 0 pass now") {
		t.Fatalf("replay --ledger with %d entries: exit %d\n%s", n, code, out)
	}
}
