package acp

import (
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

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

// The scanner's reading of an initialize's members is ReadPeerVersion's, on
// every valid object built from the members that decide the version.
func TestReadPeerVersionValidReadsAsDecoding(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var parts []string
		for _, k := range peerVersionKeys {
			if rapid.Bool().Draw(t, k) {
				v := rapid.SampledFrom([]string{`1`, `2`, `1.0`, `"1"`, `null`, `{}`, `{"a":1}`, `[]`, `-1`, `1e0`, `9223372036854775808`}).Draw(t, k+"=")
				parts = append(parts, strconv.Quote(k)+":"+v)
			}
		}
		if rapid.Bool().Draw(t, "other") {
			parts = append(parts, `"x\u0041":true`)
		}
		raw := "{" + strings.Join(parts, ",") + "}"
		if got, want := ReadPeerVersionValid(raw), ReadPeerVersion([]byte(raw)); got != want {
			t.Fatalf("%s: scanned %+v, decoded %+v", raw, got, want)
		}
	})
	for _, raw := range []string{`null`, `[]`, `"s"`, `{"protocolVersion":1,"protocolVersion":2}`, `{"protocol\u0056ersion":1}`} {
		if got, want := ReadPeerVersionValid(raw), ReadPeerVersion([]byte(raw)); got != want {
			t.Fatalf("%s: scanned %+v, decoded %+v", raw, got, want)
		}
	}
}
