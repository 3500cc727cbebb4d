package main

import (
	"bytes"
	"os"
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

// A trace of a remote Agent gives its --url (and --restart) to the re-drive.
func TestScheduleOfARemoteAgentsTraceTakesItsURL(t *testing.T) {
	dir := t.TempDir()
	if out, code := checkRun(t, "--seeds", "1", "--first-seed", "2", "--prompts", "1", "--trace-dir", dir, "--", "self", "agent"); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	log := readTraces(t, dir)[0]
	log.Header.Command = "acpsim check --first-seed 2 --seeds 1 --prompts=1 --url http://127.0.0.1:7070/acp --url ws://127.0.0.1:7071/acp --restart 'systemctl restart agent'"
	remote := filepath.Join(dir, "remote.ndjson")
	f, err := os.Create(remote)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := newCheckCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	agent, err := adoptTraceCommand(cmd, remote)
	if err != nil {
		t.Fatal(err)
	}
	urls, _ := cmd.Flags().GetStringArray("url")
	restart, _ := cmd.Flags().GetString("restart")
	prompts, _ := cmd.Flags().GetInt("prompts")
	if len(agent) != 0 || strings.Join(urls, " ") != "http://127.0.0.1:7070/acp ws://127.0.0.1:7071/acp" || restart != "systemctl restart agent" || prompts != 1 {
		t.Errorf("adopted agent %q, urls %q, restart %q, prompts %d: want the remote Agent's as recorded", agent, urls, restart, prompts)
	}
	if !strings.Contains(out.String(), "--url=") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("want one line naming the URLs taken, got:\n%s", out.String())
	}
}
