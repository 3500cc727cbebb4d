package checkclient_test

import (
	"fmt"

	"github.com/acpsim/acpsim/netfault/realmode/checkclient"
	"github.com/acpsim/acpsim/traces"
)

// Frames reads a check-client trace as the Client saw it: an Agent frame
// the tap dropped (here, the answer lost when the Agent process was
// killed) never reached the Client, so it is not among them.
func ExampleFrames() {
	prompt := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`
	answer := `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","messageId":"m1"}}`
	events := []traces.Event{
		{Seq: 1, Kind: traces.KindSend, Link: "c1:a1#1", Dir: traces.ClientToAgent, Frame: prompt},
		{Seq: 2, Kind: traces.KindSend, Link: "c1:a1#1", Dir: traces.AgentToClient, Frame: answer},
		{Seq: 3, Kind: traces.KindDrop, Link: "c1:a1#1", Dir: traces.AgentToClient, Frame: answer, Note: "killed"},
		{Seq: 4, Kind: traces.KindSend, Link: "c1:a1#2", Dir: traces.ClientToAgent, Frame: prompt},
	}
	for _, f := range checkclient.Frames(events) {
		fmt.Printf("process %d %s seq %d\n", f.Conn, f.Dir, f.Seq)
	}
	// Output:
	// process 1 c2a seq 1
	// process 2 c2a seq 4
}
