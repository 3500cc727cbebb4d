package acp

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// recovered counts the panics the codec turned into answers, and keeps the
// last with its stack. A peer is answered the same either way, so only this
// shows that the codec hit a bug of its own or its decoder's: the fuzz
// targets require it to stay at zero.
var recovered struct {
	n    atomic.Int64
	last atomic.Pointer[string]
}

func noteRecovered(r any) {
	s := fmt.Sprintf("%v\n%s", r, debug.Stack())
	recovered.last.Store(&s)
	recovered.n.Add(1)
}

// RecoveredPanics is how many panics the codec has recovered from in this
// process, and the last one's value and stack ("" when none).
func RecoveredPanics() (n int64, last string) {
	if p := recovered.last.Load(); p != nil {
		last = *p
	}
	return recovered.n.Load(), last
}

// Parsed is one entry of a decoded line: a valid envelope, or the error the
// receiver must answer with (Err.ID says which id to answer, often null).
type Parsed struct {
	Msg Message
	Err *Error
	// ErrID is the id to put on the error response: the entry's id when it
	// could be read, otherwise null.
	ErrID ID
	// Digest describes the frame Msg was read from, when its sender made
	// one and Msg is the frame's one message (Digest.Message): a receiver
	// may read the message's params from it, the sender's own strings,
	// instead of from the bytes. Nil for a message read from bytes.
	Digest *Digest
}

// Line is one decoded ndjson line.
type Line struct {
	Batch   bool
	Entries []Parsed
}

// ParseLine decodes one line per the v2 stdio transport: a single message or
// a batch array. Invalid JSON yields one -32700 entry; an empty batch yields
// one -32600 entry; an invalid entry inside a batch yields a -32600 for that
// entry alone.
//
// It never panics: a peer's garbage is answered, not fatal. A line that is
// one plainly spelled JSON-RPC object is read by ScanEnvelope, with one copy
// and no decoder; any other is decoded (DecodeLine), and reads the same.
func ParseLine(line []byte) (l Line) {
	defer func() {
		if r := recover(); r != nil { // a scanner bug must not take an endpoint down: the codec answers
			noteRecovered(r)
			l = DecodeLine(line)
		}
	}()
	if p, ok := fastParse(bytes.TrimSpace(line)); ok {
		return Line{Entries: []Parsed{p}}
	}
	return DecodeLine(line)
}

// DecodeLine is ParseLine with the codec alone, never the scanner: the
// reference the fast path is held to.
func DecodeLine(line []byte) (l Line) {
	defer func() {
		if r := recover(); r != nil { // the fast codec choked on garbage; the answer is the same
			noteRecovered(r)
			l = Line{Entries: []Parsed{{Err: Errorf(CodeParseError, "parse error: malformed JSON"), ErrID: "null"}}}
		}
	}()
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(line, &raws); err != nil {
			return Line{Entries: []Parsed{{Err: Errorf(CodeParseError, "parse error: %v", err), ErrID: "null"}}}
		}
		if len(raws) == 0 {
			return Line{Entries: []Parsed{{Err: Errorf(CodeInvalidRequest, "invalid request: empty batch"), ErrID: "null"}}}
		}
		out := Line{Batch: true, Entries: make([]Parsed, 0, len(raws))}
		for _, r := range raws {
			out.Entries = append(out.Entries, parseOne(r, false))
		}
		return out
	}
	return Line{Entries: []Parsed{parseOne(line, true)}}
}

