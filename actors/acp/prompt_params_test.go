package acp

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	"pgregory.net/rapid"
)

// The prompt params the hand encoder writes are the reflective encoder's
// bytes, for any session id, blocks and key; where it declines, the
// encoder writes them.
func TestHandEncodedPromptParamsMatchTheEncoder(t *testing.T) {
	plain := rapid.StringMatching(`[ -~]{0,12}`) // printable ASCII: mostly plain, some not (<, ", \)
	anyStr := rapid.OneOf(plain, rapid.String())
	rapid.Check(t, func(t *rapid.T) {
		p := PromptParams{SessionID: anyStr.Draw(t, "session")}
		switch n := rapid.IntRange(-1, 3).Draw(t, "blocks"); n {
		case -1: // nil: "prompt":null
		default:
			p.Prompt = []ContentBlock{}
			for i := range n {
				c := ContentBlock{Type: rapid.SampledFrom([]string{"text", "resource_link", "te\"xt"}).Draw(t, "type"), Text: anyStr.Draw(t, "text")}
				if form := rapid.IntRange(0, 2).Draw(t, "form"); form > 0 {
					// A block as read from a frame keeps its bytes.
					raw, _ := stdjson.Marshal(plainBlock{c.Type, c.Text})
					if form == 2 { // spaced, as another encoder may write it
						raw = bytes.Replace(raw, []byte(`":`), []byte(`": `), 1)
					}
					if err := json.Unmarshal(raw, &c); err != nil {
						t.Fatalf("block %d: %v", i, err)
					}
				}
				p.Prompt = append(p.Prompt, c)
			}
		}
		switch rapid.IntRange(0, 4).Draw(t, "key") {
		case 4: // as a Client may write it: not escaped
			p.IdempotencyKey = json.RawMessage(`"` + anyStr.Draw(t, "rawKeyText") + `"`)
		case 1:
			p.IdempotencyKey = KeyJSON(anyStr.Draw(t, "keyText"))
		case 2:
			p.IdempotencyKey = json.RawMessage("null")
		case 3:
			p.IdempotencyKey = json.RawMessage(rapid.SampledFrom([]string{`7`, `""`, `"a\"b"`, `{"k":1}`, `{ "k": 1 }`, `[1, 2]`}).Draw(t, "oddKey"))
		}
		if rapid.IntRange(0, 5).Draw(t, "meta") == 0 {
			p.Meta = json.RawMessage(`{"k":"v"}`)
		}
		want, err := json.Marshal(p)
		if err != nil { // a raw key that is not JSON: the encoder refuses it
			if got, ok := appendPromptParams(nil, &p); ok {
				t.Fatalf("the encoder refused %#v (%v), the hand encoder wrote %s", p, err, got)
			}
			return
		}
		if got, ok := appendPromptParams(nil, &p); ok && !bytes.Equal(got, want) {
			t.Fatalf("hand encoder:\n%s\nencoder:\n%s", got, want)
		}
		if got := encodeParams(p); !bytes.Equal(got, want) {
			t.Fatalf("encodeParams:\n%s\nencoder:\n%s", got, want)
		}
	})
}

// The usual prompt is written by hand: the test above would pass on a hand
// encoder that always declined.
func TestTheUsualPromptIsHandEncoded(t *testing.T) {
	p := PromptParams{SessionID: "f48035c7-accc-4146-81bc-5e5f42575ac8", Prompt: []ContentBlock{Text("write the docs #5")}, IdempotencyKey: KeyJSON("156e64f5-33aa-4dcc-94e3-7502ae7fe30a")}
	if _, ok := appendPromptParams(nil, &p); !ok {
		t.Fatal("the usual prompt's params were left to the encoder")
	}
}

// Results, keys and string ids written by hand are the encoder's bytes,
// for any string.
func TestHandEncodedResultsAndStringsMatchTheEncoder(t *testing.T) {
	str := rapid.OneOf(rapid.StringMatching(`[ -~]{0,12}`), rapid.String(), rapid.StringMatching(`[a-f0-9-]{36}`))
	rapid.Check(t, func(t *rapid.T) {
		s := str.Draw(t, "s")
		want, _ := json.Marshal(s)
		if got := quotePlain(s); !bytes.Equal(got, want) {
			t.Fatalf("quotePlain(%q) = %s, the encoder %s", s, got, want)
		}
		var results []any
		pr := PromptResult{MessageID: s}
		if rapid.Bool().Draw(t, "meta") {
			pr.Meta = json.RawMessage(`{"k":1}`)
		}
		results = append(results, pr, NewSessionResult{SessionID: s}, struct{}{}, nil)
		for _, r := range results {
			if got, want := encodeResult(r), mustRaw(r); !bytes.Equal(got, want) {
				t.Fatalf("encodeResult(%#v) = %s, the encoder %s", r, got, want)
			}
		}
	})
}

