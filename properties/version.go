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
			l.initIDs = append(l.initIDs, acp.ID(c.own(string(v.id))))
			if v := acp.ReadPeerVersionValid(v.params); v.V1 {
				c.setV1(v.V1JudgedLine("the Client"))
				return
			}
		case d == a2c && v.kind == acp.KindResponse && !v.hasErr && l.isInitID(v.id):
			if v := acp.ReadPeerVersionValid(v.result); v.V1 {
				c.setV1(v.V1JudgedLine("the Agent"))
				return
			}
		}
	}
}

func (l *linkState) isInitID(id acp.ID) bool {
	for _, x := range l.initIDs {
		if x == id {
			return true
		}
	}
	return false
}

func (c *checker) setV1(line string) {
	c.v1, c.rep.Protocol, c.rep.V1 = true, acp.ProtocolV1, line
}
