package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// tapSession runs the SDK Client's three connections (client.mjs), each a
// new `acpsim tap` process in front of `acpsim agent args…`, all recording
// into one trace, and returns the trace's path.
func tapSession(t *testing.T, agentArgs ...string) string {
	t.Helper()
	requireNode(t)
	bin := acpsim(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "session.ndjson")
	args := append([]string{"--", bin, "tap", "--trace", trace, "--", bin, "agent", "--db", filepath.Join(dir, "a.db")}, agentArgs...)
	if s, _ := runClient(t, nil, args...); s.Error != "" {
		t.Fatalf("client.mjs through the tap: %s", s.Error)
	}
	return trace
}

func acpsimRun(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(args, &stdout, &stderr)
	return stdout.String() + stderr.String(), code
}

// A session the SDK Client holds with the reference Agent through a tap,
// across three Agent processes, is one trace that lints, judges clean and
// views; the tap changed no frame (the Client got its retry's original id).
func TestTapRecordsARealSessionAcrossRestarts(t *testing.T) {
	trace := tapSession(t)
	log, err := traces.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if log.Header.Observed != traces.ObservedAtTap {
		t.Fatalf("header observed %q, want %q", log.Header.Observed, traces.ObservedAtTap)
	}
	procs := map[string]bool{}
	for _, e := range log.Events {
		if e.Kind == traces.KindRestart {
			procs[e.From] = true
		}
	}
	if len(procs) != 3 || !procs["a1#3"] {
		t.Fatalf("Agent processes in the trace: %v, want a1#1…a1#3 (one per tap start)", procs)
	}
	out, code := acpsimRun(t, "judge", trace)
	if code != 0 || !strings.Contains(out, "retries after restart 1") {
		t.Fatalf("judge: exit %d, want 0 with the retry after the restart seen:\n%s", code, out)
	}
	// The frames are the Client's own, unchanged: lint finds exactly the
	// one client.mjs breaks on purpose (idempotencyKey "", which the Agent
	// refused with -32602).
	if out, code := acpsimRun(t, "lint", trace); code != 1 || !strings.Contains(out, "FAIL: 1 problem") || !strings.Contains(out, "/params/idempotencyKey") {
		t.Fatalf("lint: exit %d, want 1 for the empty key only:\n%s", code, out)
	}
	html := filepath.Join(t.TempDir(), "v.html")
	if out, code := acpsimRun(t, "view", trace, "-o", html); code != 0 {
		t.Fatalf("view: exit %d:\n%s", code, out)
	}
	if fi, err := os.Stat(html); err != nil || fi.Size() == 0 {
		t.Fatalf("view wrote no page: %v", err)
	}
}

// An Agent that forgets its keys answers the SDK Client's retry with a new
// message: a tap's trace shows it, as two messageIds for one key.
func TestTapTraceShowsAnAgentThatForgetsKeys(t *testing.T) {
	trace := tapSession(t, "--agent", "ignore-key")
	out, code := acpsimRun(t, "judge", trace)
	if code != 1 || !strings.Contains(out, "wrong-id") || !strings.Contains(out, "2 different messageIds") {
		t.Fatalf("judge: exit %d, want 1 with wrong-id:\n%s", code, out)
	}
}

func TestTapBadUsage(t *testing.T) {
	dir := t.TempDir()
	notTap := filepath.Join(dir, "run.ndjson")
	if out, code := acpsimRun(t, "run", "--seed", "1", "--trace", notTap); code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tap", "--trace", filepath.Join(dir, "t.ndjson")}, "no Agent command"},
		{[]string{"tap", "--", "cat"}, "--trace: expected the trace file"},
		{[]string{"tap", "--trace", notTap, "--", "cat"}, "not of acpsim tap"},
		{[]string{"tap", "--trace", filepath.Join(dir, "t.ndjson"), "--", "/nonexistent/agent"}, "cannot start the Agent"},
	} {
		out, code := acpsimRun(t, c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, out)
		}
	}
}
