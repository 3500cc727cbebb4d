package acp

import "testing"

func TestReadPeerVersion(t *testing.T) {
	for _, c := range []struct {
		raw string
		v1  bool
		ver int64
	}{
		{`{"protocolVersion":2,"info":{"name":"a","version":"1"},"capabilities":{}}`, false, 2},
		{`{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"a","version":"1"}}`, true, 1},
		{`{"protocolVersion":1}`, true, 1},
		{`{"protocolVersion":2,"clientCapabilities":{}}`, true, 2}, // v2 asked, v1 shape
		{`{"protocolVersion":2,"clientCapabilities":{},"capabilities":{}}`, false, 2},
		{`not json`, false, 0},
		{`{"protocolVersion":"1"}`, false, 0},
	} {
		p := ReadPeerVersion([]byte(c.raw))
		if p.V1 != c.v1 || p.Version != c.ver {
			t.Errorf("%s: got %+v, want v1 %v version %d", c.raw, p, c.v1, c.ver)
		}
		if p.V1 && p.Why == "" {
			t.Errorf("%s: v1 without a reason", c.raw)
		}
	}
}
