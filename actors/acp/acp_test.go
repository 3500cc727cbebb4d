package acp

import (
	json "github.com/goccy/go-json"
	"strings"
	"testing"
)

func TestKeyValidation(t *testing.T) {
	long := strings.Repeat("é", MaxKeyLength) // 255 code points, 510 bytes
	for _, tc := range []struct {
		name    string
		raw     string // the idempotencyKey field's JSON, "" = omitted
		key     string
		present bool
		invalid bool
	}{
		{name: "omitted"},
		{name: "null", raw: `null`},
		{name: "uuid", raw: `"6e40df93-12c2-43d6-bf09-128b89a1f3c1"`, key: "6e40df93-12c2-43d6-bf09-128b89a1f3c1", present: true},
		{name: "case kept", raw: `"AbC"`, key: "AbC", present: true},
		{name: "255 code points of 2 bytes", raw: `"` + long + `"`, key: long, present: true},
		{name: "escaped", raw: `"\u0041"`, key: "A", present: true},
		{name: "surrogate pair", raw: `"\ud83d\ude00"`, key: "\U0001F600", present: true},
		{name: "escaped backslash then u", raw: `"\\ud800"`, key: `\ud800`, present: true},
		{name: "lone high surrogate", raw: `"\ud800"`, invalid: true},
		{name: "lone low surrogate", raw: `"a\udc00"`, invalid: true},
		{name: "high surrogate then text", raw: `"\ud800abcdef"`, invalid: true},
		{name: "invalid UTF-8", raw: "\"\xff\"", invalid: true},
		{name: "empty string", raw: `""`, invalid: true},
		{name: "256 characters", raw: `"` + strings.Repeat("k", 256) + `"`, invalid: true},
		{name: "number", raw: `42`, invalid: true},
		{name: "object", raw: `{"k":1}`, invalid: true},
		{name: "bool", raw: `true`, invalid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := `{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]`
			if tc.raw != "" {
				frame += `,"idempotencyKey":` + tc.raw
			}
			frame += `}`
			var p PromptParams
			if err := DecodeParams(json.RawMessage(frame), &p); err != nil {
				t.Fatalf("decode: %v", err)
			}
			key, present, err := p.Key()
			if tc.invalid {
				if err == nil || err.Code != CodeInvalidParams {
					t.Fatalf("Key() = %q, %v, %v; want -32602", key, present, err)
				}
				return
			}
			if err != nil || key != tc.key || present != tc.present {
				t.Fatalf("Key() = %q, %v, %v; want %q, %v", key, present, err, tc.key, tc.present)
			}
		})
	}
}

// A key set by hand, not decoded, is held to JSON as a decoded one is: a
// string token cut short is no key, however plain its bytes.
func TestKeyRefusesAHandMadeTokenCutShort(t *testing.T) {
	for _, raw := range []string{`"abc`, `"ab"c`, `"ab"c"`, "\"a\tb\""} {
		p := PromptParams{SessionID: "s", IdempotencyKey: json.RawMessage(raw)}
		if key, present, err := p.Key(); err == nil || err.Code != CodeInvalidParams {
			t.Errorf("Key() of %s = %q, %v, %v; want -32602", raw, key, present, err)
		}
	}
}

