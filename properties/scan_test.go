package properties

import (
	stdjson "encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
)

// slowView reads a frame only through acp.ParseLine: the reference the fast
// path must agree with.
func slowView(frame string) []msgView { return codecView(frame, nil) }

// Frames the scanner must read exactly as the codec does, or hand over.
var viewCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`,
	` {"jsonrpc" : "2.0" , "id" : "a" , "result" : { "messageId" : "M" } } `,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
	`{"jsonrpc":"2.0","id":7,"result":null}`,
	`{"jsonrpc":"2.0","id":7,"params":null,"method":"x"}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"a":[1,2.5e3,-0,true,false,null,{"b":"\u00e9"}]}}`,
	`{"jsonrpc":"1.0","id":3,"method":"x"}`,
	`{"id":3,"method":"x"}`,
	`{"jsonrpc":"2.0","id":3}`,
	`{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":3,"error":null}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":"x","message":"m"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":1.5,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":3,"error":[]}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"x"}`,
	`{"jsonrpc":"2.0","id":true,"method":"x"}`,
	`{"jsonrpc":"2.0","id":"a\"b","method":"x"}`,
	`{"jsonrpc":"2.0","id":"<é>","method":"x"}`,
	`{"jsonrpc":"2.0","id":99999999999999999999,"method":"x"}`,
	`{"jsonrpc":"2.0","ID":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","method":"y"}`,
	`{"jsonrpc":"2.0","\u0069d":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a\/b"}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":2,"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","extra":{"deep":[[[]]]}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"x"},{"jsonrpc":"2.0","method":"y"}]`,
	`[]`,
	`{"jsonrpc":"2.0","id":1,"method":"x"`,
	`{"jsonrpc":"2.0","id":1,"method":"x"} x`,
	`{"jsonrpc":"2.0","id":01,"method":"x"}`,
	`{"jsonrpc":"2.0","id":-1,"method":"x","params":"\ud800"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\xff\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}",
	`"just a string"`,
	`{}`,
	``,
	"{\"\\uX" + strings.Repeat("\xe8", 600), // panics goccy's Valid
}

func TestViewMatchesParseLine(t *testing.T) {
	frames := append([]string(nil), viewCases...)
	for _, p := range pairs {
		for _, b := range []*tb{p.bad(), p.good()} {
			for _, e := range b.evs {
				if e.Frame != "" {
					frames = append(frames, e.Frame)
				}
			}
		}
	}
	fast := 0
	for _, f := range frames {
		if _, ok := fastMessage(f); ok {
			fast++
		}
		if got, want := viewFrame(f, nil), slowView(f); !reflect.DeepEqual(got, want) {
			t.Errorf("frame %s\n got %+v\nwant %+v", f, got, want)
		}
	}
	if fast < len(frames)/2 {
		t.Errorf("the fast path read only %d of %d frames", fast, len(frames))
	}
}

func FuzzViewMatchesParseLine(f *testing.F) {
	for _, c := range viewCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, frame string) {
		if strings.ContainsAny(frame, "\n\r") {
			return // one line per frame
		}
		if got, want := viewFrame(frame, nil), slowView(frame); !reflect.DeepEqual(got, want) {
			t.Fatalf("frame %q\n got %+v\nwant %+v", frame, got, want)
		}
	})
}

// codecReads decodes raw with the acp codec alone; ok is false when the codec
// reports an error, where the scanner's reading is not pinned down.
func codecReads(raw string) (p promptFields, u updView, session, msgID string, ok bool) {
	var pp struct {
		SessionID      string          `json:"sessionId"`
		Prompt         json.RawMessage `json:"prompt"`
		IdempotencyKey json.RawMessage `json:"idempotencyKey"`
	}
	var up acp.SessionUpdateParams
	var r struct {
		MessageID string `json:"messageId"`
	}
	b := []byte(raw)
	if json.Unmarshal(b, &pp) != nil || json.Unmarshal(b, &up) != nil || json.Unmarshal(b, &r) != nil {
		return p, u, "", "", false
	}
	p = promptFields{session: pp.SessionID, prompt: string(pp.Prompt), key: string(pp.IdempotencyKey)}
	u = updView{session: up.SessionID, kind: up.Update.Kind, msgID: up.Update.MessageID, state: up.Update.State, content: string(up.Update.Content)}
	return p, u, pp.SessionID, r.MessageID, true
}

func checkReaders(t *testing.T, raw string) {
	t.Helper()
	var cp acp.CancelRequestParams
	if acp.DecodeParams([]byte(raw), &cp) == nil {
		if got := readRequestID(raw); got != cp.RequestID {
			t.Errorf("readRequestID(%s) = %q, codec %q", raw, got, cp.RequestID)
		}
	}
	p, u, session, msgID, ok := codecReads(raw)
	if !ok {
		return
	}
	if got := readPrompt(raw); got != p {
		t.Errorf("readPrompt(%s) = %+v, codec %+v", raw, got, p)
	}
	if got, ok := readUpdate(raw); !ok || got != u {
		t.Errorf("readUpdate(%s) = %+v %v, codec %+v", raw, got, ok, u)
	}
	if got := readSession(raw); got != session {
		t.Errorf("readSession(%s) = %q, codec %q", raw, got, session)
	}
	if got := readMessageID(raw); got != msgID {
		t.Errorf("readMessageID(%s) = %q, codec %q", raw, got, msgID)
	}
	up := acp.Update{Kind: u.kind, Content: json.RawMessage(u.content)}
	if want, _ := up.ContentText(); u.text() != want {
		t.Errorf("text of %s = %q, codec %q", raw, u.text(), want)
	}
	var pp acp.PromptParams
	if p.key != "" {
		pp.IdempotencyKey = json.RawMessage(p.key)
	}
	key, present, err := pp.Key()
	// Known valid or not (a digest's key is), the key reads as the codec
	// reads it.
	for _, valid := range []bool{false, true} {
		if valid && !utf8.ValidString(p.key) {
			continue
		}
		if k, pr, bad := promptKey(p.key, valid); k != key || pr != present || bad != (err != nil) {
			t.Errorf("promptKey(%s, valid %t) = %q %v %v, codec %q %v %v", p.key, valid, k, pr, bad, key, present, err)
		}
	}
}

var readerCases = []string{
	`{"sessionId":"S","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":"k"}`,
	`{"sessionId":"S","idempotencyKey":null}`,
	`{"sessionId":"S","idempotencyKey":""}`,
	`{"sessionId":"S","idempotencyKey":42}`,
	`{"sessionId":"S\u00e9","update":{"sessionUpdate":"user_message","messageId":"M","content":[{"type":"text","text":"a"}]}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message_chunk","messageId":"M","content":{"type":"text","text":"a"}}}`,
	`{"sessionId":"S","update":null}`,
	`{"SessionId":"S"}`,
	`{"sessionId":"S","Update":{"sessionUpdate":"x"}}`,
	`{"sessionId":"S","update":{"SessionUpdate":"x","sessionUpdate":"y"}}`,
	`{"messageId":"M","_meta":{"messageId":"N"}}`,
	`{"messageId":null}`,
	`{}`,
	`null`,
	`{"sessionId":"a","sessionId":"b"}`,
	`{"requestId":7}`,
	`{"requestId":"r\u0031"}`,
	`{"requestId":1.5}`,
	`{"requestId":"a","RequestId":"b"}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message","messageId":"M","content":[{"type":"text","text":"a\u00e9\n"}]}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message","content":[ {"text":"a","type":"image"} ]}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message","content":[{"Type":"text","text":"x"}]}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message","content":[]}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message","content":[null]}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message_chunk","content":{"type":5,"text":"x"}}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":null}}}`,
	`{"sessionId":"S","update":{"sessionUpdate":"user_message_chunk","content":"text"}}`,
	`{"sessionId":"S","prompt":[],"idempotencyKey":"é€"}`,
	`{"sessionId":"S","prompt":[],"idempotencyKey":"a\u0000"}`,
	`{"sessionId":"S","prompt":[],"idempotencyKey":"\ud800"}`,
	`{"sessionId":"S","prompt":[],"idempotencyKey":"` + strings.Repeat("k", 255) + `"}`,
	`{"sessionId":"S","prompt":[],"idempotencyKey":"` + strings.Repeat("é", 256) + `"}`,
}

func TestReadersMatchCodec(t *testing.T) {
	raws := append([]string(nil), readerCases...)
	for _, p := range pairs {
		for _, e := range p.bad().evs {
			for _, v := range viewFrame(e.Frame, nil) {
				raws = append(raws, v.params, v.result)
			}
		}
	}
	for _, raw := range raws {
		if raw != "" {
			checkReaders(t, raw)
		}
	}
}

func FuzzReadersMatchCodec(f *testing.F) {
	for _, c := range readerCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !stdjson.Valid([]byte(raw)) {
			return // params and results come out of frames found valid
		}
		checkReaders(t, raw)
	})
}
