package dial_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"

	"github.com/google/uuid"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault/realmode/dial"
	"github.com/acpsim/acpsim/netfault/realmode/serve"
	"github.com/acpsim/acpsim/sim"
)

// A reference Agent listening on a free port, and a Client dialing it over
// Streamable HTTP (use ws:// for WebSocket). The first Send is initialize;
// its answer comes through Frames like every later one.
func ExampleRemote() {
	st := store.NewDisk()
	m := agent.New(agent.DefaultKnobs(), st, agent.Env{Name: "agent", Choose: sim.Healthy{}.Choose, NewID: uuid.NewString})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve.Remote(ctx, m, st, l) }()
	defer func() { stop(); <-served }()

	c, err := dial.Remote(ctx, serve.URL(l.Addr()), dial.Options{})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := c.Send(acp.Request(acp.NumID(1), acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2})); err != nil {
		panic(err)
	}
	var resp struct {
		Result acp.InitializeResult `json:"result"`
	}
	_ = json.Unmarshal(<-c.Frames(), &resp)
	fmt.Println("protocol version", resp.Result.ProtocolVersion, "on a connection named:", c.Name() != "")
	// Output: protocol version 2 on a connection named: true
}
