package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The conductor bug of issue 30, driven by hand: a Client numbering its
// requests from 0 (as the official SDK's does) talks through a proxy that
// renumbers from 1 and forwards $/cancel_request unmapped
// (interop/renumbering-proxy.py) to the reference Agent, all recorded by
// acpsim tap. Prompt A runs, B and C are held; the Client cancels C. The
// proxy's cancel names the Agent's request 4, which is B: B is answered
// -32800 although nobody cancelled it, and C is inserted. judge names it
// stray-cancel. With --map-cancels the same frames withdraw C and judge
// finds no stray cancel.
func TestConductorUnmappedCancel(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is not on PATH: make deps installs it")
	}
	for _, tc := range []struct {
		name      string
		proxyArgs []string
		withdrawn string // the prompt answered -32800
		stray     bool
	}{
		{"unmapped", nil, "B", true},
		{"mapped", []string{"--map-cancels"}, "C", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace, answers := driveConductor(t, tc.proxyArgs)
			for name, ans := range answers {
				cancelled := strings.Contains(ans, "-32800")
				if cancelled != (name == tc.withdrawn) {
					t.Errorf("prompt %s was answered %s; want only %s withdrawn (-32800)", name, ans, tc.withdrawn)
				}
			}
			out, code := acpsimRun(t, "judge", trace)
			if got := strings.Contains(out, "stray-cancel"); got != tc.stray {
				t.Fatalf("judge (exit %d) names stray-cancel: %v, want %v:\n%s", code, got, tc.stray, out)
			}
			if tc.stray && (code != 1 || !strings.Contains(out, "nobody cancelled it")) {
				t.Fatalf("judge: exit %d, want 1 explaining the stray cancel:\n%s", code, out)
			}
		})
	}
}

// driveConductor runs the frames through tap → proxy → Agent and returns
// the trace and each prompt's answer (its JSON).
func driveConductor(t *testing.T, proxyArgs []string) (string, map[string]string) {
	t.Helper()
	bin := acpsim(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "conductor.ndjson")
	args := []string{"tap", "--trace", trace, "--", "python3", filepath.Join(interopDir, "renumbering-proxy.py")}
	args = append(append(args, proxyArgs...), "--", bin, "agent", "--db", filepath.Join(dir, "a.db"))
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	send := func(frames ...string) {
		if _, err := io.WriteString(stdin, strings.Join(frames, "\n")+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// await collects answers until every id in want is answered.
	answers := map[float64]string{}
	await := func(want ...float64) {
		deadline := time.After(20 * time.Second)
		for {
			done := true
			for _, id := range want {
				_, ok := answers[id]
				done = done && ok
			}
			if done {
				return
			}
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("the tap's stdout ended; answers so far %v", answers)
				}
				if id, isNum := m["id"].(float64); isNum && m["method"] == nil {
					b, _ := json.Marshal(m)
					answers[id] = string(b)
				}
			case <-deadline:
				t.Fatalf("no answer to %v in 20s; answers so far %v", want, answers)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"from-zero","version":"0"},"capabilities":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/work","mcpServers":[]}}`)
	await(0, 1)
	var res struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(answers[1]), &res); err != nil || res.Result.SessionID == "" {
		t.Fatalf("session/new answered %s", answers[1])
	}
	prompt := func(id int, text, key string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":%q}],"idempotencyKey":%q}}`,
			id, res.Result.SessionID, text, key)
	}
	// One write: A starts a turn, B and C are held behind it when the
	// cancel of C (the Client's request 4) arrives.
	send(prompt(2, "A: fix the tests", "key-a"), prompt(3, "B: rename the parser", "key-b"), prompt(4, "C: update the docs", "key-c"),
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":4}}`)
	await(2, 3, 4)
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tap exited: %v", err)
	}
	return trace, map[string]string{"A": answers[2], "B": answers[3], "C": answers[4]}
}
