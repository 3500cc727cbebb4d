// This file reads which protocol version a trace's peers settled on, so a
// trace is held to the schema its peers agreed to speak rather than to the
// one acpsim speaks.

package conform

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Negotiation is the protocol version a trace's initialize settled on, and
// what showed it.
type Negotiation struct {
	// Version is V1 or V2; V2 when nothing in the trace says v1.
	Version int
	// Why says what showed it, for a reader: "the Agent answered
	// initialize with protocolVersion 1", "no initialize in the trace", ...
	Why string
	// Seq is the send event that showed it, 0 when none did.
	Seq int64
}

// Negotiated reads the initialize exchange of a trace's send events. In
// ACP the Client proposes a version and the Agent's answer decides, so
// the first successful answer to an initialize request decides: v1 when
// acp.ReadPeerVersion reads it as v1 (protocolVersion 1, or v1's field
// names without v2's), v2 otherwise. With no answer in the trace, the
// first initialize request speaks for its Client the same way. A trace is
// checked against one schema: a later answer that disagrees is not read.
func Negotiated(events []traces.Event) Negotiation {
	asked := map[string]map[string]bool{} // link → ids of initialize requests
	var ask *Negotiation
	for _, e := range events {
		if e.Kind != traces.KindSend {
			continue
		}
		switch e.Dir {
		case traces.ClientToAgent:
			if !bytes.Contains([]byte(e.Frame), []byte(`"initialize"`)) {
				continue
			}
			for _, m := range messages([]byte(e.Frame)) {
				if m.kind != kindRequest || m.method != acp.MethodInitialize || m.id == "" {
					continue
				}
				if asked[e.Link] == nil {
					asked[e.Link] = map[string]bool{}
				}
				asked[e.Link][m.id] = true
				if ask == nil {
					n := fromPeer(m.obj["params"], "the Client asked initialize with", e.Seq)
					n.Why += ", and no answer to it is in the trace"
					ask = &n
				}
			}
		case traces.AgentToClient:
			if len(asked[e.Link]) == 0 {
				continue
			}
			for _, m := range messages([]byte(e.Frame)) {
				if m.kind == kindResult && asked[e.Link][m.id] {
					return fromPeer(m.obj["result"], "the Agent answered initialize with", e.Seq)
				}
			}
		}
	}
	if ask != nil {
		return *ask
	}
	return Negotiation{Version: V2, Why: "no initialize in the trace"}
}

// fromPeer reads an initialize params or result, decoded.
func fromPeer(v any, what string, seq int64) Negotiation {
	raw, _ := json.Marshal(v)
	p := acp.ReadPeerVersion(raw)
	switch {
	case p.V1:
		return Negotiation{Version: V1, Why: what + " " + p.Why, Seq: seq}
	case p.Version != 0:
		return Negotiation{Version: V2, Why: fmt.Sprintf("%s protocolVersion %d", what, p.Version), Seq: seq}
	}
	return Negotiation{Version: V2, Why: what + " neither a protocolVersion nor v1's field names", Seq: seq}
}

// messages decodes a frame's JSON-RPC messages, none when it is not JSON;
// what is wrong with it is the check's to say, not this reader's.
func messages(frame []byte) []jsonrpcMsg {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(frame))
	if err != nil {
		return nil
	}
	var objs []any
	switch v := v.(type) {
	case map[string]any:
		objs = []any{v}
	case []any:
		objs = v
	}
	var out []jsonrpcMsg
	for _, o := range objs {
		obj, ok := o.(map[string]any)
		if !ok {
			continue
		}
		m := jsonrpcMsg{obj: obj}
		if classify(&m) {
			out = append(out, m)
		}
	}
	return out
}
