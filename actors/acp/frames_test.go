package acp

import (
	"bytes"
	stdjson "encoding/json"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
	"pgregory.net/rapid"
)

// The hand encoders write what encoding/json writes for the same values,
// for any strings, escapes and all.
func TestHandEncodedFramesMatchEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := rapid.OneOf(rapid.String(), rapid.StringMatching(`[a-f0-9-]{0,36}`))
		u := Update{
			Kind:       rapid.SampledFrom([]string{UpdateUserMessage, UpdateAgentMessageChunk, UpdateState, "_x"}).Draw(t, "kind"),
			MessageID:  str.Draw(t, "id"),
			State:      rapid.SampledFrom([]string{"", StateIdle, StateRunning}).Draw(t, "state"),
			StopReason: rapid.SampledFrom([]string{"", "end_turn"}).Draw(t, "stop"),
		}
		text := str.Draw(t, "text")
		switch rapid.IntRange(0, 2).Draw(t, "content") {
		case 1:
			u.Content = MessageUpdate(u.Kind, u.MessageID, text).Content
			want, _ := stdjson.Marshal([]plainBlock{{"text", text}})
			if !bytes.Equal(u.Content, want) {
				t.Fatalf("message content %s, want %s", u.Content, want)
			}
		case 2:
			u.Content = ChunkUpdate(u.Kind, u.MessageID, text).Content
			want, _ := stdjson.Marshal(plainBlock{"text", text})
			if !bytes.Equal(u.Content, want) {
				t.Fatalf("chunk content %s, want %s", u.Content, want)
			}
		}
		if rapid.Bool().Draw(t, "meta") {
			u.Meta = stdjson.RawMessage(`{"k":"v"}`)
		}
		session := str.Draw(t, "session")
		got := UpdateFrame(session, u)
		want, err := stdjson.Marshal(&Message{JSONRPC: Version, Method: MethodSessionUpdate, Params: mustStd(SessionUpdateParams{SessionID: session, Update: u})})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("UpdateFrame:\n got %s\nwant %s", got, want)
		}
		if !IsUpdateFrame(got) {
			t.Fatal("IsUpdateFrame does not know its own frame")
		}
	})
}

func mustStd(v any) stdjson.RawMessage {
	b, err := stdjson.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestIsUpdateFrameOnlyMatchesUpdates(t *testing.T) {
	for _, f := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","method":"session/updates","params":{}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`,
	} {
		if IsUpdateFrame([]byte(f)) {
			t.Errorf("%s taken for an update frame", f)
		}
	}
}

func TestDecodePromptResultAgreesWithEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`{"messageId":"5f0c6b9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"}`, `{"messageId":""}`, `{"messageId":"a\"b"}`,
		`{"messageId":"a\u00e9"}`, `{"messageId":"é"}`, `{"messageId":1}`, `{"messageId":"x","_meta":{}}`,
		`{"MessageID":"x"}`, `{ "messageId":"x"}`, `{"messageId":"x"} `, `{}`, `null`, `[]`, `{"messageId":"x"`,
		string(Result(NumID(1), PromptResult{MessageID: "m-1"})[len(`{"jsonrpc":"2.0","id":1,"result":`):len(`{"jsonrpc":"2.0","id":1,"result":{"messageId":"m-1"}`)]),
	} {
		var want PromptResult
		wantOK := stdjson.Unmarshal([]byte(raw), &want) == nil
		got, ok := DecodePromptResult([]byte(raw))
		if ok != wantOK || got.MessageID != want.MessageID || string(got.Meta) != string(want.Meta) {
			t.Errorf("%s: got %+v, %v; encoding/json %+v, %v", raw, got, ok, want, wantOK)
		}
	}
}

func TestEncodeWritesWhatTheEncoderWrites(t *testing.T) {
	raws := []string{"", `{}`, `{"sessionId":"s-1","prompt":[{"type":"text","text":"fix the failing test"}]}`,
		`{"a":"<b>"}`, `{"a": 1}`, `{"a":"\u00e9"}`, `{"a":"é"}`, `{"a":"x\"y"}`, `[1,2]`, `"s"`, `7`, `null`, "{\n}"}
	ids := []ID{"", "1", "-3", "0", "null", `"p1-4"`, `"a<b"`, `"é"`, `"x\"y"`, " 1"}
	for _, method := range []string{"", MethodSessionPrompt, "a<b", "é"} {
		for _, id := range ids {
			for _, params := range raws {
				for _, result := range []string{"", `{"messageId":"m"}`, `{"x": 2}`} {
					m := &Message{JSONRPC: Version, ID: id, Method: method, Params: json.RawMessage(params), Result: json.RawMessage(result)}
					want, err := json.Marshal(m)
					if err != nil {
						continue // the encoder refuses it: Encode panics, as before
					}
					// Except the id, written as it came: the encoder escapes
					// a Marshaler's "<" and the response would not echo it.
					if escaped, _ := json.Marshal(json.RawMessage(id)); id != "" && id[0] == '"' {
						want = bytes.Replace(want, append([]byte(`"id":`), escaped...), []byte(`"id":`+id), 1)
					}
					if got := Encode(m); string(got) != string(want) {
						t.Errorf("%+v: Encode wrote\n %s\nthe encoder\n %s", m, got, want)
					}
				}
			}
		}
	}
}

