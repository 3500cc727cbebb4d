package acp

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/acpsim/acpsim/actors/acp/jsonscan"
)

// The protocol version a peer speaks, read from its initialize request's
// params or its answer's result. acpsim's checks cover ACP v2 and the RFD;
// a peer that speaks v1 (most published software today) is told so in one
// line, never judged by rules it does not claim to follow.

// PeerVersion is what an initialize params or result says of its sender.
type PeerVersion struct {
	// Version is the protocolVersion it names (0 when absent or not a number).
	Version int64
	// V1 is set when it reads as ACP v1: protocolVersion 1, or v1's field
	// names (clientCapabilities / agentCapabilities, clientInfo /
	// agentInfo) without v2's (capabilities, info).
	V1 bool
	// Why says what showed it, e.g. `protocolVersion 1` or
	// `"agentCapabilities" and no "capabilities" (v1 field names)`.
	Why string
}

// ReadPeerVersion reads an initialize request's params or an initialize
// response's result. Anything that is not a JSON object gives the zero
// PeerVersion: whether a frame is well formed is not this function's to say.
func ReadPeerVersion(raw []byte) PeerVersion {
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil {
		return PeerVersion{}
	}
	return peerVersion(func(k string) (string, bool) {
		v, ok := f[k]
		return string(v), ok
	})
}

// peerVersionKeys are the members of an initialize params or result that
// say which version its sender speaks.
// ReadPeerVersionValid reads them by index: keep the order.
var peerVersionKeys = []string{"protocolVersion", "capabilities", "info", "agentCapabilities", "clientCapabilities", "agentInfo", "clientInfo"}

// ReadPeerVersionValid is ReadPeerVersion for raw a reader already found to
// be valid JSON (the params or result of a parsed message): its members are
// sliced out by the scanner, without decoding the object, where it can.
func ReadPeerVersionValid(raw string) PeerVersion {
	var vals [7]string
	if !jsonscan.FieldsOf(raw, peerVersionKeys, vals[:]) {
		return ReadPeerVersion([]byte(raw))
	}
	if len(raw) == 0 || raw[0] != '{' {
		return PeerVersion{}
	}
	// Read in place: a v2 peer (the usual case) costs no allocation.
	var p PeerVersion
	if v := vals[0]; len(v) > 0 && v[0] != '"' {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			p.Version = n
		} else {
			var num json.Number
			if json.Unmarshal([]byte(v), &num) == nil {
				p.Version, _ = num.Int64()
			}
		}
	}
	if p.Version == 1 {
		p.V1, p.Why = true, "protocolVersion 1"
		return p
	}
	if vals[1] != "" || vals[2] != "" {
		return p
	}
	for i, v := range vals[3:] {
		if v != "" {
			p.V1, p.Why = true, fmt.Sprintf("%q and no \"capabilities\" or \"info\" (v1 field names)", peerVersionKeys[3+i])
			return p
		}
	}
	return p
}

// peerVersion decides from the members member finds (the raw value, and
// whether the member is there).
func peerVersion(member func(string) (string, bool)) PeerVersion {
	var p PeerVersion
	var n json.Number
	if v, ok := member("protocolVersion"); ok && len(v) > 0 && v[0] != '"' && json.Unmarshal([]byte(v), &n) == nil {
		p.Version, _ = n.Int64()
	}
	if p.Version == 1 {
		p.V1, p.Why = true, "protocolVersion 1"
		return p
	}
	_, caps := member("capabilities")
	_, info := member("info")
	for _, v1 := range []string{"agentCapabilities", "clientCapabilities", "agentInfo", "clientInfo"} {
		if _, ok := member(v1); ok && !caps && !info {
			p.V1, p.Why = true, fmt.Sprintf("%q and no \"capabilities\" or \"info\" (v1 field names)", v1)
			return p
		}
	}
	return p
}

// V1JudgedLine is the line a report of a v1 trace starts with, after "the
// Agent" or "the Client": what showed v1, what is judged under it and what
// v1 cannot show.
func (p PeerVersion) V1JudgedLine(who string) string {
	return fmt.Sprintf("%s speaks ACP v1 (%s): judged under v1, by text: duplicate, lost, phantom and unresolved; "+
		"the RFD's key rules do not apply (v1 has no idempotencyKey), nor the cancel rules (v1 answers a cancelled turn \"cancelled\" whether or not its message went in)", who, p.Why)
}

// V1TapLine is what acpsim tap says of a peer that speaks v1: its trace
// will be judged under v1.
func (p PeerVersion) V1TapLine(who string) string {
	return fmt.Sprintf("%s speaks ACP v1 (%s): acpsim judge judges this trace under v1, by text; the idempotency RFD's rules do not apply", who, p.Why)
}

// V1Line is the one line every real-mode command prints for a peer that
// speaks ACP v1, after "the Agent" or "the Client": what showed it and why
// nothing was judged.
func (p PeerVersion) V1Line(who string) string {
	return fmt.Sprintf("%s speaks ACP v1 (%s): acpsim's checks cover ACP v2 and the idempotency RFD, which v1 does not have; nothing judged", who, p.Why)
}
