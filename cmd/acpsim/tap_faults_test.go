package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// tapped is one `acpsim tap` process in front of `acpsim agent`, spoken to
// line by line.
type tapped struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startTap(t *testing.T, trace string, tapArgs ...string) *tapped {
	t.Helper()
	bin := acpsim(t)
	args := append([]string{"tap", "--trace", trace}, tapArgs...)
	cmd := exec.Command(bin, append(args, "--", bin, "agent")...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &tapped{cmd: cmd, in: in, out: bufio.NewReader(out)}
}

// call sends a request and returns the result of its answer ("" when the
// tap's stdout ended first).
func (p *tapped) call(t *testing.T, id int, method, params string) string {
	t.Helper()
	fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
	for {
		line, err := p.out.ReadString('\n')
		if err != nil {
			return ""
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && *m.ID == id {
			return string(m.Result)
		}
	}
}

const tapInit = `{"protocolVersion":2,"info":{"name":"t","version":"0"},"capabilities":{}}`

// With kill=1 the tap kills the Agent as it answers the first prompt: the
// Client never gets the answer, the tap exits as a killed Agent does, and
// the trace shows the drop and the kill, judged as a response lost after
// insertion.
func TestTapKillsTheAgentAsItAnswersAPrompt(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.ndjson")
	p := startTap(t, trace, "--fault-rates", "kill=1")
	p.call(t, 1, "initialize", tapInit)
	var s struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal([]byte(p.call(t, 2, "session/new", `{"cwd":"/tmp","mcpServers":[]}`)), &s)
	if got := p.call(t, 3, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}],"idempotencyKey":"k1"}`, s.SessionID)); got != "" {
		t.Fatalf("the prompt's answer reached the Client: %s", got)
	}
	p.in.Close()
	if err := p.cmd.Wait(); p.cmd.ProcessState.ExitCode() != 137 {
		t.Fatalf("tap exit %v, want 137 (killed)", err)
	}
	log, err := traces.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	kinds := ""
	for _, e := range log.Events {
		kinds += e.Kind + " "
	}
	if !strings.Contains(kinds, "send drop kill disconnect") {
		t.Fatalf("trace events %s: want the answer sent, dropped, and the Agent killed", kinds)
	}
	if out, code := acpsimRun(t, "judge", trace); code != 0 || !strings.Contains(out, "responses lost after insertion 1") || !strings.Contains(out, "not judged on a tap's trace") {
		t.Fatalf("judge: exit %d:\n%s", code, out)
	}
}

// Two taps at once on one trace (a Client that starts its next Agent before
// the last one is gone) append in turn: the trace reads, with one process
// each.
func TestTwoTapsShareATrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.ndjson")
	var wg sync.WaitGroup
	for range 2 {
		p := startTap(t, trace)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				p.call(t, i+1, "initialize", tapInit)
			}
			p.in.Close()
			p.cmd.Wait()
		}()
	}
	wg.Wait()
	log, err := traces.ReadFile(trace)
	if err != nil {
		t.Fatalf("the shared trace does not read: %v", err)
	}
	procs := map[string]int{}
	for _, e := range log.Events {
		if e.Kind == traces.KindSend {
			procs[e.Link]++
		}
	}
	if len(procs) != 2 || procs["c1:a1#1"] != 40 || procs["c1:a1#2"] != 40 {
		t.Fatalf("frames per link %v, want 40 on each of c1:a1#1 and c1:a1#2", procs)
	}
}
