package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunWithNoFlagsPrintsAVerdict(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, _ := run(t, "run")
	if code != exitOK || !strings.Contains(out, "PASS:") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

func TestSameSeedWritesTheSameTraceBytes(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson"), filepath.Join(dir, "c.ndjson")
	run(t, "run", "--seed", "7", "--trace", a)
	run(t, "run", "--seed", "7", "--trace", b)
	t.Setenv("ACPSIM_SEED", "7") // the env twin gives the same run
	run(t, "run", "--trace", c)
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	cb, _ := os.ReadFile(c)
	if len(ab) == 0 || !bytes.Equal(ab, bb) || !bytes.Equal(ab, cb) {
		t.Fatalf("traces differ: %d, %d, %d bytes", len(ab), len(bb), len(cb))
	}
}

// Bad input gets one line on stderr and exit 2, never a panic.
func TestBadInputIsOneLineAndExit2(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	good := filepath.Join(dir, "good.ndjson")
	if code, _, _ := run(t, "run", "--trace", good); code != exitOK {
		t.Fatalf("setup run: exit %d", code)
	}
	full, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.ndjson")
	os.WriteFile(truncated, full[:len(full)/2], 0o644)
	garbage := filepath.Join(dir, "garbage.ndjson")
	os.WriteFile(garbage, []byte("not a trace\n"), 0o644)
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"trace is a directory", "", []string{"run", "--trace", dir}, "is a directory"},
		{"unknown flag", "", []string{"run", "--frobnicate"}, "unknown flag: --frobnicate"},
		{"malformed seed", "", []string{"run", "--seed", "x"}, `invalid argument "x" for "--seed"`},
		{"malformed env twin", "ACPSIM_PROMPTS=many", []string{"run"}, "ACPSIM_PROMPTS"},
		{"unknown policy", "", []string{"run", "--policy", "sometimes"}, "expected one of none, naive, keyed"},
		{"unknown agent", "", []string{"swarm", "--agent", "nope"}, `unknown agent "nope"`},
		{"fault rate out of range", "", []string{"run", "--fault-rates", "kill=3"}, "between 0 and 1"},
		{"unknown fault kind", "", []string{"run", "--fault-rates", "meteor=0.1"}, `unknown fault kind "meteor"`},
		{"no seeds", "", []string{"swarm", "--seeds", "0"}, "--seeds 0"},
		{"unknown knob value", "", []string{"run", "--busy", "maybe"}, "expected one of reject, hold, breakpoint"},
		{"unknown link", "", []string{"run", "--link", "carrier-pigeon"}, `link "carrier-pigeon": expected stdio, http, ws or mixed`},
		{"unknown knob value via twin", "ACPSIM_HELD_ON_DISCONNECT=forget", []string{"run"}, "expected one of keep, drop"},
		{"truncated trace", "", []string{"judge", truncated}, "truncated.ndjson:"},
		{"not a trace", "", []string{"judge", garbage}, "garbage.ndjson:1:"},
		{"trace is a directory (judge)", "", []string{"judge", dir}, "is a directory"},
		{"missing trace", "", []string{"judge", filepath.Join(dir, "missing.ndjson")}, "no such file"},
		{"endless line (judge)", "", []string{"judge", "/dev/zero"}, "/dev/zero:1: line longer than 67108864 bytes, expected the header"},
		{"stray argument", "", []string{"run", "extra"}, `unknown command "extra"`},
		{"neither a count nor a contract given to --sessions", "", []string{"run", "--sessions", "forever"}, "expected a number of sessions per Client, or a session contract (durable, process, auto)"},
		{"two contracts", "", []string{"check", "--sessions", "process", "--session-contract", "durable", "--", "acpsim", "agent"}, "--sessions process and --session-contract durable name two session contracts"},
		{"unknown session contract", "", []string{"run", "--session-contract", "forever"}, `session contract "forever": expected durable, process or auto`},
		{"unknown session contract via twin", "ACPSIM_SESSION_CONTRACT=forever", []string{"check", "--", "acpsim", "agent"}, "expected durable, process or auto"},
		{"unknown session contract (judge)", "", []string{"judge", "--session-contract", "forever", good}, "expected durable, process or auto"},
		{"prompts beyond memory", "", []string{"run", "--prompts", "100000000"}, "--prompts 100000000 is more than the limit 100000 (every prompt is drawn before the run starts"},
		{"the largest int as prompts", "", []string{"run", "--prompts", "9223372036854775807"}, "--prompts 9223372036854775807 is more than the limit 100000"},
		{"clients beyond memory", "", []string{"run", "--clients", "100000"}, "--clients 100000 is more than the limit 1000"},
		{"users' events of all Clients", "", []string{"run", "--clients", "500", "--prompts", "300"}, "--clients 500 × --prompts 300 = 150000 users' events is more than the limit 100000"},
		{"nodes beyond time", "", []string{"run", "--link", "http", "--nodes", "100000"}, "--nodes 100000 is more than the limit 1000"},
		{"proxies beyond time", "", []string{"swarm", "--proxies", "1000"}, "--proxies 1000 is more than the limit 100"},
		{"sessions in memory behind nodes", "", []string{"run", "--sessions-in", "memory", "--link", "ws", "--nodes", "2"}, "use --nodes 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if k, v, ok := strings.Cut(tc.env, "="); ok {
				t.Setenv(k, v)
			}
			code, _, stderr := run(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "acpsim: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q: want one line starting acpsim: containing %q", stderr, tc.want)
			}
		})
	}
}

