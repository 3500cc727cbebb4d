package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A trace header is held to what the flags it stands for accept, and a
// recorded fault to the fault table of the tool that made it, by every
// command that reads a trace: file:line, the field, what was expected, exit 2.
// Before, an unknown policy, negative Clients, a rate of 5 or an unknown
// fault were read without a word.
func TestMalformedHeadersAndFaultsAreRefusedWithTheirField(t *testing.T) {
	for _, tc := range []struct {
		file  string
		line  int
		field string
		want  string
	}{
		{"policy-unknown", 1, "policy", `unknown policy "sometimes"`},
		{"agent-unknown", 1, "agent", `unknown agent "nope"`},
		{"link-unknown", 1, "link", `link "carrier-pigeon": expected stdio, http, ws or mixed`},
		{"check-link-unknown", 1, "link", `link "carrier-pigeon": expected stdio or remote`},
		{"clients-negative", 1, "clients", "clients -1: expected at least 1"},
		{"sessions-zero", 1, "sessions", "sessions 0: expected at least 1"},
		{"prompts-negative", 1, "prompts", "prompts -5: expected 0 or more"},
		{"rate-five", 1, "rates", "fault rate kill=5: expected a number between 0 and 1"},
		{"rate-unknown-kind", 1, "rates", `unknown fault kind "meteor"`},
		{"knob-value-unknown", 1, "knobs", `knob busy="maybe": expected one of reject, hold, breakpoint`},
		{"knob-chunks-zero", 1, "knobs", `knob chunks="0": expected a number of chunks, at least 1`},
		{"knob-unknown", 1, "knobs", `unknown knob "telepathy"`},
		{"actions-negative", 1, "actions", "cancels -1: expected 0 or more"},
		{"actions-cancel-by-unknown", 1, "actions", `cancel-by "telepathy": expected either, request or session`},
		{"actions-unknown", 1, "actions", `"tickles=3": expected cancels=N closes=N forks=N`},
		{"decision-unknown", 3, "decision", `unknown fault kind "meteor"`},
		{"drop-in-simulator", 2, "decision", `unknown fault kind "drop"`}, // acpsim check's fault, not the simulator's
		{"option-beyond", 3, "option", "got 7, expected 1 for cut"},
		{"option-route-beyond", 2, "option", "got 1000, expected 1 to 999 for route"},
	} {
		path := filepath.Join("testdata", "headers", tc.file+".ndjson")
		where := path + ":" + itoa(tc.line) + ": "
		for _, args := range readingCommands(t, path) {
			t.Run(tc.file+"/"+args[0], func(t *testing.T) {
				code, _, stderr := run(t, args...)
				if code != exitUsage {
					t.Errorf("exit %d, want %d", code, exitUsage)
				}
				line, _, _ := strings.Cut(stderr, "\n")
				if !strings.HasPrefix(line, "acpsim: "+where) || !strings.Contains(line, `field "`+tc.field+`": `) || !strings.Contains(line, tc.want) {
					t.Errorf("stderr %q: want acpsim: %s… field %q: …%s", stderr, where, tc.field, tc.want)
				}
			})
		}
	}
}

// The header's command is what replay and shrink run: it is held to the
// run's bounds, told as the header's field.
func TestAHeaderCommandBeyondTheBoundsIsRefused(t *testing.T) {
	path := filepath.Join("testdata", "headers", "command-prompts-beyond-memory.ndjson")
	for _, args := range [][]string{{"replay", path}, {"shrink", path, "-o", filepath.Join(t.TempDir(), "small.ndjson")}} {
		code, _, stderr := run(t, args...)
		want := path + `:1: header: field "command"`
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--prompts 100000000 is more than the limit 100000") {
			t.Errorf("%s: exit %d, stderr %q: want exit 2, one line with %s and the limit", args[0], code, stderr, want)
		}
	}
}

// What the tables accept is still read: a simulator's trace, and a trace of
// acpsim check that recorded the proxy's own fault (drop).
func TestWellFormedHeadersAreRead(t *testing.T) {
	for _, file := range []string{"good", "check-drop-recorded"} {
		path := filepath.Join("testdata", "headers", file+".ndjson")
		for _, args := range readingCommands(t, path) {
			if args[0] == "shrink" || file != "good" && args[0] == "replay" {
				continue // a passing run has nothing to shrink; a real Agent's is not replayed
			}
			if code, _, stderr := run(t, args...); code == exitUsage {
				t.Errorf("%s %s: exit 2: %s", args[0], file, stderr)
			}
		}
	}
}

// readingCommands are the commands that read the trace at path.
func readingCommands(t *testing.T, path string) [][]string {
	dir := t.TempDir()
	return [][]string{
		{"judge", path},
		{"view", path, "-o", filepath.Join(dir, "page.html")},
		{"lint", path},
		{"replay", path},
		{"shrink", path, "-o", filepath.Join(dir, "small.ndjson")},
	}
}