// Omitted, null and "" must stay three different things on the way out too.
func TestKeyFieldRoundTripsThreeWays(t *testing.T) {
	for raw, want := range map[string]string{"": `"prompt":[]}`, "null": `"idempotencyKey":null}`, `""`: `"idempotencyKey":""}`} {
		p := PromptParams{SessionID: "s", Prompt: []ContentBlock{}}
		if raw != "" {
			p.IdempotencyKey = json.RawMessage(raw)
		}
		b, _ := json.Marshal(p)
		if !strings.HasSuffix(string(b), want) {
			t.Errorf("key %q encodes as %s, want suffix %s", raw, b, want)
		}
	}
}

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		line  string
		batch bool
		codes []int // per entry: 0 = valid
		kinds []Kind
	}{
		{name: "request", line: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, codes: []int{0}, kinds: []Kind{KindRequest}},
		{name: "string id", line: `{"jsonrpc":"2.0","id":"a","method":"x"}`, codes: []int{0}, kinds: []Kind{KindRequest}},
		{name: "notification", line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, codes: []int{0}, kinds: []Kind{KindNotification}},
		{name: "response", line: `{"jsonrpc":"2.0","id":3,"result":{}}`, codes: []int{0}, kinds: []Kind{KindResponse}},
		{name: "not json", line: `{"jsonrpc":`, codes: []int{CodeParseError}},
		{name: "garbage", line: `hello`, codes: []int{CodeParseError}},
		{name: "empty batch", line: `[]`, codes: []int{CodeInvalidRequest}},
		{name: "bad version", line: `{"jsonrpc":"1.0","id":1,"method":"x"}`, codes: []int{CodeInvalidRequest}},
		{name: "neither", line: `{"jsonrpc":"2.0","id":1}`, codes: []int{CodeInvalidRequest}},
		{name: "float id", line: `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, codes: []int{0}, kinds: []Kind{KindRequest}},
		{name: "object id", line: `{"jsonrpc":"2.0","id":{},"method":"x"}`, codes: []int{CodeInvalidRequest}},
		{name: "boolean id", line: `{"jsonrpc":"2.0","id":true,"method":"x"}`, codes: []int{CodeInvalidRequest}},
		{name: "batch", line: `[{"jsonrpc":"2.0","id":1,"method":"a"},1,{"jsonrpc":"2.0","method":"b"}]`, batch: true,
			codes: []int{0, CodeInvalidRequest, 0}, kinds: []Kind{KindRequest, 0, KindNotification}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := ParseLine([]byte(tc.line))
			if l.Batch != tc.batch || len(l.Entries) != len(tc.codes) {
				t.Fatalf("batch %v, %d entries; want %v, %d", l.Batch, len(l.Entries), tc.batch, len(tc.codes))
			}
			for i, e := range l.Entries {
				code := 0
				if e.Err != nil {
					code = e.Err.Code
					if e.ErrID == "" {
						t.Errorf("entry %d: error without an id to answer", i)
					}
				}
				if code != tc.codes[i] {
					t.Errorf("entry %d: code %d, want %d", i, code, tc.codes[i])
				}
				if code == 0 && e.Msg.Kind() != tc.kinds[i] {
					t.Errorf("entry %d: kind %d, want %d", i, e.Msg.Kind(), tc.kinds[i])
				}
			}
		})
	}
}

// Any JSON number or string is a legal JSON-RPC id, and the answer carries
// the token as it was sent: through the scanner and the decoder, alone and
// in a batch, and in the response the codec encodes.
func TestIDsKeepTheirText(t *testing.T) {
	for _, in := range []string{`7`, `"7"`, `"x y"`, `-3`, `1e3`, `1E+3`, `0.0`, `-0`, `1.5`, `-2.5e-7`,
		`9223372036854775807`, `9223372036854775808`, `18446744073709551616`, `-18446744073709551616`,
		`123456789012345678901234567890`, `"\u0061"`, `"a<b&c>"`, `"é"`, `"\"q\""`, `""`, `null`} {
		req := `{"jsonrpc":"2.0","id":` + in + `,"method":"x"}`
		for name, l := range map[string]Line{"scanned": ParseLine([]byte(req)), "decoded": DecodeLine([]byte(req)),
			"in a batch": ParseLine([]byte("[" + req + "," + req + "]"))} {
			for _, e := range l.Entries {
				if e.Err != nil {
					t.Errorf("%s id %s refused: %v", name, in, e.Err)
					continue
				}
				if got := string(e.Msg.ID); got != in {
					t.Errorf("%s id %s decoded as %s", name, in, got)
				}
				if out := string(Result(e.Msg.ID, nil)); !strings.Contains(out, `"id":`+in+`,`) {
					t.Errorf("%s id %s answered as %s", name, in, out)
				}
				if out := string(ErrorResponse(e.Msg.ID, Errorf(CodeMethodNotFound, "no"))); !strings.Contains(out, `"id":`+in+`,`) {
					t.Errorf("%s id %s answered as %s", name, in, out)
				}
			}
		}
	}
}

// What is no JSON number, string or null is refused, with id null.
func TestIllegalIDsAreRefused(t *testing.T) {
	for _, in := range []string{`true`, `{}`, `[1]`, `01`, `1.`, `.5`, `+1`, `1e`, `-`, `0x10`, `NaN`} {
		req := `{"jsonrpc":"2.0","id":` + in + `,"method":"x"}`
		e := ParseLine([]byte(req)).Entries[0]
		if e.Err == nil || e.ErrID != "null" {
			t.Errorf("id %s: %+v, want an error answered with id null", in, e)
		}
	}
}
