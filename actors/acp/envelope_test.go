package acp

import (
	"reflect"
	"strings"
	"testing"
)

// Frames the fast path must read as the codec does, or hand to it: the
// usual shapes, and each thing a scan could read differently.
var envelopeCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":"k"}}`,
	`{"jsonrpc":"2.0","id":"a-1","result":{"messageId":"m"}}`,
	`  {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk"}}}  `,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"gone","data":{"sessionId":"s"}}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"gone","data":null}}`,
	`{"jsonrpc":"2.0","id":3,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":1.5,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":3,"error":"bad"}`,
	`{"jsonrpc":"2.0","id":3,"result":null}`,
	`{"jsonrpc":"2.0","id":3,"method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"both"}}`,
	`{"jsonrpc":"1.0","id":1,"method":"m"}`,
	`{"jsonrpc":2,"id":1,"method":"m"}`,
	`{"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":1.0,"method":"m"}`,
	`{"jsonrpc":"2.0","id":99999999999999999999,"method":"m"}`,
	`{"jsonrpc":"2.0","id":"\u0041","method":"m"}`,
	`{"jsonrpc":"2.0","id":"<a>","method":"m"}`,
	`{"jsonrpc":"2.0","id":"é","method":"m"}`,
	`{"jsonrpc":"2.0","id":true,"method":"m"}`,
	`{"jsonrpc":"2.0","Id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"meth\u006fd":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m\n"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2,{"b":"c"}]},"extra":true}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m"} x`,
	`[{"jsonrpc":"2.0","id":1,"method":"a"}]`,
	`{}`, `{`, `null`, ``, `"x"`,
}

func TestParseLineReadsAsTheCodec(t *testing.T) {
	fast := 0
	for _, c := range envelopeCases {
		if _, ok := fastParse([]byte(strings.TrimSpace(c))); ok {
			fast++
		}
		if got, want := ParseLine([]byte(c)), DecodeLine([]byte(c)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s\n got %+v\nwant %+v", c, got, want)
		}
	}
	if fast < 8 {
		t.Errorf("the fast path read only %d of the cases", fast)
	}
}

// ParseLine's message does not share the caller's buffer: a reader reuses
// it for the next line.
func TestParseLineCopiesTheLine(t *testing.T) {
	line := []byte(envelopeCases[0])
	l := ParseLine(line)
	want := DecodeLine([]byte(envelopeCases[0]))
	for i := range line {
		line[i] = 'x'
	}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("the message changed with the buffer: %+v", l)
	}
	if p := l.Entries[0].Msg.Params; cap(p) != len(p) {
		t.Fatalf("params has room to append into the shared copy: len %d cap %d", len(p), cap(p))
	}
}

func FuzzParseLineReadsAsTheCodec(f *testing.F) {
	for _, c := range envelopeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		before, _ := RecoveredPanics()
		if got, want := ParseLine(b), DecodeLine(b); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q\n got %+v\nwant %+v", b, got, want)
		}
		if n, last := RecoveredPanics(); n != before {
			t.Fatalf("the codec recovered from a panic on %q: %s", b, last)
		}
	})
}
