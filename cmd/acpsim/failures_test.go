package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A failing run twice in one directory keeps both traces, each named by
// its run and printed, each a trace replay reads.
func TestRunFailuresNeverOverwriteEachOther(t *testing.T) {
	t.Chdir(t.TempDir())
	var paths []string
	for range 2 {
		code, out, _ := run(t, "run", "--policy", "naive", "--seed", "1")
		m := regexp.MustCompile(`trace: (\S+)`).FindStringSubmatch(out)
		if code != exitAnomaly || m == nil || !failureFile.MatchString(m[1]) || !strings.Contains(m[1], "/run-") {
			t.Fatalf("exit %d, want 1 and a trace acpsim-failures/run-RUNID-seed-1.ndjson:\n%s", code, out)
		}
		paths = append(paths, m[1])
	}
	if paths[0] == paths[1] {
		t.Fatalf("both runs wrote %s", paths[0])
	}
	for _, p := range paths {
		if code, out, errs := run(t, "replay", p); code != exitAnomaly {
			t.Errorf("replay %s: exit %d, want 1:\n%s%s", p, code, out, errs)
		}
	}
	if got, _ := filepath.Glob("acpsim-failures/*"); len(got) != 2 {
		t.Errorf("acpsim-failures holds %v, want the 2 traces", got)
	}
}

// Nothing judged is never a pass: a run with no prompts, a swarm of them
// and a trace that is only its header are inconclusive (exit 3) and say why.
func TestNothingJudgedIsInconclusive(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, _ := run(t, "run", "--prompts", "0", "--trace", "t.ndjson")
	if code != exitInconclusive || !strings.Contains(out, "INCONCLUSIVE: nothing judged: the trace holds no submission") {
		t.Fatalf("run --prompts 0: exit %d, want 3 saying nothing was judged:\n%s", code, out)
	}
	if code, out, _ = run(t, "swarm", "--seeds", "3", "--prompts", "0"); code != exitInconclusive || strings.Contains(out, "PASS") {
		t.Errorf("swarm --prompts 0: exit %d, want 3:\n%s", code, out)
	}
	b, err := os.ReadFile("t.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(b), "\n")
	if err := os.WriteFile("header.ndjson", []byte(header+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "judge", "header.ndjson")
	if code != exitInconclusive || !strings.Contains(out, "nothing judged, inconclusive: the trace holds no submission (the trace has no end event)") {
		t.Errorf("judge of a header alone: exit %d, want 3 saying nothing was judged:\n%s", code, out)
	}
}