func parseOne(b []byte, top bool) Parsed {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] != '{' && (!top || stdjson.Valid(t)) {
		return Parsed{Err: Errorf(CodeInvalidRequest, "invalid request: expected a JSON-RPC object, got %.20s", t), ErrID: "null"}
	}
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		if top && !stdjson.Valid(b) {
			return Parsed{Err: Errorf(CodeParseError, "parse error: %v", err), ErrID: "null"}
		}
		return Parsed{Err: Errorf(CodeInvalidRequest, "invalid request: %v", err), ErrID: "null"}
	}
	if m.JSONRPC != Version {
		return Parsed{Err: Errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`), ErrID: idOrNull(m.ID)}
	}
	if m.Kind() == KindInvalid {
		return Parsed{Err: Errorf(CodeInvalidRequest, "invalid request: neither a request, a notification nor a response"), ErrID: idOrNull(m.ID)}
	}
	return Parsed{Msg: m}
}

func idOrNull(id ID) ID {
	if id == "" {
		return "null"
	}
	return id
}

// Encode returns the compact JSON of m with no trailing newline.
func Encode(m *Message) []byte {
	if b, ok := appendEnvelope(make([]byte, 0, 40+len(m.ID)+len(m.Method)+len(m.Params)+len(m.Result)), m); ok {
		return b
	}
	if !plainID(m.ID) && validIDToken(m.ID) {
		return encodeWithRawID(m)
	}
	b, err := json.Marshal(m)
	if err != nil { // only reachable with invalid RawMessage contents, a programming error
		panic("acp: encode: " + err.Error())
	}
	return b
}

// encodeWithRawID encodes m with its id spliced in as written: the encoder
// would escape a Marshaler's "<", ">" and "&", and a response must carry
// its request's id byte for byte. The id follows "jsonrpc", as the encoder
// orders the members.
func encodeWithRawID(m *Message) []byte {
	noID := *m
	noID.ID = ""
	b, err := json.Marshal(&noID)
	if err != nil { // only reachable with invalid RawMessage contents, a programming error
		panic("acp: encode: " + err.Error())
	}
	version, _ := json.Marshal(m.JSONRPC)
	head := len(`{"jsonrpc":`) + len(version)
	out := make([]byte, 0, len(b)+len(`,"id":`)+len(m.ID))
	out = append(out, b[:head]...)
	out = append(out, `,"id":`...)
	out = append(out, m.ID...)
	return append(out, b[head:]...)
}

// validIDToken is an id the codec could have read: a JSON number, a JSON
// string of valid UTF-8, or null.
func validIDToken(id ID) bool {
	switch {
	case id == "null" || isJSONNumber(string(id)):
		return true
	case len(id) > 0 && id[0] == '"':
		return stdjson.Valid([]byte(id)) && utf8.ValidString(string(id))
	}
	return false
}

func mustRaw(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("acp: encode params: " + err.Error())
	}
	return b
}

// Request encodes a request frame.
func Request(id ID, method string, params any) []byte {
	frame, _ := requestFrame(id, method, params)
	return frame
}

// requestFrame is Request, and whether promptRequest wrote it by hand.
func requestFrame(id ID, method string, params any) (frame []byte, byHand bool) {
	if p, ok := params.(PromptParams); ok {
		if b, ok := promptRequest(id, method, &p); ok {
			return b, true
		}
	}
	return Encode(&Message{JSONRPC: Version, ID: id, Method: method, Params: encodeParams(params)}), false
}

// promptRequest writes every prompt's request, envelope and params in one
// buffer as the encoders write them (appendEnvelope, appendPromptParams);
// ok is false where they would write it otherwise. Then every string in it
// is valid UTF-8 and its key is kept as written (keptKey).
func promptRequest(id ID, method string, p *PromptParams) ([]byte, bool) {
	if !plainID(id) || !plainString(method) {
		return nil, false
	}
	b := make([]byte, 0, 96+len(id)+len(method)+len(p.SessionID)+len(p.IdempotencyKey)+promptTextSize(p.Prompt))
	b = append(b, `{"jsonrpc":"`+Version+`"`...)
	if id != "" {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b, ok := appendPromptParams(b, p)
	if !ok {
		return nil, false
	}
	return append(b, '}'), true
}

// promptTextSize is about what a prompt's blocks take written.
func promptTextSize(blocks []ContentBlock) int {
	n := 0
	for i := range blocks {
		n += 24 + len(blocks[i].Type) + len(blocks[i].Text) + len(blocks[i].raw)
	}
	return n
}

// Notification encodes a notification frame.
func Notification(method string, params any) []byte {
	return Encode(&Message{JSONRPC: Version, Method: method, Params: encodeParams(params)})
}

// Result encodes a success response frame.
func Result(id ID, result any) []byte {
	r := encodeResult(result)
	if r == nil {
		r = json.RawMessage("{}")
	}
	return Encode(&Message{JSONRPC: Version, ID: idOrNull(id), Result: r})
}

// ErrorResponse encodes an error response frame.
func ErrorResponse(id ID, e *Error) []byte {
	return Encode(&Message{JSONRPC: Version, ID: idOrNull(id), Error: e})
}

// DecodeParams decodes params into v and turns a failure into -32602.
func DecodeParams(raw json.RawMessage, v any) (e *Error) {
	defer func() {
		if r := recover(); r != nil {
			noteRecovered(r)
			e = Errorf(CodeInvalidParams, "invalid params: malformed JSON")
		}
	}()
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if p, ok := v.(*PromptParams); ok && readPromptParams(raw, p) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}
