package serve_test

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault/realmode/serve"
	"github.com/acpsim/acpsim/sim"
)

// The reference Agent over real pipes: a keyed prompt and its retry get one
// messageId, garbage gets -32700 and the process goes on, work arrives on the
// wall clock, and closing stdin ends the process cleanly.
func TestServeStdioSpeaksACP(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	disk := store.NewDisk()
	n := 0
	k := agent.DefaultKnobs()
	k.ChunkEvery = time.Millisecond
	m := agent.New(k, disk, agent.Env{Name: "a", Choose: sim.Healthy{}.Choose, NewID: func() string { n++; return "id" + string(rune('0'+n)) }})
	done := make(chan error, 1)
	go func() { done <- serve.Stdio(m, disk, inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	next := func() acp.Message {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("no more output: %v", lines.Err())
		}
		var msg acp.Message
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Fatalf("output is not JSON-RPC: %q", lines.Text())
		}
		return msg
	}
	// response waits for the answer to id, skipping updates.
	response := func(id acp.ID) acp.Message {
		t.Helper()
		for {
			if m := next(); m.Kind() == acp.KindResponse && m.ID == id {
				return m
			}
		}
	}
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(string(acp.Request(acp.NumID(1), acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2})))
	response(acp.NumID(1))
	send(string(acp.Request(acp.NumID(2), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"})))
	var ns acp.NewSessionResult
	_ = json.Unmarshal(response(acp.NumID(2)).Result, &ns)
	prompt := acp.PromptParams{SessionID: ns.SessionID, Prompt: []acp.ContentBlock{acp.Text("hi")}, IdempotencyKey: acp.KeyJSON("K")}
	send(string(acp.Request(acp.NumID(3), acp.MethodSessionPrompt, prompt)))
	first := response(acp.NumID(3))
	send("this is not json")
	if m := next(); m.Error == nil || m.Error.Code != acp.CodeParseError {
		for m.Kind() != acp.KindResponse { // updates of the running work may come first
			m = next()
		}
		if m.Error == nil || m.Error.Code != acp.CodeParseError {
			t.Fatalf("garbage answered %+v, want -32700", m)
		}
	}
	send(string(acp.Request(acp.NumID(4), acp.MethodSessionPrompt, prompt)))
	retry := response(acp.NumID(4))
	if string(first.Result) != string(retry.Result) || !strings.Contains(string(first.Result), "messageId") {
		t.Fatalf("first %s, retry %s: want the same messageId", first.Result, retry.Result)
	}
	// A real stdout is an OS pipe with a buffer; io.Pipe has none, so the
	// chunks of the running work would block the Agent if nobody read them.
	go io.Copy(io.Discard, outR) // ends when serve closes outW
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("closing stdin did not end the process")
	}
}

// An adapter's runtime write is another process's: a process that ends
// on end of input before the write is due still leaves it stored, as the
// simulator lands it after the process is gone.
func TestServeStdioLandsTheRuntimesWritesBeforeItEnds(t *testing.T) {
	inR, inW := io.Pipe()
	disk := store.NewDisk()
	k := agent.DefaultKnobs()
	k.RuntimeDelay = 300 * time.Millisecond // the start-up wait, and the write's delay
	n := 0
	m := agent.NewAdapter(k, disk, agent.Env{Name: "a", Choose: sim.Healthy{}.Choose, NewID: func() string { n++; return "id" + string(rune('0'+n)) }}, agent.StoredUserIDs)
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serve.Stdio(m, disk, inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	response := func(id acp.ID) acp.Message {
		t.Helper()
		for lines.Scan() {
			var msg acp.Message
			if json.Unmarshal(lines.Bytes(), &msg) == nil && msg.Kind() == acp.KindResponse && msg.ID == id {
				return msg
			}
		}
		t.Fatalf("no answer to %v: %v", id, lines.Err())
		return acp.Message{}
	}
	send := func(b []byte) {
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	send(acp.Request(acp.NumID(1), acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2}))
	response(acp.NumID(1))
	send(acp.Request(acp.NumID(2), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"}))
	var ns acp.NewSessionResult
	_ = json.Unmarshal(response(acp.NumID(2)).Result, &ns)
	send(acp.Request(acp.NumID(3), acp.MethodSessionPrompt, acp.PromptParams{SessionID: ns.SessionID, Prompt: []acp.ContentBlock{acp.Text("hi")}, IdempotencyKey: acp.KeyJSON("K")}))
	if r := response(acp.NumID(3)); r.Error != nil {
		t.Fatalf("prompt answered %+v", r.Error)
	}
	go io.Copy(io.Discard, outR)
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if msgs := disk.Messages(ns.SessionID); len(msgs) != 1 {
		t.Fatalf("the session holds %d messages after the process ended, want the runtime's one", len(msgs))
	}
}