// What the hand reader reads is what the decoder reads, for params the
// encoder wrote and for the same params reworded (spaced, reordered, keys
// and blocks that are not plain, other members), which it must leave to
// the decoder.
func TestHandReadPromptParamsMatchTheDecoder(t *testing.T) {
	str := rapid.OneOf(rapid.StringMatching(`[ -~]{0,12}`), rapid.String(), rapid.StringMatching(`[a-f0-9-]{36}`))
	rapid.Check(t, func(t *rapid.T) {
		p := PromptParams{SessionID: str.Draw(t, "session")}
		if n := rapid.IntRange(-1, 3).Draw(t, "blocks"); n >= 0 {
			p.Prompt = []ContentBlock{}
			for range n {
				p.Prompt = append(p.Prompt, ContentBlock{Type: rapid.SampledFrom([]string{"text", "resource_link"}).Draw(t, "type"), Text: str.Draw(t, "text")})
			}
		}
		switch rapid.IntRange(0, 2).Draw(t, "key") {
		case 1:
			p.IdempotencyKey = KeyJSON(str.Draw(t, "keyText"))
		case 2:
			p.IdempotencyKey = json.RawMessage("null")
		}
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		switch rapid.IntRange(0, 6).Draw(t, "reword") {
		case 1:
			s = strings.Replace(s, `":`, `": `, 1)
		case 2:
			s = strings.Replace(s, `"sessionId"`, `"SessionId"`, 1)
		case 3:
			s = strings.Replace(s, `"prompt":`, `"prompt":[],"prompt":`, 1)
		case 4:
			s = s[:len(s)-1] + `,"_meta":{}}`
		case 5:
			s = strings.Replace(s, `{"sessionId"`, `{"idempotencyKey":"k","sessionId"`, 1)
		case 6:
			s = s[:len(s)-1] + ` }`
		}
		var want PromptParams
		wantErr := json.Unmarshal([]byte(s), &want)
		var got PromptParams
		if readPromptParams([]byte(s), &got) {
			if wantErr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s:\nhand reader %#v\ndecoder     %#v (%v)", s, got, want, wantErr)
			}
		}
		var viaDecode PromptParams
		if e := DecodeParams(json.RawMessage(s), &viaDecode); (e == nil) != (wantErr == nil) || e == nil && !reflect.DeepEqual(viaDecode, want) {
			t.Fatalf("%s: DecodeParams %#v (%v), the decoder %#v (%v)", s, viaDecode, e, want, wantErr)
		}
		var typed PromptParams
		if e := DecodePromptParams(json.RawMessage(s), &typed); (e == nil) != (wantErr == nil) || e == nil && !reflect.DeepEqual(typed, want) {
			t.Fatalf("%s: DecodePromptParams %#v (%v), the decoder %#v (%v)", s, typed, e, want, wantErr)
		}
	})
	// The usual prompt is read by hand.
	var p PromptParams
	raw := `{"sessionId":"f48035c7","prompt":[{"type":"text","text":"write the docs #5"}],"idempotencyKey":"156e64f5"}`
	if !readPromptParams([]byte(raw), &p) {
		t.Fatalf("%s was left to the decoder", raw)
	}
}

// A prompt request written in one buffer is what the envelope's encoder
// writes around the params' encoder, for any id and params.
func TestPromptRequestsMatchTheEncoder(t *testing.T) {
	str := rapid.OneOf(rapid.StringMatching(`[ -~]{0,12}`), rapid.String(), rapid.StringMatching(`[a-f0-9-]{36}`))
	rapid.Check(t, func(t *rapid.T) {
		var id ID
		switch rapid.IntRange(0, 2).Draw(t, "idKind") {
		case 0:
			id = NumID(rapid.Int64Range(0, 1<<40).Draw(t, "num"))
		case 1:
			id = StrID(str.Draw(t, "str"))
		}
		p := PromptParams{SessionID: str.Draw(t, "session"), Prompt: []ContentBlock{Text(str.Draw(t, "text"))}}
		switch rapid.IntRange(0, 2).Draw(t, "key") {
		case 1:
			p.IdempotencyKey = KeyJSON(str.Draw(t, "keyText"))
		case 2:
			p.IdempotencyKey = json.RawMessage(`"` + str.Draw(t, "rawKey") + `"`)
		}
		if _, err := json.Marshal(p); err != nil {
			return // a raw key that is not JSON: the encoder refuses it
		}
		want := Encode(&Message{JSONRPC: Version, ID: id, Method: MethodSessionPrompt, Params: mustRaw(p)})
		if got := Request(id, MethodSessionPrompt, p); !bytes.Equal(got, want) {
			t.Fatalf("Request:\n%s\nthe encoder:\n%s", got, want)
		}
	})
}

