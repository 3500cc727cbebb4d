// The interop tests with the official TypeScript SDK,
// @agentclientprotocol/sdk 2.4.0: ../../interop/client.mjs (a Client written
// against the SDK) talks to `acpsim agent` and to the two SDK Agents of that
// folder, and every frame both ways is validated against the ACP v2 schema by
// package conform. The Node side needs `npm install --prefix interop` (make
// interop/node_modules); without it these tests fail, they never skip. This
// test binary plays the acpsim executable (TestMain, ACPSIM_TEST_AS_MAIN).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/traces"
)

// requireNode fails the test unless node and the SDK are installed.
func requireNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the interop tests need Node.js 20+ and `npm install --prefix interop` (make interop/node_modules)")
	}
	requireInteropPackage(t, "@agentclientprotocol/sdk")
}

// requireInteropPackage fails the test when interop/node_modules lacks the
// npm package name, which make test installs from interop's lockfile.
func requireInteropPackage(t *testing.T, name string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(interopDir, "node_modules", name, "package.json")); err != nil {
		t.Fatalf("interop/node_modules is missing %s: run `npm install --prefix interop` (or make interop/node_modules)", name)
	}
}

// interopDir holds the Node programs and their node_modules.
var interopDir = func() string {
	d, err := filepath.Abs(filepath.Join("..", "..", "interop"))
	if err != nil {
		panic(err)
	}
	return d
}()

// acpsim returns the executable that runs as acpsim: this test binary, with
// ACPSIM_TEST_AS_MAIN=1 set for the processes the test starts (node passes
// it on to the acpsim it spawns).
func acpsim(t *testing.T) string {
	t.Helper()
	t.Setenv("ACPSIM_TEST_AS_MAIN", "1")
	return os.Args[0]
}

// message is a user message as client.mjs folds it from updates.
type message struct {
	MessageID string `json:"messageId"`
	Text      string `json:"text"`
}

// summary is client.mjs's output line.
type summary struct {
	Transport         string `json:"transport"`
	Agent             struct{ Name string }
	SessionID         string    `json:"sessionId"`
	First             string    `json:"first"`
	Retry             string    `json:"retry"`
	SameMessageID     bool      `json:"sameMessageId"`
	Idle              bool      `json:"idle"`
	Live              []message `json:"live"`
	ReplayBeforeRetry []message `json:"replayBeforeRetry"`
	ReplayAfterRetry  []message `json:"replayAfterRetry"`
	UserMessages      int       `json:"userMessages"`
	EmptyKey          struct {
		Code      int    `json:"code"`
		MessageID string `json:"messageId"`
	} `json:"emptyKey"`
	Error string `json:"error"`
}

// logged is one line of client.mjs --frames.
type logged struct {
	Conn  int             `json:"conn"`
	Dir   string          `json:"dir"`
	Frame json.RawMessage `json:"frame"`
}

// runClient runs client.mjs with args after --frames and returns its
// summary and the frames it logged.
func runClient(t *testing.T, node []string, args ...string) (summary, []logged) {
	t.Helper()
	framesFile := filepath.Join(t.TempDir(), "frames.ndjson")
	cmdArgs := append(append(node, "client.mjs", "--frames", framesFile), args...)
	cmd := exec.Command("node", cmdArgs...)
	cmd.Dir = interopDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done // its output is whole once it has exited
		last, _ := os.ReadFile(framesFile)
		lines := strings.Split(strings.TrimSpace(string(last)), "\n")
		t.Fatalf("client.mjs did not finish in 60s; stdout:\n%s\nstderr:\n%s\nits last frames (of %d):\n%s",
			stdout.String(), stderr.String(), len(lines), strings.Join(lines[max(0, len(lines)-12):], "\n"))
	}
	var s summary
	line := strings.TrimSpace(stdout.String())
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	if jerr := json.Unmarshal([]byte(line), &s); jerr != nil || err != nil || s.Error != "" {
		t.Fatalf("client.mjs: %v; summary %q; stderr:\n%s", err, line, stderr.String())
	}
	var frames []logged
	data, rerr := os.ReadFile(framesFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var f logged
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("frames log line %q: %v", sc.Text(), err)
		}
		frames = append(frames, f)
	}
	return s, frames
}

