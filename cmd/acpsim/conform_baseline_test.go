package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The minimal SDK Agent (interop/minimal-agent.mjs) offers no
// session/resume, no session/list, sends no state_update and, as the SDK
// drops idempotencyKey, answers every keyed retry as a new prompt. conform
// must block what needs the missing methods, open with them, fail only what
// the Agent really breaks and name the ignored key as the cause.
func TestConformBlocksWhatAMissingBaselineLeavesUnjudged(t *testing.T) {
	requireNode(t)
	t.Parallel()
	dir := t.TempDir()
	junit, traceDir := filepath.Join(dir, "r.xml"), filepath.Join(dir, "traces")
	// A long answer timeout: a case that waited for a state_update the
	// baseline showed never comes would take at least that long.
	const timeout = 20
	out, code := conformProcess(t, "--timeout", strconv.Itoa(timeout)+"s", "--junit", junit, "--trace-dir", traceDir,
		"--", "node", filepath.Join(interopDir, "minimal-agent.mjs"))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (keyed retries answered as new prompts):\n%s", code, out)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[1], "missing baseline baseline-turn: ") || !strings.HasPrefix(lines[2], "missing baseline baseline-resume: ") ||
		!strings.HasPrefix(lines[3], "missing baseline baseline-list: ") || !strings.Contains(lines[2], "session/resume") {
		t.Errorf("the report does not open with the missing baselines:\n%s", out)
	}
	if !strings.HasPrefix(lines[4], "every keyed retry was answered as a new prompt (a new messageId)") ||
		!strings.HasSuffix(lines[4], "the Agent does not act on idempotencyKey") {
		t.Errorf("no key diagnosis among the first lines:\n%s", out)
	}
	v := caseVerdicts(out)
	// What the Agent really breaks: the baselines it lacks, keyed retries
	// with a new messageId, malformed keys accepted.
	breaks := map[string]bool{"baseline-turn": true, "baseline-resume": true, "baseline-list": true,
		"rfd-1": true, "rfd-6": true, "key-1": true, "key-6": true, "reuse-1": true, "retry-1": true,
		"key-4": true, "key-5": true, "key-7": true, "key-8": true}
	for id, verdict := range v {
		if verdict == "FAIL" && !breaks[id] {
			t.Errorf("%s FAILs, but the Agent meets its rule (or a baseline it needs is missing)", id)
		}
	}
	for _, id := range []string{"rfd-1", "key-1", "retry-1"} {
		if v[id] != "FAIL" {
			t.Errorf("%s is %q, want FAIL: its keyed retry was answered with a new messageId", id, v[id])
		}
	}
	blockedBy := map[string]string{"rfd-2": "baseline-resume", "rfd-3": "baseline-resume", "rfd-5": "baseline-resume",
		"session-1": "baseline-resume", "session-2": "baseline-resume", "private-3": "baseline-resume",
		"private-2": "baseline-list", "baseline-close": "baseline-resume",
		"rfd-4": "baseline-turn", "rfd-7": "baseline-turn", "cancel-1": "baseline-turn", "cancel-2": "baseline-turn",
		"close-1": "", "close-2": ""}
	for id := range blockedBy {
		if v[id] != "BLOCKED" {
			t.Errorf("%s is %q, want BLOCKED", id, v[id])
		}
	}
	// A case judged on what it can: rfd-1's replay is not judged, its retry is.
	if !strings.Contains(out, "not judged: expect replay transcript") {
		t.Errorf("no case says what it left unjudged:\n%s", out)
	}
	if strings.Contains(out, "at )") || strings.Contains(out, "at #)") {
		t.Errorf("an empty position in a why:\n%s", out)
	}
	if !strings.Contains(out, "schema: ") || !strings.Contains(out, "acpsim lint "+filepath.Join(traceDir, "*.ndjson")) {
		t.Errorf("no schema line naming the lint command:\n%s", out)
	}

	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("--junit wrote invalid XML: %v", err)
	}
	skippedBlocked := 0
	for _, c := range doc.Suites[0].Cases {
		id, _, _ := strings.Cut(c.Name, ":")
		if want, ok := blockedBy[id]; ok {
			switch {
			case c.Skipped == nil || c.Failure != nil:
				t.Errorf("JUnit: %s is not skipped", id)
			case !strings.HasPrefix(c.Skipped.Message, "blocked by "+want):
				t.Errorf("JUnit: %s skipped with %q, want blocked by %s", id, c.Skipped.Message, want)
			}
		}
		if c.Skipped != nil && strings.HasPrefix(c.Skipped.Message, "blocked by baseline-") {
			skippedBlocked++
		}
		if secs, _ := strconv.ParseFloat(c.Time, 64); secs >= timeout {
			t.Errorf("%s took %ss: it waited out the answer timeout", id, c.Time)
		}
	}
	if skippedBlocked != strings.Count(out, " BLOCKED ") {
		t.Errorf("JUnit skips %d as blocked, the table has %d BLOCKED", skippedBlocked, strings.Count(out, " BLOCKED "))
	}

	// Each case run wrote a trace that judge, view and lint read.
	trace := filepath.Join(traceDir, "rfd-1.ndjson")
	for _, cmd := range []string{"judge", "view", "lint"} {
		if code, _, errOut := run(t, cmd, trace); code == exitUsage {
			t.Errorf("acpsim %s refused conform's trace: %s", cmd, errOut)
		}
	}
	if code, stdout, _ := run(t, "judge", trace); code != exitAnomaly || !strings.Contains(stdout, "wrong-id") {
		t.Errorf("judge on rfd-1's trace: exit %d, want 1 with wrong-id:\n%s", code, stdout)
	}
}

// --format json counts blocked cases and names what blocked each.
func TestConformJSONReportsBlockedCases(t *testing.T) {
	requireNode(t)
	t.Parallel()
	out, code := conformProcess(t, "--format", "json", "--run", "^(session-1|key-1)$", "--", "node", filepath.Join(interopDir, "minimal-agent.mjs"))
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	var doc struct {
		Headline []string
		Blocked  int
		Cases    []struct{ ID, Verdict, BlockedBy string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--format json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, c := range doc.Cases {
		got[c.ID] = c.Verdict + " " + c.BlockedBy
	}
	if got["session-1"] != "blocked baseline-resume" || got["key-1"] != "fail " || doc.Blocked != 1 {
		t.Errorf("JSON verdicts %v (%d blocked), want session-1 blocked by baseline-resume, key-1 fail", got, doc.Blocked)
	}
	if len(doc.Headline) == 0 || !strings.HasPrefix(doc.Headline[0], "missing baseline baseline-resume") {
		t.Errorf("JSON headline %q, want the missing baseline first", doc.Headline)
	}
}

func TestConformAV1AgentGetsOneLineAndExit3(t *testing.T) {
	requireNode(t)
	t.Parallel()
	out, code := conformProcess(t, "--", "node", filepath.Join(interopDir, "v1-agent.mjs"))
	if code != 3 || strings.Count(out, "speaks ACP v1") != 1 || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Fatalf("exit %d, want 3 and one \"speaks ACP v1\" line:\n%s", code, out)
	}
}
