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
