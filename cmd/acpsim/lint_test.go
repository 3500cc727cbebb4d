package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// craftedTrace writes a trace with a real header (from a run) and the
// events given, numbered as a trace numbers them.
func craftedTrace(t *testing.T, dir string, events ...traces.Event) string {
	t.Helper()
	src := filepath.Join(dir, "src.ndjson")
	if code, _, errOut := run(t, "run", "--seed", "1", "--prompts", "1", "--trace", src); code != exitOK {
		t.Fatalf("setup run: exit %d: %s", code, errOut)
	}
	log, err := traces.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	crafted := &traces.Log{Header: log.Header}
	for _, e := range events {
		crafted.Append(e)
	}
	path := filepath.Join(dir, "crafted.ndjson")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := crafted.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	return path
}

func c2a(frame string) traces.Event {
	return traces.Event{Kind: traces.KindSend, Link: "c1:a1#1", From: "c1", To: "a1#1", Dir: traces.ClientToAgent, Frame: frame}
}

func a2c(frame string) traces.Event {
	return traces.Event{Kind: traces.KindSend, Link: "c1:a1#1", From: "a1#1", To: "c1", Dir: traces.AgentToClient, Frame: frame}
}

// Each rule is reported on its own line with the file, the line of the
// event, the event's seq, link and dir, the rule and the JSON pointer.
func TestLintReportsEachRuleAtItsFileAndLine(t *testing.T) {
	dir := t.TempDir()
	path := craftedTrace(t, dir,
		c2a(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":"k"}}`),
		a2c(`{"jsonrpc":"2.0","id":1,"result":{}}`),
		c2a(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"idempotency_key":"k"}}`),
		c2a(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/w","idempotencyKey":"k"}}`),
		a2c(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message","messageId":"m","_meta":{"idempotencyKey":"k"}}}}`),
		a2c(`{"jsonrpc":"2.0","id":1,"result":{"messageId":"m","idempotencyKey":"k"}}`),
		c2a(`{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`),
		c2a(`{"jsonrpc":"2.0","id":`),
		c2a(`{"jsonrpc":"2.0"}`),
	)
	code, out, errOut := run(t, "lint", path)
	if code != exitAnomaly || errOut != "" {
		t.Fatalf("exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
	want := []string{
		path + ":3: seq 2 link c1:a1#1 dir a2c: schema: response to session/prompt (result: PromptResponse): missing property 'messageId' (at /result)",
		path + ":4: seq 3 link c1:a1#1 dir c2a: key-spelling: ",
		path + ":5: seq 4 link c1:a1#1 dir c2a: key-wrong-method: ",
		path + ":6: seq 5 link c1:a1#1 dir a2c: key-in-meta: ",
		path + ":7: seq 6 link c1:a1#1 dir a2c: key-misplaced: ",
		path + ":8: seq 7 link c1:a1#1 dir c2a: id-reused: ",
		path + ":9: seq 8 link c1:a1#1 dir c2a: json: ",
		path + ":10: seq 9 link c1:a1#1 dir c2a: jsonrpc: ",
		"FAIL: 8 problems (id-reused 1, json 1, jsonrpc 1, key-in-meta 1, key-misplaced 1, key-spelling 1, key-wrong-method 1, schema 1) in 9 frames of 1 trace",
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d:\n got %s\nwant %s...", i+1, lines[i], w)
		}
	}
	for _, l := range lines[:6] {
		if !strings.Contains(l, " (at /") {
			t.Errorf("no JSON pointer: %s", l)
		}
	}

	// --rules and its twin narrow the report, and the exit code follows.
	code, out, _ = run(t, "lint", "--rules", "key-in-meta,id-reused", path)
	if code != exitAnomaly || strings.Count(out, "\n") != 3 || !strings.Contains(out, "FAIL: 2 problems (id-reused 1, key-in-meta 1)") {
		t.Fatalf("--rules: exit %d, output:\n%s", code, out)
	}
	t.Setenv("ACPSIM_RULES", "key-in-meta")
	code, out, _ = run(t, "lint", path)
	if code != exitAnomaly || !strings.Contains(out, "FAIL: 1 problem (key-in-meta 1)") {
		t.Fatalf("ACPSIM_RULES: exit %d, output:\n%s", code, out)
	}
}

// acpsim's own traces lint clean: the observer's malformed-key probes are
// noted as probes and the reference Agent refuses them with -32602. The
// same probe frames without their note are schema problems, and an Agent
// that accepts malformed keys is caught by the probe rule.
func TestLintOfASimulatedRun(t *testing.T) {
	dir := t.TempDir()
	for _, link := range []string{"stdio", "http", "ws"} {
		for _, seed := range []string{"1", "2", "3", "4"} {
			path := filepath.Join(dir, link+"-"+seed+".ndjson")
			if code, out, _ := run(t, "run", "--seed", seed, "--link", link, "--cancels", "1", "--closes", "1", "--forks", "1", "--trace", path); code != exitOK {
				t.Fatalf("%s seed %s: run: exit %d:\n%s", link, seed, code, out)
			}
			if code, out, _ := run(t, "lint", path); code != exitOK || !strings.HasPrefix(out, "OK: no problems in ") {
				t.Errorf("%s seed %s: lint: exit %d, output:\n%s", link, seed, code, out)
			}
		}
	}

	// The probes without their note: eight frames malformed for all lint knows.
	clean := filepath.Join(dir, "stdio-1.ndjson")
	b, err := os.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	// Four from the observer reading the Client's live pipe, four from
	// the fresh process it reads after.
	if n := bytes.Count(b, []byte(`,"note":"probe"`)); n != 8 {
		t.Fatalf("%d probe notes in %s, want 8", n, clean)
	}
	unnoted := filepath.Join(dir, "unnoted.ndjson")
	if err := os.WriteFile(unnoted, bytes.ReplaceAll(b, []byte(`,"note":"probe"`), nil), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "lint", unnoted)
	if code != exitAnomaly || !strings.Contains(out, "FAIL: 8 problems (schema 8)") || strings.Count(out, "(at /params/idempotencyKey)") != 8 {
		t.Errorf("probes without their note: exit %d, output:\n%s", code, out)
	}

	lenient := filepath.Join(dir, "lenient.ndjson")
	run(t, "run", "--seed", "3", "--agent", "lenient-key", "--trace", lenient)
	code, out, _ = run(t, "lint", lenient)
	if code != exitAnomaly || !strings.Contains(out, "FAIL: 8 problems (probe 8)") || !strings.Contains(out, "with a result: the Agent accepted it") {
		t.Errorf("lenient-key: exit %d, output:\n%s", code, out)
	}
}

// The Agent that echoes keys in _meta is caught from its trace alone.
func TestLintCatchesTheEchoKeyAgent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "echo.ndjson")
	run(t, "run", "--seed", "1", "--agent", "echo-key", "--trace", path)
	code, out, _ := run(t, "lint", "--rules", "key-in-meta", path)
	if code != exitAnomaly || !strings.Contains(out, "key-in-meta: ") || !strings.Contains(out, "(at /params/update/_meta/idempotencyKey)") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