func TestPlainIDsDecodeAsTheDecoderDoes(t *testing.T) {
	for _, tok := range []string{"0", "7", "42", "123456789012345678", "1234567890123456789", "007", "-1", "1.5", "1e3",
		`"p1-4"`, `"a b"`, `""`, `"a<b"`, `"é"`, `"x\"y"`, `"x\u0041"`, "null"} {
		if !plainIDToken([]byte(tok)) {
			continue
		}
		var fast ID
		if err := fast.UnmarshalJSON([]byte(tok)); err != nil {
			t.Fatalf("%s: %v", tok, err)
		}
		var slow ID
		switch tok[0] {
		case '"':
			var s string
			if err := json.Unmarshal([]byte(tok), &s); err != nil {
				t.Fatal(err)
			}
			slow = StrID(s)
		default:
			var n json.Number
			if err := json.Unmarshal([]byte(tok), &n); err != nil {
				t.Fatal(err)
			}
			if _, err := n.Int64(); err != nil {
				t.Fatalf("%s: %v", tok, err)
			}
			slow = ID(n.String())
		}
		if fast != slow {
			t.Errorf("%s: read as %s, the decoder gives %s", tok, fast, slow)
		}
	}
}

func TestPlainBlocksAreReadAndWrittenAsTheCodecDoes(t *testing.T) {
	for _, raw := range []string{`{"type":"text","text":"fix the failing test"}`, `{"type":"text","text":""}`,
		`{"type":"resource_link","text":"x"}`, `{"type":"text","text":"a<b"}`, `{"type":"text","text":"é"}`,
		`{"type":"text","text":"a\"b"}`, `{"text":"a","type":"text"}`, `{"type":"text","text":"a","uri":"u"}`,
		`{"type":"text","text":"a"`, `{"type":"te"xt","text":"a"}`} {
		var got ContentBlock
		gotErr := got.UnmarshalJSON([]byte(raw))
		var p plainBlock
		wantErr := json.Unmarshal([]byte(raw), &p)
		if (gotErr == nil) != (wantErr == nil) || gotErr == nil && (got.Type != p.Type || got.Text != p.Text || string(got.raw) != raw) {
			t.Errorf("%s: read %+v (%v), the decoder %+v (%v)", raw, got, gotErr, p, wantErr)
		}
	}
	for _, c := range []ContentBlock{Text("fix the failing test"), Text(""), Text("a<b&c"), Text("é"), Text("a\"b\n"), {Type: "resource_link", Text: "x"}} {
		got, _ := c.MarshalJSON()
		want, _ := json.Marshal(plainBlock{c.Type, c.Text})
		if string(got) != string(want) {
			t.Errorf("%+v: wrote %s, the encoder %s", c, got, want)
		}
	}
}

// A plain byte is one encoding/json copies into a string as it is: every
// byte value, alone in a string, is plain exactly when json.Marshal writes
// the string as the byte between quotes (invalid UTF-8 alone is rewritten,
// so the bytes of 0x80 and above are not plain).
func TestPlainBytesAreWhatEncodingJSONCopies(t *testing.T) {
	for c := range 256 {
		q, err := stdjson.Marshal(string([]byte{byte(c)}))
		if err != nil {
			t.Fatal(err)
		}
		copied := string(q) == `"`+string([]byte{byte(c)})+`"`
		if plainByte(byte(c)) != copied {
			t.Errorf("byte 0x%02x: plain %t, but json.Marshal writes %s", c, plainByte(byte(c)), q)
		}
		if got := string(appendString(nil, string([]byte{byte(c)}))); got != string(q) {
			t.Errorf("appendString of byte 0x%02x = %s, json.Marshal writes %s", c, got, q)
		}
	}
}

// appendString writes any string as json.Marshal writes it: any bytes,
// invalid UTF-8 and lone continuation bytes among them, every control
// byte, the HTML characters and the two separators JSONP cannot hold.
func TestAppendStringWritesWhatEncodingJSONWrites(t *testing.T) {
	pieces := []string{"k", "é", "😀", "\u2028", "\u2029", "<", ">", "&", `"`, `\`, "\x00", "\x1f", "\x7f", "\b", "\f", "\n", "\r", "\t", "\x80", "\xbf", "\xc3", "\xe2\x80", "\xff", "\ufffd"}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.StringOf(rapid.Rune()),
			rapid.Custom(func(t *rapid.T) string { return string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes")) }),
			rapid.Custom(func(t *rapid.T) string {
				var b strings.Builder
				for _, p := range rapid.SliceOf(rapid.SampledFrom(pieces)).Draw(t, "pieces") {
					b.WriteString(p)
				}
				return b.String()
			}),
		).Draw(t, "s")
		want, err := stdjson.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("appendString(%q) = %s, json.Marshal writes %s", s, got[1:], want)
		}
	})
}
