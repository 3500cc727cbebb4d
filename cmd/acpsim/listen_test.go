package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault/realmode/dial"
)

// listeningAgent is `acpsim agent --listen 127.0.0.1:0 args…` as a real
// process, with the URL it printed as its first line on stdout.
type listeningAgent struct {
	url  string
	cmd  *exec.Cmd
	exit chan int
}

func startListening(t *testing.T, env []string, args ...string) *listeningAgent {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"agent", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1"), env...)
	var stderr bytes.Buffer // read once the process has exited
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &listeningAgent{cmd: cmd, exit: make(chan int, 1)}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") || !strings.HasSuffix(line, "/acp\n") {
		_ = cmd.Process.Kill()
		t.Fatalf("first line on stdout %q (%v), want the URL", line, err)
	}
	p.url = strings.TrimSpace(line)
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			p.exit <- ee.ExitCode()
		case err != nil:
			p.exit <- -1
		default:
			p.exit <- 0
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exit
		if t.Failed() {
			t.Logf("acpsim agent %s stderr:\n%s", strings.Join(args, " "), stderr.String())
		}
	})
	return p
}

// waitExit returns the process's exit code, failing after 10s.
func (p *listeningAgent) waitExit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-p.exit:
		p.exit <- code // for the cleanup
		return code
	case <-time.After(10 * time.Second):
		t.Fatal("the agent process did not exit")
	}
	return 0
}

// remote is a bare Client on a dial.Conn.
type remote struct {
	t *testing.T
	c dial.Conn
	n int64
}

func dialRemote(t *testing.T, url string) *remote {
	t.Helper()
	c, err := dial.Remote(context.Background(), url, dial.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &remote{t: t, c: c}
}

func (r *remote) send(method string, params any) (acp.ID, error) {
	r.n++
	id := acp.NumID(r.n)
	return id, r.c.Send(acp.Request(id, method, params))
}

// call sends a request and returns its response, and every frame read
// before it.
func (r *remote) call(method string, params any) (resp acp.Message, before []string) {
	r.t.Helper()
	id, err := r.send(method, params)
	if err != nil {
		r.t.Fatalf("%s: %v", method, err)
	}
	for {
		select {
		case f, ok := <-r.c.Frames():
			if !ok {
				r.t.Fatalf("%s: connection ended: %v", method, r.c.Err())
			}
			var m acp.Message
			if json.Unmarshal(f, &m) == nil && m.Kind() == acp.KindResponse && m.ID == id {
				return m, before
			}
			before = append(before, string(f))
		case <-time.After(5 * time.Second):
			r.t.Fatalf("%s: no response for 5s", method)
		}
	}
}

// `acpsim agent --listen` stops at an enabled failpoint as on stdio: the
// prompt's message and key binding are stored, the process exits 137 before
// the response is written, and another process on the same store answers
// the keyed retry (over WebSocket) with the stored message, held once. A
// SIGTERM then stops that process cleanly.
func TestAgentListenExitsAtAFailpoint(t *testing.T) {
	db := filepath.Join(t.TempDir(), "agent.db")
	a := startListening(t, []string{"GO_FAILPOINTS=acpsim/agent/respond-prompt=return(true)"}, "--db", db)
	c := dialRemote(t, a.url)
	c.call(acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2})
	resp, _ := c.call(acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"})
	var ns acp.NewSessionResult
	if err := json.Unmarshal(resp.Result, &ns); err != nil || ns.SessionID == "" {
		t.Fatalf("session/new: %s", resp.Result)
	}
	prompt := acp.PromptParams{SessionID: ns.SessionID, Prompt: []acp.ContentBlock{acp.Text("hi")}, IdempotencyKey: acp.KeyJSON("K1")}
	if _, err := c.send(acp.MethodSessionPrompt, prompt); err == nil {
		t.Fatal("the prompt's POST was answered: the process should have died first")
	}
	if code := a.waitExit(t); code != exitFailpoint {
		t.Fatalf("exit %d, want %d (stopped at the failpoint)", code, exitFailpoint)
	}
	for f := range c.c.Frames() { // the Conn ends once its streams cannot be reopened
		if strings.Contains(string(f), `"id":3`) {
			t.Fatalf("the prompt was answered before the failpoint: %s", f)
		}
	}

	b := startListening(t, nil, "--db", db)
	d := dialRemote(t, "ws"+strings.TrimPrefix(b.url, "http"))
	d.call(acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2})
	d.call(acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: ns.SessionID, Cwd: "/w"})
	resp, _ = d.call(acp.MethodSessionPrompt, prompt)
	var pr acp.PromptResult
	if err := json.Unmarshal(resp.Result, &pr); err != nil || pr.MessageID == "" {
		t.Fatalf("retry: %s %v", resp.Result, resp.Error)
	}
	// Over WebSocket the replay comes before the resume's response.
	_, replay := d.call(acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: ns.SessionID, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}})
	var users []string
	for _, f := range replay {
		if strings.Contains(f, `"sessionUpdate":"user_message"`) {
			users = append(users, f)
		}
	}
	if len(users) != 1 || !strings.Contains(users[0], pr.MessageID) {
		t.Fatalf("the session holds %q; the retry was answered %s", users, pr.MessageID)
	}

	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := b.waitExit(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0", code)
	}
	select {
	case <-drained(d.c):
	case <-time.After(5 * time.Second):
		t.Fatal("the WebSocket did not end with the process")
	}
}

func drained(c dial.Conn) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for range c.Frames() {
		}
		close(done)
	}()
	return done
}
