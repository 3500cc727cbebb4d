package conform_test

import (
	"fmt"

	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/traces"
)

func ExampleFrame() {
	prompt := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":""}}`
	for _, p := range conform.Frame(traces.ClientToAgent, []byte(prompt), "") {
		fmt.Println(p)
	}
	// A response is checked against the result of the method it answers.
	for _, p := range conform.Frame(traces.AgentToClient, []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`), "session/prompt") {
		fmt.Println(p)
	}
	// Output:
	// dir c2a: schema: session/prompt request (params: PromptRequest): minLength: got 0, want 1 (at /params/idempotencyKey)
	// dir a2c: schema: response to session/prompt (result: PromptResponse): missing property 'messageId' (at /result)
}

func ExampleTrace() {
	events := []traces.Event{
		{Seq: 1, Kind: traces.KindSend, Link: "c1:a1#1", From: "c1", To: "a1#1", Dir: traces.ClientToAgent,
			Frame: `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","idempotencyKey":"k1"}}`},
		{Seq: 2, Kind: traces.KindSend, Link: "c1:a1#1", From: "a1#1", To: "c1", Dir: traces.AgentToClient,
			Frame: `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`},
		{Seq: 3, Kind: traces.KindSend, Link: "c1:a1#1", From: "c1", To: "a1#1", Dir: traces.ClientToAgent,
			Frame: `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}],"_meta":{"idempotencyKey":"k2"}}}`},
	}
	for _, p := range conform.Trace(events) {
		fmt.Println(p)
	}
	// Output:
	// seq 1 link c1:a1#1 dir c2a: key-wrong-method: idempotencyKey in a session/new request: only session/prompt takes a key (at /params/idempotencyKey)
	// seq 3 link c1:a1#1 dir c2a: id-reused: request id 2 was already used by this side on this link (seq 1, session/new): expected a new id per request (at /id)
	// seq 3 link c1:a1#1 dir c2a: key-in-meta: idempotencyKey inside _meta: expected it directly in session/prompt params, and never in what an Agent sends (at /params/_meta/idempotencyKey)
}

// A trace is checked against the schema its peers negotiated: here the
// Agent answered initialize as ACP v1, so the prompt's answer is held to
// v1's PromptResponse (stopReason) rather than v2's (messageId).
func ExampleTraceVersion() {
	send := func(seq int64, dir, frame string) traces.Event {
		return traces.Event{Seq: seq, Kind: traces.KindSend, Link: "c1:a1#1", Dir: dir, Frame: frame}
	}
	events := []traces.Event{
		send(1, traces.ClientToAgent, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`),
		send(2, traces.AgentToClient, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`),
		send(3, traces.ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w"}}`),
		send(4, traces.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`),
		send(5, traces.ClientToAgent, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`),
		send(6, traces.AgentToClient, `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`),
	}
	n := conform.Negotiated(events)
	fmt.Printf("ACP v%d: %s (seq %d)\n", n.Version, n.Why, n.Seq)
	for _, p := range conform.TraceVersion(n.Version, events) {
		fmt.Println(p)
	}
	// Output:
	// ACP v1: the Agent answered initialize with protocolVersion 1 (seq 2)
	// seq 3 link c1:a1#1 dir c2a: schema: session/new request (params: NewSessionRequest): missing property 'mcpServers' (at /params)
}

// FrameVersion checks one frame against one version's schema.
func ExampleFrameVersion() {
	answer := []byte(`{"jsonrpc":"2.0","id":2,"result":{"messageId":"m1"}}`)
	for _, version := range []int{conform.V1, conform.V2} {
		fmt.Printf("v%d: %v\n", version, conform.FrameVersion(version, traces.AgentToClient, answer, "session/prompt"))
	}
	// Output:
	// v1: [dir a2c: schema: response to session/prompt (result: PromptResponse): missing property 'stopReason' (at /result)]
	// v2: []
}
