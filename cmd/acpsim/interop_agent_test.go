package main

// The SDK's Agents of interop/ as real processes, spoken to in raw ndjson:
// what a keyed Agent keeps across a SIGKILL.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// agentProc is a Node Agent of this folder run as a real process, spoken to
// in raw ndjson.
type agentProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin interface {
		Write([]byte) (int, error)
		Close() error
	}
	lines chan string
}

func startAgent(t *testing.T, script, store string) *agentProc {
	t.Helper()
	cmd := exec.Command("node", script, "--store", store)
	cmd.Dir = interopDir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &agentProc{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

func (p *agentProc) send(id int, method string, params any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("write %s: %v", method, err)
	}
}

// await reads lines until the response to id, returning it and the
// session/update params read on the way.
func (p *agentProc) await(id int) (resp struct {
	Result json.RawMessage
	Error  *struct{ Code int }
}, updates []json.RawMessage) {
	p.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the Agent's stdout ended before the response to %d", id)
			}
			var m struct {
				ID     *int
				Method string
				Params json.RawMessage
				Result json.RawMessage
				Error  *struct{ Code int }
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				p.t.Fatalf("not JSON on stdout: %q", l)
			}
			if m.Method == "session/update" {
				updates = append(updates, m.Params)
			}
			if m.ID != nil && *m.ID == id && m.Method == "" {
				resp.Result, resp.Error = m.Result, m.Error
				return resp, updates
			}
		case <-timeout:
			p.t.Fatalf("no response to %d in 10s", id)
		}
	}
}

func (p *agentProc) call(id int, method string, params any) (json.RawMessage, []json.RawMessage) {
	p.t.Helper()
	p.send(id, method, params)
	resp, updates := p.await(id)
	if resp.Error != nil {
		p.t.Fatalf("%s: error %d", method, resp.Error.Code)
	}
	return resp.Result, updates
}

func (p *agentProc) initialize() {
	p.call(1, "initialize", map[string]any{"protocolVersion": 2, "info": map[string]string{"name": "interop-test", "version": "0"}, "capabilities": map[string]any{}})
}

// SIGKILL at any moment, restart on the same --store: every key keeps the
// messageId it was first answered with, and no submission is in the
// session twice. Each round starts a process, resends every key so far
// (answered from the store) and one new one, and kills the process after a
// varying delay, often in the middle of a turn.
func TestKeyedAgentSurvivesSIGKILL(t *testing.T) {
	requireNode(t)
	store := t.TempDir()
	p := startAgent(t, "keyed-agent.mjs", store)
	p.initialize()
	res, _ := p.call(2, "session/new", map[string]string{"cwd": "/w"})
	var sid struct{ SessionID string }
	_ = json.Unmarshal(res, &sid)
	_ = p.cmd.Process.Kill()

	ids := map[string]string{} // key → the messageId it was first answered with
	prompt := func(key string) map[string]any {
		return map[string]any{"sessionId": sid.SessionID, "prompt": []map[string]string{{"type": "text", "text": "text of " + key}}, "idempotencyKey": key}
	}
	var keys []string
	for round := 0; round < 9; round++ { // the last round (even) waits for every answer
		p := startAgent(t, "keyed-agent.mjs", store)
		p.initialize()
		p.call(2, "session/resume", map[string]string{"sessionId": sid.SessionID, "cwd": "/w"})
		keys = append(keys, fmt.Sprintf("key-%d", round))
		for i, k := range keys {
			p.send(10+i, "session/prompt", prompt(k))
		}
		// The last key's prompt may be held behind the new turns of
		// earlier ones that a previous kill left uninserted; wait for it
		// on even rounds, kill mid-flight on odd ones.
		if round%2 == 0 {
			for i, k := range keys {
				resp, _ := p.await(10 + i)
				var r struct{ MessageID string }
				if resp.Error != nil || json.Unmarshal(resp.Result, &r) != nil || r.MessageID == "" {
					t.Fatalf("round %d: prompt %s answered %+v", round, k, resp)
				}
				if old, ok := ids[k]; ok && old != r.MessageID {
					t.Fatalf("round %d: key %s answered %s, earlier %s", round, k, r.MessageID, old)
				}
				ids[k] = r.MessageID
			}
		}
		time.Sleep(time.Duration(round*7) * time.Millisecond)
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
	// The transcript: each key's text once, under the id it was answered with.
	p = startAgent(t, "keyed-agent.mjs", store)
	p.initialize()
	_, updates := p.call(2, "session/resume", map[string]any{"sessionId": sid.SessionID, "cwd": "/w", "replayFrom": map[string]string{"type": "start"}})
	texts := map[string]string{} // messageId → text
	var order []string
	for _, u := range updates {
		var n struct {
			Update struct {
				SessionUpdate, MessageID string
				Content                  struct{ Text string }
			}
		}
		_ = json.Unmarshal(u, &n)
		if n.Update.SessionUpdate != "user_message_chunk" {
			continue
		}
		if _, seen := texts[n.Update.MessageID]; !seen {
			order = append(order, n.Update.MessageID)
		}
		texts[n.Update.MessageID] += n.Update.Content.Text
	}
	seen := map[string]string{}
	for _, id := range order {
		if other, dup := seen[texts[id]]; dup {
			t.Errorf("%q is in the session twice: %s and %s", texts[id], other, id)
		}
		seen[texts[id]] = id
	}
	for k, id := range ids {
		if texts[id] != "text of "+k {
			t.Errorf("key %s was answered %s, which the session holds as %q", k, id, texts[id])
		}
	}
	if len(order) != len(keys) {
		t.Errorf("the session holds %d user messages, want one per key (%d): %v", len(order), len(keys), texts)
	}
	// Closing stdin ends the process with status 0.
	_ = p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("after stdin closed: %v, want exit 0", err)
	}
}