// emptyKeyProbe is the one frame client.mjs sends that is malformed on
// purpose: a session/prompt with idempotencyKey "" (the schema, as the RFD
// patches it, wants 1 to 255 characters).
func emptyKeyProbe(f logged) bool {
	var m struct {
		Method string
		Params struct {
			IdempotencyKey *string `json:"idempotencyKey"`
		}
	}
	return f.Dir == traces.ClientToAgent && json.Unmarshal(f.Frame, &m) == nil &&
		m.Method == "session/prompt" && m.Params.IdempotencyKey != nil && *m.Params.IdempotencyKey == ""
}

// checkFrames validates every logged frame with package conform, each
// connection as its own link so responses are checked against the result
// of the request they answer. The empty-key probe must be flagged, and
// nothing else may be.
func checkFrames(t *testing.T, frames []logged) {
	t.Helper()
	events := make([]traces.Event, len(frames))
	probes := map[int64]bool{}
	dirs := map[string]int{}
	for i, f := range frames {
		seq := int64(i + 1)
		events[i] = traces.Event{Seq: seq, Kind: traces.KindSend, Link: fmt.Sprintf("conn%d", f.Conn), Dir: f.Dir, Frame: string(f.Frame)}
		probes[seq] = emptyKeyProbe(f)
		dirs[fmt.Sprintf("conn%d %s", f.Conn, f.Dir)]++
	}
	for c := 1; c <= 3; c++ {
		for _, d := range []string{traces.ClientToAgent, traces.AgentToClient} {
			if dirs[fmt.Sprintf("conn%d %s", c, d)] == 0 {
				t.Errorf("no %s frame logged on connection %d", d, c)
			}
		}
	}
	flagged := false
	for _, p := range conform.Trace(events) {
		if probes[p.Seq] && p.Rule == conform.RuleSchema && strings.HasSuffix(p.Pointer, "/idempotencyKey") {
			flagged = true
			continue
		}
		t.Errorf("%v\n\tframe: %s", p, events[p.Seq-1].Frame)
	}
	if !flagged {
		t.Error(`conform did not flag the prompt with idempotencyKey "" (schema: 1 to 255 characters)`)
	}
	t.Logf("%d frames validated", len(frames))
}

// checkKeyed asserts what an Agent that honours keys shows the SDK Client:
// the retry on a new connection names the original message, which the
// session holds once, and "" is refused with -32602.
func checkKeyed(t *testing.T, s summary) {
	t.Helper()
	if s.First == "" || !s.SameMessageID || s.Retry != s.First {
		t.Errorf("the keyed retry was answered messageId %q, the first attempt %q: want the same", s.Retry, s.First)
	}
	if len(s.ReplayBeforeRetry) != 1 || s.ReplayBeforeRetry[0].MessageID != s.First {
		t.Errorf("replay before the retry: %+v, want the one message %s", s.ReplayBeforeRetry, s.First)
	}
	if s.UserMessages != 1 || len(s.ReplayAfterRetry) != 1 || s.ReplayAfterRetry[0].MessageID != s.First {
		t.Errorf("replay after the retry: %+v, want the one message %s (the retry must not insert)", s.ReplayAfterRetry, s.First)
	}
	if s.ReplayAfterRetry[0].Text != "interop: say hello" {
		t.Errorf("replayed text %q, want the prompt's", s.ReplayAfterRetry[0].Text)
	}
	if s.EmptyKey.Code != -32602 {
		t.Errorf(`idempotencyKey "" was answered %+v, want error -32602`, s.EmptyKey)
	}
	if !s.Idle {
		t.Error("the first turn never reported idle")
	}
}

// The SDK Client against acpsim's reference Agent as an executable over
// stdio: initialize, session/new, a keyed prompt; a new process: resume with
// replay, the same prompt and key; every frame conforms.
func TestSDKClientAcpsimAgentStdio(t *testing.T) {
	requireNode(t)
	bin := acpsim(t)
	s, frames := runClient(t, nil, "--", bin, "agent", "--db", filepath.Join(t.TempDir(), "a.db"))
	if s.Agent.Name != "acpsim-reference" {
		t.Errorf("agent %q, want acpsim-reference", s.Agent.Name)
	}
	checkKeyed(t, s)
	checkFrames(t, frames)
}

