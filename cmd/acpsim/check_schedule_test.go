package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// The re-drive that replay suggests for a check trace runs as printed: with
// no Agent command, check takes the Agent and the run's flags from the
// trace's header and says so.
func TestReplaySuggestsAReDriveThatRunsAsPrinted(t *testing.T) {
	dir := t.TempDir()
	out, code := checkRun(t, "--seeds", "1", "--first-seed", "5", "--prompts", "2", "--fault-rates", "drop=0.3", "--trace-dir", dir, "--", "self", "agent")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	trace := filepath.Join(dir, "check-seed-5.ndjson")
	var stdout, stderr bytes.Buffer
	code = execute([]string{"replay", trace}, &stdout, &stderr)
	suggested := regexp.MustCompile(`acpsim check --schedule \S+`).FindString(stdout.String() + stderr.String())
	if code != 2 || suggested == "" {
		t.Fatalf("replay of a check trace: exit %d, want 2 and an acpsim check --schedule command:\n%s%s", code, stdout.String(), stderr.String())
	}
	words, err := shell.Split(suggested)
	if err != nil {
		t.Fatal(err)
	}
	again := t.TempDir()
	out, code = checkRun(t, append(words[2:], "--trace-dir", again)...)
	if code != 0 || !strings.Contains(out, "no Agent command given: re-driving "+trace+" as its header records it:") {
		t.Fatalf("%s: exit %d, want 0 and the line naming what it took from the header:\n%s", suggested, code, out)
	}
	redriven := readTraces(t, again)[0].Header
	if redriven.Source != traces.SourceSchedule || redriven.Seed != 5 || redriven.Prompts != 2 || redriven.Rates["drop"] != 0.3 {
		t.Errorf("re-drive header: source %q seed %d prompts %d drop %v, want schedule, 5, 2 and 0.3 as recorded", redriven.Source, redriven.Seed, redriven.Prompts, redriven.Rates["drop"])
	}
}

// A command given after -- wins over the header's, and so does a flag given
// again.
func TestScheduleWithAnAgentCommandUsesThatOne(t *testing.T) {
	dir := t.TempDir()
	out, code := checkRun(t, "--seeds", "1", "--first-seed", "3", "--prompts", "2", "--trace-dir", dir, "--", "self", "agent")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	again := t.TempDir()
	out, code = checkRun(t, "--schedule", filepath.Join(dir, "check-seed-3.ndjson"), "--prompts", "1", "--trace-dir", again, "--", "self", "agent", "--keys", "memory")
	if code == 2 || strings.Contains(out, "no Agent command given") {
		t.Fatalf("exit %d, want the given command used and no line about the header:\n%s", code, out)
	}
	h := readTraces(t, again)[0].Header
	if !strings.Contains(h.Command, "--keys memory") || h.Prompts != 1 {
		t.Errorf("re-drive command %q, prompts %d: want the Agent given after -- and --prompts 1", h.Command, h.Prompts)
	}
}

func TestScheduleOfANonCheckTraceWithoutAgentIsExit2(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "run.ndjson")
	var stdout, stderr bytes.Buffer
	if code := execute([]string{"run", "--seed", "1", "--trace", trace}, &stdout, &stderr); code > 1 {
		t.Fatalf("run: exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	out, code := checkRun(t, "--schedule", trace)
	if code != 2 || !strings.Contains(out, "not of acpsim check") {
		t.Errorf("exit %d, want 2 and why:\n%s", code, out)
	}
}
