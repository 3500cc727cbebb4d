package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// rewriteIn writes the trace at src again, in format, to dst.
func rewriteIn(t *testing.T, src, dst string, format int) {
	t.Helper()
	log, err := traces.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	log.Header.Format = format
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeTrace(f, log); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dst)
	if want := fmt.Sprintf(`{"format":%d,`, format); !strings.HasPrefix(string(b), want) {
		t.Fatalf("%s does not start %s", dst, want)
	}
}

// commandOn runs acpsim args… on the trace at path (its last argument) and
// returns the exit code and output, the path written as TRACE.
func commandOn(t *testing.T, path string, args ...string) string {
	t.Helper()
	code, out, errOut := run(t, append(args, path)...)
	return strings.ReplaceAll(fmt.Sprintf("exit %d\n%s%s", code, out, errOut), path, "TRACE")
}

// acpsim judge of a run's trace in format 1 and of the same run in format 2
// prints the same verdict, the same report byte for byte: runs that pass
// and fail, on every link, the Agent variants, a mutant, and the format-1
// traces kept under testdata (written again in format 2 beside them).
func TestJudgeReportsTheSameInBothFormats(t *testing.T) {
	dir := t.TempDir()
	var v2 []string // format-2 traces
	for i, args := range [][]string{
		{"--seed", "3", "--policy", "naive"},
		{"--seed", "4", "--link", "http", "--policy", "keyed", "--cancels", "2", "--closes", "1", "--forks", "1", "--fault-rates", "cut=0.03,kill=0.03,reject=0.1,delay=0.1,client-restart=0.01"},
		{"--seed", "2", "--link", "ws", "--nodes", "3", "--keys", "memory"},
		{"--seed", "1", "--link", "mixed", "--clients", "3", "--proxies", "2"},
		{"--seed", "5", "--agent", "ignore-key"},
		{"--seed", "1", "--timeout", "1ns", "--prompts", "3"},
	} {
		path := filepath.Join(dir, fmt.Sprintf("run%d.ndjson", i))
		if code, out, errOut := run(t, append([]string{"run", "--trace", path}, args...)...); code == exitUsage {
			t.Fatalf("run %v: exit %d\n%s%s", args, code, out, errOut)
		}
		v2 = append(v2, path)
	}
	for _, fixture := range []string{
		"testdata/keys/one-char-keys.ndjson",
		"testdata/keys/one-char-key-leaks.ndjson",
		v1Fixture,
		"../../traces/view/testdata/check-keys-memory-failure.ndjson",
	} {
		path := filepath.Join(dir, filepath.Base(fixture))
		rewriteIn(t, fixture, path, traces.FormatVersion)
		v2 = append(v2, path)
	}
	failed := 0
	for _, path := range v2 {
		v1 := strings.TrimSuffix(path, ".ndjson") + ".v1.ndjson"
		rewriteIn(t, path, v1, traces.FormatV1)
		got, want := commandOn(t, path, "judge"), commandOn(t, v1, "judge")
		if got != want {
			t.Errorf("%s: judge in format 2:\n%s\nin format 1:\n%s", filepath.Base(path), got, want)
		}
		if !strings.HasPrefix(want, "exit 0") {
			failed++
		}
	}
	if failed == 0 || failed == len(v2) {
		t.Errorf("%d of %d traces fail: want some of each", failed, len(v2))
	}
}

// lint and view read a format-2 trace as its format-1 twin.
func TestLintAndViewReadBothFormats(t *testing.T) {
	dir := t.TempDir()
	for _, fixture := range []string{v1Fixture, "../../traces/view/testdata/check-keys-memory-failure.ndjson"} {
		v2 := filepath.Join(dir, "2", filepath.Base(fixture)) // the same name: the page shows it
		os.MkdirAll(filepath.Dir(v2), 0o755)
		rewriteIn(t, fixture, v2, traces.FormatVersion)
		if got, want := commandOn(t, v2, "lint"), commandOn(t, fixture, "lint"); got != want {
			t.Errorf("%s: lint in format 2:\n%s\nin format 1:\n%s", fixture, got, want)
		}
		pages := map[string]string{}
		for _, p := range []string{fixture, v2} {
			html := filepath.Join(dir, "page.html")
			if out := commandOn(t, p, "view", "-o", html); !strings.HasPrefix(out, "exit 0") {
				t.Fatalf("view %s: %s", p, out)
			}
			b, _ := os.ReadFile(html)
			pages[p] = string(b)
		}
		if pages[fixture] != pages[v2] {
			t.Errorf("%s: the view of format 2 differs from format 1's", fixture)
		}
	}
}

// replay and shrink take a failing run's trace in format 1 as in format 2:
// the same outcome, events identical to the recorded ones.
func TestReplayAndShrinkReadFormat1(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	big := failingTrace(t, dir)
	v1 := filepath.Join(dir, "big.v1.ndjson")
	rewriteIn(t, big, v1, traces.FormatV1)
	for _, p := range []string{big, v1} {
		code, out, _ := run(t, "replay", p)
		if code != exitAnomaly || !strings.Contains(out, "outcome: the same as recorded (duplicate)") || !strings.Contains(out, "events: identical to the recorded ones") {
			t.Fatalf("replay %s: exit %d\n%s", p, code, out)
		}
	}
	small := filepath.Join(dir, "small.ndjson")
	if code, out, errs := run(t, "shrink", v1, "-o", small); code != exitOK || !strings.Contains(out, "replay: ") {
		t.Fatalf("shrink of a format-1 trace: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := run(t, "replay", small); code != exitAnomaly || !strings.Contains(out, "events: identical to the recorded ones") {
		t.Fatalf("replay of its shrunk trace: exit %d\n%s", code, out)
	}
}