// Bad input is exit 2 with the file and line on stderr; readable traces
// given with it are still checked.
func TestLintBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.ndjson")
	os.WriteFile(garbage, []byte("not a trace\n"), 0o644)
	good := craftedTrace(t, dir, c2a(`{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"malformed trace", []string{"lint", garbage}, "garbage.ndjson:1: "},
		{"missing trace", []string{"lint", filepath.Join(dir, "missing.ndjson")}, "no such file"},
		{"a directory", []string{"lint", dir}, "is a directory"},
		{"no trace", []string{"lint"}, "requires at least 1 arg"},
		{"unknown rule", []string{"lint", "--rules", "key-in-mete", good}, `unknown rule "key-in-mete"`},
		{"unknown protocol", []string{"lint", "--protocol", "3", good}, `invalid argument "3" for "--protocol" flag: expected auto, 1 (ACP v1) or 2 (ACP v2)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "acpsim: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q: want one line starting acpsim: containing %q", stderr, tc.want)
			}
		})
	}
	code, out, stderr := run(t, "lint", garbage, good)
	if code != exitUsage || !strings.Contains(stderr, "garbage.ndjson:1: ") || !strings.Contains(out, "no problems in 1 frame of 1 trace (1 unreadable)") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if code, out, _ := run(t, "lint", good); code != exitOK || out != "OK: no problems in 1 frame of 1 trace\n" {
		t.Fatalf("good trace: exit %d, output:\n%s", code, out)
	}
}

