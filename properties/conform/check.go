// This file holds the check of one frame on one connection: splitting it into
// JSON-RPC messages, telling requests, notifications and responses apart,
// remembering each side's request ids (RuleIDReused), and handing every
// message to the schema half and the key rules.

package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/acpsim/acpsim/traces"
)

// conn is what one connection's checks remember: the requests each side
// sent, by direction and id.
type conn struct {
	version  int                // V1 or V2: the schema, and whether the RFD's rules apply
	sent     map[string]sentReq // dir + " " + id text → the request
	fixed    string             // Frame's method for every response
	hasFixed bool
}

type sentReq struct {
	seq    int64
	method string
	probe  bool // sent malformed on purpose: its answer must be -32602
}

// jsonrpcMsg is one JSON-RPC message of a frame, decoded.
type jsonrpcMsg struct {
	ptr    string // its pointer in the frame: "" or "/i" in a batch
	obj    map[string]any
	kind   string
	method string // the request or notification method, or the answered one
	id     string // JSON text of the id, "" when absent
}

// check checks frame, sent in dir as event seq; probe says the frame is
// malformed on purpose (traces.NoteProbe).
func (c *conn) check(seq int64, dir string, frame []byte, probe bool) []Problem {
	var ps []Problem
	problem := func(rule, ptr, format string, args ...any) {
		ps = append(ps, Problem{Dir: dir, Rule: rule, Pointer: ptr, Msg: fmt.Sprintf(format, args...)})
	}
	if dir != traces.ClientToAgent && dir != traces.AgentToClient {
		problem(RuleJSONRPC, "", "direction %q: expected %q or %q", dir, traces.ClientToAgent, traces.AgentToClient)
		return ps
	}
	cs, err := load(c.version)
	if err != nil {
		problem(RuleSchema, "", "%v", err)
		return ps
	}
	// A probe is malformed in the RFD's terms; v1 has no key to malform.
	rfd := c.version == V2
	probe = probe && rfd
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(frame))
	if err != nil {
		problem(RuleJSON, "", "not JSON: %v", err)
		return ps
	}
	var msgs []jsonrpcMsg
	switch v := v.(type) {
	case map[string]any:
		msgs = []jsonrpcMsg{{obj: v}}
	case []any:
		if len(v) == 0 {
			problem(RuleJSONRPC, "", "an empty batch: expected at least one message")
		}
		for i, e := range v {
			ptr := "/" + strconv.Itoa(i)
			obj, ok := e.(map[string]any)
			if !ok {
				problem(RuleJSONRPC, ptr, "a batch entry that is not an object: expected a JSON-RPC message")
				continue
			}
			msgs = append(msgs, jsonrpcMsg{ptr: ptr, obj: obj})
		}
	default:
		problem(RuleJSONRPC, "", "a JSON %s: expected a JSON-RPC message (an object) or a batch (an array)", jsonType(v))
		return ps
	}
	for i := range msgs {
		m := &msgs[i]
		if !classify(m) {
			problem(RuleJSONRPC, m.ptr, "neither a request (method and id), a notification (method), nor a response (id and either result or error)")
			continue
		}
		if m.kind == kindRequest && m.id != "" && m.id != "null" {
			if c.sent == nil {
				c.sent = map[string]sentReq{}
			}
			k := dir + " " + m.id
			if prev, ok := c.sent[k]; ok {
				problem(RuleIDReused, m.ptr+"/id", "request id %s was already used by this side on this link (seq %d, %s): expected a new id per request", m.id, prev.seq, prev.method)
			}
			c.sent[k] = sentReq{seq, m.method, probe}
		}
		if (m.kind == kindResult || m.kind == kindError) && m.id != "" {
			if c.hasFixed {
				m.method = c.fixed
			} else if r, ok := c.sent[reverse(dir)+" "+m.id]; ok {
				m.method = r.method
				if r.probe {
					ps = append(ps, probeAnswerProblems(dir, m, r.seq)...)
				}
			}
		}
		var mps []Problem
		if p, ok := cs.validate(dir, m); !ok {
			p.Dir = dir
			mps = append(mps, p)
		}
		if rfd {
			mps = append(mps, keyProblems(dir, m)...)
		}
		if probe && m.kind == kindRequest {
			mps = probeProblems(dir, m, mps)
		}
		ps = append(ps, mps...)
	}
	return ps
}

// classify sets m's kind, method and id, and reports whether it is a
// JSON-RPC message at all.
func classify(m *jsonrpcMsg) bool {
	id, hasID := m.obj["id"]
	method, hasMethod := m.obj["method"]
	_, hasResult := m.obj["result"]
	_, hasError := m.obj["error"]
	if hasID {
		b, _ := json.Marshal(id)
		m.id = string(b)
	}
	m.method, _ = method.(string)
	switch {
	case hasMethod && hasID:
		m.kind = kindRequest
	case hasMethod:
		m.kind = kindNotification
	case hasID && hasResult && !hasError:
		m.kind = kindResult
	case hasID && hasError && !hasResult:
		m.kind = kindError
	default:
		return false
	}
	return true
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}
