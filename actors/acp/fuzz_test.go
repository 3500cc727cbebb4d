package acp

import (
	stdjson "encoding/json"
	"strings"
	"testing"
)

// A peer may write anything on its stdout. ParseLine must answer it, never
// panic (not even one it recovers from), and accept only what encoding/json
// also calls JSON.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":"k"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"x"}}`,
		`[]`, `hello`, `{"jsonrpc":`, "{\"\\uX" + strings.Repeat("\xe8", 506),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		before, _ := RecoveredPanics()
		defer func() {
			// The codec answers garbage even when it panics inside: only
			// its count of recovered panics tells a bug from an answer.
			if n, last := RecoveredPanics(); n != before {
				t.Fatalf("the codec recovered from a panic on %q: %s", b, last)
			}
		}()
		l := ParseLine(b)
		if len(l.Entries) == 0 {
			t.Fatal("no entries: every line gets an answer")
		}
		for _, e := range l.Entries {
			if e.Err == nil && !stdjson.Valid(b) {
				t.Fatalf("accepted invalid JSON %q", b)
			}
			if e.Err == nil && e.Msg.Method == MethodSessionPrompt {
				var p PromptParams
				if DecodeParams(e.Msg.Params, &p) == nil {
					_, _, _ = p.Key()
				}
			}
		}
	})
}