// v1Fixture is a v1 Client and Agent's trace: initialize, session/new, a
// prompt, and session/load on a new process.
const v1Fixture = "../../properties/conform/testdata/v1.ndjson"

// A trace whose Agent answered initialize as ACP v1 is checked against
// the v1 schema, said in one line with where it was read, and the key rules
// are said once not to apply; broken v1 frames are problems at their line;
// the same trace held to v2 is not clean, so the choice is what made it so.
func TestLintChecksAV1TraceAgainstTheV1Schema(t *testing.T) {
	code, out, errOut := run(t, "lint", v1Fixture)
	want := v1Fixture + ": schema: ACP v1 (the Agent answered initialize with protocolVersion 1 at line 5)\n" +
		"key rules: not applicable to ACP v1 (the idempotency RFD extends ACP v2), not run on 1 trace\n" +
		"OK: no problems in 14 frames of 1 trace\n"
	if code != exitOK || out != want || errOut != "" {
		t.Fatalf("exit %d, stderr %q, output:\n%s\nwant:\n%s", code, errOut, out, want)
	}

	b, err := os.ReadFile(v1Fixture)
	if err != nil {
		t.Fatal(err)
	}
	// session/new without mcpServers (line 6; session/load keeps its own),
	// the prompt answered without a stop reason (line 11).
	broken := strings.Replace(string(b), `,\"mcpServers\":[]}}`, `}}`, 1)
	broken = strings.Replace(broken, `{\"stopReason\":\"end_turn\"}`, `{}`, 1)
	if broken == string(b) {
		t.Fatal("the fixture changed: the edits no longer apply")
	}
	path := filepath.Join(t.TempDir(), "broken.ndjson")
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "lint", path)
	for _, w := range []string{
		path + ": schema: ACP v1 (the Agent answered initialize with protocolVersion 1 at line 5)\n",
		path + ":6: seq 5 link c1:a1#1 dir c2a: schema: session/new request (params: NewSessionRequest): missing property 'mcpServers' (at /params)\n",
		path + ":11: seq 10 link c1:a1#1 dir a2c: schema: response to session/prompt (result: PromptResponse): missing property 'stopReason' (at /result)\n",
		"FAIL: 2 problems (schema 2) in 14 frames of 1 trace\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("broken: no %q in:\n%s", w, out)
		}
	}
	if code != exitAnomaly {
		t.Errorf("broken: exit %d, want %d", code, exitAnomaly)
	}

	// Pinned to v2, by the flag or its twin: the v1 trace is not clean.
	for _, args := range [][]string{{"lint", "--protocol", "2", v1Fixture}, {"lint", v1Fixture}} {
		if len(args) == 2 {
			t.Setenv("ACPSIM_PROTOCOL", "2")
		}
		code, out, _ = run(t, args...)
		first, _, _ := strings.Cut(out, "\n")
		if code != exitAnomaly || first != v1Fixture+": schema: ACP v2 (--protocol 2; the Agent answered initialize with protocolVersion 1 at line 5)" ||
			!strings.Contains(out, "missing property 'messageId'") || strings.Contains(out, "key rules:") {
			t.Errorf("%q: exit %d, output:\n%s", args, code, out)
		}
	}
}

// A v2 trace lints as it did, with no schema line; pinned to v1, it says
// so and is not clean.
func TestLintOfAV2TraceWithTheProtocolPinned(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v2.ndjson")
	if code, out, _ := run(t, "run", "--seed", "1", "--prompts", "1", "--trace", path); code != exitOK {
		t.Fatalf("run: exit %d:\n%s", code, out)
	}
	for _, protocol := range []string{"auto", "2"} {
		code, out, _ := run(t, "lint", "--protocol", protocol, path)
		if code != exitOK || !strings.HasPrefix(out, "OK: no problems in ") || strings.Count(out, "\n") != 1 {
			t.Errorf("--protocol %s: exit %d, output:\n%s", protocol, code, out)
		}
	}
	code, out, _ := run(t, "lint", "--protocol", "1", path)
	if code != exitAnomaly || !strings.HasPrefix(out, path+": schema: ACP v1 (--protocol 1; the Agent answered initialize with protocolVersion 2 at line ") ||
		!strings.Contains(out, "missing property 'stopReason'") || !strings.Contains(out, "key rules: not applicable to ACP v1") {
		t.Errorf("--protocol 1: exit %d, output:\n%s", code, out)
	}
}