// The encoder escapes <, >, &, U+2028 and U+2029 even in raw JSON: a key
// holding one is not kept as written, and its prompt gets no digest.
func TestKeptKeyLeavesWhatTheEncoderEscapes(t *testing.T) {
	for tok, kept := range map[string]bool{
		`"é😀"`: true, `"k"`: true, `""`: true,
		`"a<b"`: false, `"a>b"`: false, `"a&b"`: false, "\"a\u2028b\"": false, "\"\u2029\"": false,
		`"a\"b"`: false, `"a\\b"`: false, "\"a\tb\"": false, `k`: false, "\"\xff\"": false,
	} {
		if got := keptKey(tok); got != kept {
			t.Errorf("keptKey(%q) = %v, want %v", tok, got, kept)
		}
		p := PromptParams{SessionID: "s", Prompt: []ContentBlock{Text("t")}, IdempotencyKey: json.RawMessage(tok)}
		if want, err := json.Marshal(p); err == nil {
			if got, ok := appendPromptParams(nil, &p); ok != kept || ok && !bytes.Equal(got, want) {
				t.Errorf("%q: hand encoder %s (%v), encoder %s", tok, got, ok, want)
			}
		}
	}
}

// A key's token reads as verbatim (the decoder keeps it as it is) and kept
// (the encoder writes it as it is) byte class by byte class, U+2028's
// neighbours left alone.
func TestStringTokenClassifiesEveryByteClass(t *testing.T) {
	for tok, want := range map[string][2]bool{
		`"plain-key_1"`:    {true, true},
		"\"\u2027\u202a\"": {true, true},
		"\"\u2028\"":       {true, false},
		`"a<b"`:            {true, false},
		`"a&"`:             {true, false},
		"\"a\x1fb\"":       {false, false},
		`"a\u0041"`:        {false, false},
		`"a"b"`:            {false, false},
		`"é"`:              {true, true},
		"\"\xe2\"":         {false, false},
		`"`:                {false, false},
	} {
		if v, k := stringToken(tok); v != want[0] || k != want[1] {
			t.Errorf("stringToken(%q) = verbatim %v, kept %v; want %v, %v", tok, v, k, want[0], want[1])
		}
	}
}

// The key length rule counts code points as utf8.RuneCountInString does,
// for any bytes (KeyFits) and, counting the bytes that begin a code point,
// for valid UTF-8 (ValidKeyFits): around the limit and the four bytes a
// code point may take, with every width of code point.
func TestKeyFitsCountsCodePoints(t *testing.T) {
	// The widest code points at the limit: 1,020 bytes fit, 1,024 do not.
	for _, fits := range []func(string) bool{KeyFits, ValidKeyFits} {
		if !fits(strings.Repeat("😀", MaxKeyLength)) || fits(strings.Repeat("😀", MaxKeyLength+1)) {
			t.Fatal("a key of 255 four-byte code points must fit, one of 256 must not")
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		// rapid favours short slices: the length is drawn on its own, near
		// the limit as often as not.
		n := rapid.OneOf(rapid.IntRange(0, 2*MaxKeyLength), rapid.IntRange(MaxKeyLength-4, MaxKeyLength+4)).Draw(t, "code points")
		runes := rapid.SliceOfN(rapid.SampledFrom([]rune{'k', 'é', '€', '😀', utf8.RuneError}), n, n).Draw(t, "runes")
		key := string(runes)
		if rapid.Bool().Draw(t, "invalid") && len(key) > 0 {
			b := []byte(key)
			b[rapid.IntRange(0, len(b)-1).Draw(t, "at")] = rapid.SampledFrom([]byte{0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff}).Draw(t, "byte")
			key = string(b)
		}
		count := utf8.RuneCountInString(key)
		want := count >= 1 && count <= MaxKeyLength
		if got := KeyFits(key); got != want {
			t.Fatalf("KeyFits of %d bytes, %d code points = %t, expected %t", len(key), count, got, want)
		}
		if utf8.ValidString(key) {
			if got := ValidKeyFits(key); got != want {
				t.Fatalf("ValidKeyFits of %d bytes, %d code points = %t, expected %t", len(key), count, got, want)
			}
		}
	})
}