// A failing swarm prints a rerun command, and that command reproduces the
// failure on its own.
func TestNaiveSwarmFailsWithARerunCommandThatReproduces(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, _ := run(t, "swarm", "--seeds", "100", "--policy", "naive")
	if code != exitAnomaly || !strings.Contains(out, "duplicate") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	var rerun string
	for _, line := range strings.Split(out, "\n") {
		if _, cmd, ok := strings.Cut(line, "rerun: "); ok {
			rerun = cmd
			break
		}
	}
	_, args, ok := strings.Cut(rerun, "acpsim run ")
	if !ok {
		t.Fatalf("no rerun command in:\n%s", out)
	}
	code, out, _ = run(t, append([]string{"run"}, strings.Fields(args)...)...)
	if code != exitAnomaly || !strings.Contains(out, "duplicate") || !strings.Contains(out, "trace: acpsim-failures/") {
		t.Fatalf("rerun %q: exit %d, output:\n%s", rerun, code, out)
	}
}

func TestNoneSwarmLosesSubmissions(t *testing.T) {
	code, out, _ := run(t, "swarm", "--seeds", "100", "--policy", "none")
	if code != exitAnomaly || !(strings.Contains(out, "lost") || strings.Contains(out, "unresolved")) {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

// judge reaches the same verdict from the trace file as run did live.
func TestJudgeAgreesWithRun(t *testing.T) {
	dir := t.TempDir()
	for _, policy := range []string{"naive", "keyed"} {
		path := filepath.Join(dir, policy+".ndjson")
		code, out, _ := run(t, "run", "--seed", "3", "--policy", policy, "--trace", path)
		jcode, jout, _ := run(t, "judge", path)
		table := func(s string) string {
			_, rest, _ := strings.Cut(s, "\n\n")
			before, _, _ := strings.Cut(rest, "\n\n")
			return before
		}
		if code != jcode || table(out) != table(jout) {
			t.Fatalf("%s: run exit %d, judge exit %d\nrun:\n%s\njudge:\n%s", policy, code, jcode, out, jout)
		}
	}
}

func TestHelpNamesEveryCommandAndTheEnvTwins(t *testing.T) {
	_, out, _ := run(t, "--help")
	for _, want := range []string{"run", "swarm", "judge", "ACPSIM_SEED", "Exit codes"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	_, out, _ = run(t, "run", "--help")
	for _, want := range []string{"--seed", "--policy", "--agent", "--fault-rates", "--trace", "memory-keys"} {
		if !strings.Contains(out, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
}
