package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// check's --cap cuts the chaos (one second into sixty prompts a Client):
// the heal and the observer still run on allowances of their own, so the
// transcripts are read and the seed is inconclusive (exit 3), never lost;
// judge agrees on its trace.
func TestCheckCutAtItsCapReadsTheTranscriptsAndIsInconclusive(t *testing.T) {
	dir := keptOnFailure(t)
	out, code := checkRun(t, "--seeds", "1", "--cap", "2s", "--prompts", "60", "--trace-dir", dir, "--", "self", "agent")
	if code != exitInconclusive || !strings.Contains(out, "seed 1: inconclusive (hit --cap; ") {
		t.Fatalf("exit %d, want %d with seed 1 inconclusive\n%s", code, exitInconclusive, end(out))
	}
	logs := readTraces(t, dir)
	// The Clients asked for sessions before the cap, and the observer
	// resumed sessions after it.
	heal, observer, made := -1, 0, 0
	for i, e := range logs[0].Events {
		switch {
		case e.Kind == traces.KindHeal:
			heal = i
		case e.Kind == traces.KindSend && e.From == traces.Observer && strings.Contains(e.Frame, `"session/resume"`):
			observer++
		case heal < 0 && e.Kind == traces.KindSend && e.From != traces.Observer && strings.Contains(e.Frame, `"session/new"`):
			made++
		}
	}
	if heal < 0 || made == 0 || observer == 0 {
		t.Fatalf("heal at event %d, %d session/new sent before it, %d observer resumes: the run cut at its cap did not heal and observe", heal, made, observer)
	}
	code, judged, _ := run(t, "judge", filepath.Join(dir, "check-seed-1.ndjson"))
	if code != exitInconclusive {
		t.Fatalf("judge: exit %d, want %d\n%s", code, exitInconclusive, end(judged))
	}
	for _, not := range []string{"- lost:", "- unresolved:", "- session-lost:", "- bad-reply:", "could not read"} {
		if strings.Contains(judged, not) {
			t.Errorf("judge's report has %q\n%s", not, end(judged))
		}
	}
}
