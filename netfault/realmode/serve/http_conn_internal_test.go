package serve

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
)

// A frame the Agent writes for a connection that has just ended (a DELETE
// between the Agent's step and its delivery) is dropped: the connection's
// streams are gone, and a stream never opened must not be made for it.
func TestAFrameForAnEndedConnectionIsDropped(t *testing.T) {
	p := &httpPeer{id: "c", reqs: map[acp.ID]route{}, read: map[string]bool{}, gone: true} // as end() leaves it: streams nil
	p.deliver([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{"sessionUpdate":"state_update","state":"idle"}}}`))
	p.deliver([]byte(`{"jsonrpc":"2.0","id":7,"result":{"sessionId":"S"}}`))
	if p.streams != nil {
		t.Fatalf("streams %v after the connection ended, want none", p.streams)
	}
}
