package main

import (
	stdjson "encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
)

// legalIDs are JSON-RPC ids beyond the int64 and plain strings acpsim's own
// Clients send: every JSON number and string is legal, and comes back as
// the bytes the Client wrote.
var legalIDs = []string{`1e3`, `1E+3`, `0.0`, `-0`, `-7`, `1.5`, `9223372036854775808`, `18446744073709551616`,
	`"x"`, `"\u0061"`, `"a<b&c>"`, `"é"`, `""`, `null`}

// jsonrpcLines are what a Client that knows JSON-RPC 2.0 §6 may send after
// initialize: a batch with a valid request and an invalid entry, an empty
// batch, a batch of notifications alone (no answer), then a request per
// legal id.
func jsonrpcLines() []string {
	lines := []string{
		`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2}},{"foo":1}]`,
		`[]`,
		`[{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"none"}}]`,
	}
	for _, id := range legalIDs {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"session/list","params":{}}`)
	}
	return lines
}

// checkJSONRPCAnswers holds the answers to jsonrpcLines, in order, to what a
// Client must see: one array answering both entries of the batch, one error
// object for the empty batch, nothing for the notifications, and each
// request's id echoed byte for byte.
func checkJSONRPCAnswers(t *testing.T, got []string) {
	t.Helper()
	if want := 2 + len(legalIDs); len(got) != want {
		t.Fatalf("%d answers, want %d (one per batch with a request, one per request):\n%s", len(got), want, strings.Join(got, "\n"))
	}
	var batch []acp.Message
	if err := stdjson.Unmarshal([]byte(got[0]), &batch); err != nil {
		t.Fatalf("the batch is answered with %s, want one array: %v", got[0], err)
	}
	if len(batch) != 2 || batch[0].ID != "1" || batch[0].Result == nil ||
		batch[1].ID != "null" || batch[1].Error == nil || batch[1].Error.Code != acp.CodeInvalidRequest {
		t.Errorf("the batch is answered with %s, want the result to id 1 and a -32600 with id null", got[0])
	}
	var empty acp.Message
	if err := stdjson.Unmarshal([]byte(got[1]), &empty); err != nil || empty.Error == nil || empty.Error.Code != acp.CodeInvalidRequest || empty.ID != "null" {
		t.Errorf("the empty batch is answered with %s, want one -32600 error object with id null", got[1])
	}
	for i, id := range legalIDs {
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":`; !strings.HasPrefix(got[2+i], want) || !stdjson.Valid([]byte(got[2+i])) {
			t.Errorf("id %s is answered with %s, want a result beginning %s", id, got[2+i], want)
		}
	}
}

func TestAgentAnswersABatchOnceAndEveryIDAsSentOnStdio(t *testing.T) {
	out, code := acpsimProcess(t, nil, jsonrpcLines(), "agent")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	checkJSONRPCAnswers(t, out)
}

// The same over --listen: WebSocket carries batches to the same Agent.
// (Streamable HTTP refuses a batch with 501: TestHTTPStatuses.)
func TestAgentListenAnswersABatchOnceAndEveryIDAsSentOverWebSocket(t *testing.T) {
	p := startListening(t, nil)
	r := dialRemote(t, "ws"+strings.TrimPrefix(p.url, "http"))
	for _, l := range jsonrpcLines() {
		if err := r.c.Send([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for len(got) < 2+len(legalIDs) {
		select {
		case f, ok := <-r.c.Frames():
			if !ok {
				t.Fatalf("connection ended: %v", r.c.Err())
			}
			got = append(got, string(f))
		case <-time.After(5 * time.Second):
			t.Fatalf("no frame for 5s after:\n%s", strings.Join(got, "\n"))
		}
	}
	checkJSONRPCAnswers(t, got)
}

// Over Streamable HTTP the ids come back as sent too, on initialize's POST
// response and on the connection's stream.
func TestAgentListenAnswersEveryIDAsSentOverHTTP(t *testing.T) {
	p := startListening(t, nil)
	r := dialRemote(t, p.url)
	if err := r.c.Send([]byte(`{"jsonrpc":"2.0","id":7.25,"method":"initialize","params":{"protocolVersion":2}}`)); err != nil {
		t.Fatal(err)
	}
	want := append([]string{`7.25`}, legalIDs...)
	for _, id := range legalIDs {
		if err := r.c.Send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"session/list","params":{}}`)); err != nil {
			t.Fatalf("id %s: %v", id, err)
		}
	}
	seen := map[string]int{}
	for n := 0; n < len(want); n++ {
		select {
		case f, ok := <-r.c.Frames():
			if !ok {
				t.Fatalf("connection ended: %v", r.c.Err())
			}
			var m acp.Message
			if err := stdjson.Unmarshal(f, &m); err != nil || m.Kind() != acp.KindResponse || m.Error != nil {
				t.Fatalf("frame %s, want a result", f)
			}
			seen[string(m.ID)]++ // the id's token as it came: a respelled one is missed below
		case <-time.After(5 * time.Second):
			t.Fatalf("no frame for 5s; answered so far %v", seen)
		}
	}
	for _, id := range want {
		if seen[id] != 1 {
			t.Errorf("id %s answered %d times, want once (answered: %v)", id, seen[id], seen)
		}
	}
}
