package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
)

// TestMain lets a test start this test binary as the acpsim executable.
func TestMain(m *testing.M) {
	if os.Getenv("ACPSIM_TEST_AS_MAIN") == "1" {
		os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
	}
	if spec := os.Getenv(writeHistoryEnv); spec != "" {
		if err := writeHistoryMain(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// acpsimProcess runs `acpsim args…` as a real process fed the given lines on
// stdin, and returns what it wrote to stdout and its exit code.
func acpsimProcess(t *testing.T, env []string, lines []string, args ...string) (stdout []string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1"), env...)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		stdout = append(stdout, sc.Text())
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the agent process did not end")
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stdout, ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return stdout, 0
}

// GO_FAILPOINTS really stops the executable at the named protocol step: the
// prompt's message and key binding are stored, its response is never
// written, and the next process answers the keyed retry from the binding.
func TestAgentExitsAtAFailpoint(t *testing.T) {
	db := filepath.Join(t.TempDir(), "agent.db")
	init := string(acp.Request(acp.NumID(1), acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2}))
	out, code := acpsimProcess(t, nil, []string{init, string(acp.Request(acp.NumID(2), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"}))}, "agent", "--db", db)
	if code != 0 || len(out) != 2 {
		t.Fatalf("session/new run: exit %d, output %q", code, out)
	}
	var sid string
	if i := strings.Index(out[1], `"sessionId":"`); i >= 0 {
		sid = out[1][i+len(`"sessionId":"`):]
		sid = sid[:strings.IndexByte(sid, '"')]
	}
	prompt := string(acp.Request(acp.NumID(3), acp.MethodSessionPrompt, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.Text("hi")}, IdempotencyKey: acp.KeyJSON("K1")}))
	resume := string(acp.Request(acp.NumID(2), acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: sid, Cwd: "/w"}))
	out, code = acpsimProcess(t, []string{`GO_FAILPOINTS=acpsim/agent/respond-prompt=return(true)`}, []string{init, resume, prompt}, "agent", "--db", db)
	if code != exitFailpoint {
		t.Fatalf("exit %d, want %d (stopped at the failpoint); output %q", code, exitFailpoint, out)
	}
	for _, l := range out {
		if strings.Contains(l, `"id":3`) {
			t.Fatalf("the prompt was answered before the failpoint: %s", l)
		}
	}
	out, code = acpsimProcess(t, nil, []string{init, resume, prompt}, "agent", "--db", db)
	var answer string
	for _, l := range out {
		if strings.Contains(l, `"id":3`) {
			answer = l
		}
	}
	if code != 0 || !strings.Contains(answer, `"messageId"`) {
		t.Fatalf("retry after the crash: exit %d, answer %q", code, answer)
	}
	// The message the crashed process stored is the one the retry named:
	// the session holds it once.
	replay := string(acp.Request(acp.NumID(2), acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: sid, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}))
	out, _ = acpsimProcess(t, nil, []string{init, replay}, "agent", "--db", db)
	users := 0
	for _, l := range out {
		if strings.Contains(l, `"sessionUpdate":"user_message"`) {
			users++
			if id := answer[strings.Index(answer, `"messageId":"`)+len(`"messageId":"`):]; !strings.Contains(l, id[:strings.IndexByte(id, '"')]) {
				t.Fatalf("replayed %s, the retry was answered %s", l, answer)
			}
		}
	}
	if users != 1 {
		t.Fatalf("the session holds %d user messages, want 1: %q", users, out)
	}
	out, _ = acpsimProcess(t, nil, []string{init, resume, string(acp.Request(acp.NumID(4), acp.MethodSessionPrompt, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.Text("hi")}, IdempotencyKey: acp.KeyJSON("K1")}))}, "agent", "--db", db)
	for _, l := range out {
		if strings.Contains(l, `"id":4`) && l[strings.Index(l, "result"):] != answer[strings.Index(answer, "result"):] {
			t.Fatalf("a second retry got %s, the first %s", l, answer)
		}
	}
}