// The SDK Client against `acpsim agent --listen` over the SDK's own remote
// transports: Streamable HTTP (createHttpStream) and WebSocket
// (createWebSocketStream), one new connection per step, every frame
// conforming.
func TestSDKClientAcpsimAgentRemote(t *testing.T) {
	requireNode(t)
	cmd := exec.Command(acpsim(t), "agent", "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "a.db"))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	urls := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		urls <- strings.TrimSpace(line)
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(20 * time.Second):
		t.Fatal("acpsim agent --listen printed no URL in 20s")
	}
	if !strings.HasPrefix(url, "http://") {
		t.Fatalf("acpsim agent --listen printed %q, want its http:// URL", url)
	}
	// Node 20 has a global WebSocket only behind a flag (22+ has it by default).
	var wsFlags []string
	if exec.Command("node", "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)").Run() != nil {
		wsFlags = []string{"--experimental-websocket"}
	}
	for _, tr := range []struct {
		name, url string
		node      []string
		args      []string
	}{
		{"http", url, nil, nil},
		// The SDK POSTs session/new without waiting for the connection
		// stream's GET: the answer must wait for that GET, not be lost.
		{"http-late-sse", url, nil, []string{"--late-sse", "300"}},
		{"ws", "ws://" + strings.TrimPrefix(url, "http://"), wsFlags, nil},
	} {
		t.Run(tr.name, func(t *testing.T) {
			s, frames := runClient(t, tr.node, append(tr.args, "--url", tr.url)...)
			if want, _, _ := strings.Cut(tr.name, "-"); s.Transport != want || s.Agent.Name != "acpsim-reference" {
				t.Errorf("transport %q agent %q, want %s to acpsim-reference", s.Transport, s.Agent.Name, tr.name)
			}
			checkKeyed(t, s)
			checkFrames(t, frames)
		})
	}
}

// The keyed SDK Agent passes the same interop run: its other choices
// (response before the user message, chunks, msg_<n> ids) are legal.
func TestSDKClientKeyedAgent(t *testing.T) {
	requireNode(t)
	s, frames := runClient(t, nil, "--", "node", "keyed-agent.mjs", "--store", t.TempDir())
	checkKeyed(t, s)
	if !strings.HasPrefix(s.First, "msg_") {
		t.Errorf("messageId %q, want the keyed Agent's msg_<n>", s.First)
	}
	checkFrames(t, frames)
}

// The keyless SDK Agent duplicates: the retry is a second insertion. That
// is the point of it (acpsim check must catch it), so this asserts the
// duplicate.
func TestSDKClientKeylessAgentDuplicates(t *testing.T) {
	requireNode(t)
	s, frames := runClient(t, nil, "--", "node", "keyless-agent.mjs", "--store", t.TempDir())
	if s.First == "" || s.Retry == "" || s.SameMessageID {
		t.Errorf("first %q, retry %q: want two different messageIds (the keyless Agent inserts again)", s.First, s.Retry)
	}
	if s.UserMessages != 2 {
		t.Errorf("replay after the retry holds %d user messages, want 2 (the duplicate): %+v", s.UserMessages, s.ReplayAfterRetry)
	}
	if s.EmptyKey.MessageID == "" {
		t.Errorf(`idempotencyKey "" was answered %+v: the keyless Agent (like the SDK) should accept it`, s.EmptyKey)
	}
	checkFrames(t, frames)
}

// acpsim check against the two SDK Agents over stdio (issue 6, point 5):
// the keyed one passes; the keyless one fails, naming the duplicate
// submissions its Clients' keyed retries cause after lost responses.
func TestAcpsimCheckSDKAgents(t *testing.T) {
	requireNode(t)
	bin := acpsim(t)
	check := func(t *testing.T, seeds int, script string) (string, int) {
		return execIn(t, t.TempDir(), bin, "check", "--seeds", fmt.Sprint(seeds), "--start-timeout", "30s", "--", "node", filepath.Join(interopDir, script))
	}
	t.Run("keyed passes", func(t *testing.T) {
		out, code := check(t, 4, "keyed-agent.mjs")
		if code != 0 {
			t.Fatalf("acpsim check exit %d, want 0:\n%s", code, out)
		}
	})
	t.Run("keyless duplicates", func(t *testing.T) {
		out, code := check(t, 6, "keyless-agent.mjs")
		if code != 1 || !strings.Contains(out, "duplicate") {
			t.Fatalf("acpsim check exit %d, want 1 naming duplicates:\n%s", code, out)
		}
	})
}
