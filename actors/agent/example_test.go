package agent_test

import (
	"fmt"
	"strconv"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/sim"
)

// The reference Agent is a state machine: feed it frames, get its outputs.
// A keyed retry is answered with the original messageId and nothing else.
func ExampleNew() {
	n := 0
	a := agent.New(agent.DefaultKnobs(), store.NewDisk(), agent.Env{
		Name:   "a1#1",
		Choose: sim.Healthy{}.Choose,
		NewID:  func() string { n++; return "id" + strconv.Itoa(n) },
	})
	show := func(outs []agent.Output) {
		for _, o := range outs {
			if o.Kind == agent.OutSend {
				fmt.Printf("%-20s %s\n", o.Step, o.Frame)
			}
		}
	}
	a.Connect("c1")
	a.Receive("c1", acp.Request(acp.NumID(0), acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion}))
	a.Receive("c1", acp.Request(acp.NumID(1), acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"}))
	prompt := acp.PromptParams{SessionID: "id1", Prompt: []acp.ContentBlock{acp.Text("hi")}, IdempotencyKey: acp.KeyJSON("K1")}
	show(a.Receive("c1", acp.Request(acp.NumID(2), acp.MethodSessionPrompt, prompt)))
	show(a.Receive("c1", acp.Request(acp.NumID(3), acp.MethodSessionPrompt, prompt)))
	// Output:
	// respond-prompt       {"jsonrpc":"2.0","id":2,"result":{"messageId":"id2"}}
	// update-user-message  {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"id1","update":{"sessionUpdate":"user_message","messageId":"id2","content":[{"type":"text","text":"hi"}]}}}
	// update-running       {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"id1","update":{"sessionUpdate":"state_update","state":"running"}}}
	// respond-from-binding {"jsonrpc":"2.0","id":3,"result":{"messageId":"id2"}}
}
