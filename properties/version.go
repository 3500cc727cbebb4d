package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The protocol version of a trace's peers. acpsim's properties are ACP v2's
// and the idempotency RFD's; a trace whose Agent answered initialize in ACP
// v1 (or whose Client asked in v1's shape) holds a conversation those rules
// do not apply to, so the report says so in one line (Report.PeerV1) and a
// reader of it (judge, view) gives no PASS and no FAIL.

// versionState is what the initialize frames of the trace showed so far.
type versionState struct {
	// initIDs are, per link, the ids of the initialize requests the Client
	// side sent: their answers are the Agent's initialize results.
	initIDs map[string][]acp.ID
}

// readVersion reads a sent frame that may be an initialize request or
// answer. Only frames naming protocolVersion are parsed (both v1 and v2
// require it in initialize, both ways), so the other frames cost a scan.
func (c *checker) readVersion(l *linkState, d int, ev *traces.Event, views []msgView) {
	if c.v1 || !mayNameVersion(ev) {
		return
	}
	if len(views) > 0 && views[0].dig != nil {
		// A digest holds no params or result: read the bytes.
		views = viewFrame(ev.Frame, nil)
	}
	for i := range views {
		v := &views[i]
		switch {
		case d == c2a && v.kind == acp.KindRequest && v.method == acp.MethodInitialize:
			if c.version.initIDs == nil {
				c.version.initIDs = map[string][]acp.ID{}
			}
			c.version.initIDs[l.name] = append(c.version.initIDs[l.name], acp.ID(c.own(string(v.id))))
			if v := acp.ReadPeerVersionValid(v.params); v.V1 {
				c.setV1(v.V1JudgedLine("the Client"))
				return
			}
		case d == a2c && v.kind == acp.KindResponse && !v.hasErr && c.isInitID(l.name, v.id):
			if v := acp.ReadPeerVersionValid(v.result); v.V1 {
				c.setV1(v.V1JudgedLine("the Agent"))
				return
			}
		}
	}
}

func (c *checker) isInitID(link string, id acp.ID) bool {
	for _, x := range c.version.initIDs[link] {
		if x == id {
			return true
		}
	}
	return false
}

func (c *checker) setV1(line string) {
	c.v1, c.rep.Protocol, c.rep.V1 = true, acp.ProtocolV1, line
}
