package acp

import (
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Digest is what a frame says, as the checker reads it, made once by the
// encoder that wrote the frame from typed values, so that a reader in the
// same process (the simulator's checker) need not scan the bytes again. It
// describes exactly one frame, the bytes it was made with: a frame changed
// or encoded afresh afterwards (a mutant's, a proxy's) is not described by
// it (Describes), and its reader falls back to the bytes. The zero Digest
// describes nothing.
//
// Only frames whose every part the fields below say are digested: one
// JSON-RPC message of a shape this package writes, with no _meta or error
// data and strings of valid UTF-8. It is a value, to be kept beside the
// frame without an allocation of its own.
type Digest struct {
	data    *byte // the frame the digest describes
	size    int32
	shape   shape
	notice  bool // a request without an id: a notification
	content bool
	errCode int32
	// ID is the id token as written; "" for a notification.
	ID ID
	// Method is the method of a request or notification.
	Method string
	// s holds the strings the shape has (see the accessors); more the
	// texts of several blocks, or session/new's additionalDirectories.
	s    [6]string
	more []string
}

// Slots of Digest.s by shape.
const (
	slotSession = 0 // params.sessionId; a result's sessionId
	slotText    = 1 // a prompt's or update's text; an error's message; a cwd
	slotMessage = 2 // a result's or update's messageId
	slotUpdate  = 3 // an update's sessionUpdate; a prompt's raw key; a resume's replayFrom.type; session/new's key
	slotState   = 4 // an update's state; a prompt's key as its Client holds it (slotKey)
	slotStop    = 5 // an update's stopReason
	slotKey     = slotState
)

// Kind is the message's kind.
func (d *Digest) Kind() Kind {
	switch {
	case d.shape == shapeUpdate || d.notice:
		return KindNotification
	case d.shape >= shapePrompt:
		return KindRequest
	}
	return KindResponse
}

// HasErr reports an error response; ErrCode and ErrMsg are its error's.
func (d *Digest) HasErr() bool { return d.shape == shapeError }

// ErrCode is an error response's code.
func (d *Digest) ErrCode() int { return int(d.errCode) }

// ErrMsg is an error response's message.
func (d *Digest) ErrMsg() string { return d.slot(shapeError, slotText) }

// Session is a request's or notification's params.sessionId, or a success
// result's sessionId.
func (d *Digest) Session() string { return d.s[slotSession] }

// KeyRaw is a session/prompt's idempotencyKey as written ("" when omitted).
func (d *Digest) KeyRaw() string { return d.slot(shapePrompt, slotUpdate) }

// Key is a prompt's idempotencyKey as the Client that wrote the frame holds
// it (PromptParams.KeyText): the same value as KeyRaw's string, "" when the
// Client did not say.
func (d *Digest) Key() string { return d.slot(shapePrompt, slotKey) }

// Text is a session/prompt's text (PromptText) or a session/update's
// content text.
func (d *Digest) Text() string {
	if d.shape == shapePrompt || d.shape == shapeUpdate {
		return d.s[slotText]
	}
	return ""
}

// MessageID is a success result's messageId or an update's.
func (d *Digest) MessageID() string { return d.s[slotMessage] }

// Update is a session/update's sessionUpdate.
func (d *Digest) Update() string { return d.slot(shapeUpdate, slotUpdate) }

// State is a session/update's state.
func (d *Digest) State() string { return d.slot(shapeUpdate, slotState) }

// Content reports whether a session/update has content (its text: Text).
func (d *Digest) Content() bool { return d.content }

func (d *Digest) slot(sh shape, i int) string {
	if d.shape != sh {
		return ""
	}
	return d.s[i]
}

// Digests keeps digests beside the frames an actor writes, in blocks, so
// that keeping one costs no allocation of its own and an actor's outputs
// carry a pointer, not the whole Digest. The zero Digests is ready to use.
type Digests struct{ block []Digest }

// Keep keeps d for frame and returns where; nil when d describes nothing
// (the encoder made none).
func (s *Digests) Keep(frame []byte, d Digest) *Digest {
	if !d.Describes(unsafe.String(unsafe.SliceData(frame), len(frame))) {
		return nil
	}
	if len(s.block) == cap(s.block) {
		// The old block stays with the outputs that point into it. Blocks
		// grow to 32 from 4: many actors write only a few frames.
		s.block = make([]Digest, 0, min(32, max(4, 2*cap(s.block))))
	}
	s.block = append(s.block, d)
	return &s.block[len(s.block)-1]
}

// shape is which encoder wrote a digested frame: what EachString walks.
type shape uint8

const (
	shapeNone shape = iota
	shapeUpdate
	shapePromptResult
	shapeSessionResult
	shapeEmptyResult
	shapeError
	shapePrompt
	shapeSessionParams
	shapeNewSession
	shapeResume
)

// Describes reports whether d was made for frame: the same bytes, not an
// equal copy, since only those are known to be unchanged.
func (d *Digest) Describes(frame string) bool {
	return d != nil && d.data != nil && int(d.size) == len(frame) && d.data == unsafe.StringData(frame)
}

// digestLiterals are the strings EachString passes as literal: every member
// name it writes, the version and a text block's type.
var digestLiterals = []string{
	"2.0", "additionalDirectories", "code", "content", "cwd", "error", "id",
	"idempotencyKey", "jsonrpc", "message", "messageId", "method", "params",
	"prompt", "replayFrom", "result", "sessionId", "sessionUpdate", "state",
	"stopReason", "text", "type", "update",
}

// DigestLiterals returns the strings EachString may pass as literal.
func DigestLiterals() []string { return slices.Clone(digestLiterals) }

// EachString calls fn with every string token of the frame d describes, in
// order, decoded, and whether it is an object key: what a reader looking
// for strings in the frame's bytes would find. literal says the string is
// one of DigestLiterals, the same in every frame of its shape (member names,
// "2.0", a block's type), so that a reader looking for what varies may skip
// it.
func (d *Digest) EachString(fn func(s string, isKey, literal bool)) {
	key := func(s string) { fn(s, true, true) }
	val := func(s string) { fn(s, false, false) }
	key("jsonrpc")
	fn(Version, false, true)
	if d.ID != "" {
		key("id")
		if d.ID[0] == '"' {
			val(string(d.ID[1 : len(d.ID)-1]))
		}
	}
	if d.Method != "" {
		key("method")
		val(d.Method)
		key("params")
	}
	blocks := func() {
		if d.more == nil {
			key("type")
			fn("text", false, true)
			key("text")
			val(d.s[slotText])
		}
		for _, t := range d.more {
			key("type")
			fn("text", false, true)
			key("text")
			val(t)
		}
	}
	opt := func(name string, i int) {
		if d.s[i] != "" {
			key(name)
			val(d.s[i])
		}
	}
	switch d.shape {
	case shapeUpdate:
		key("sessionId")
		val(d.s[slotSession])
		key("update")
		key("sessionUpdate")
		val(d.s[slotUpdate])
		opt("messageId", slotMessage)
		if d.content {
			key("content")
			blocks()
		}
		opt("state", slotState)
		opt("stopReason", slotStop)
	case shapePromptResult:
		key("result")
		key("messageId")
		val(d.s[slotMessage])
	case shapeSessionResult:
		key("result")
		key("sessionId")
		val(d.s[slotSession])
	case shapeEmptyResult:
		key("result")
	case shapeError:
		key("error")
		key("code")
		key("message")
		val(d.s[slotText])
	case shapePrompt:
		key("sessionId")
		val(d.s[slotSession])
		key("prompt")
		blocks()
		switch raw := d.s[slotUpdate]; {
		case raw == "null":
			key("idempotencyKey")
		case raw != "":
			key("idempotencyKey")
			val(raw[1 : len(raw)-1])
		}
	case shapeSessionParams:
		key("sessionId")
		val(d.s[slotSession])
	case shapeNewSession:
		key("cwd")
		val(d.s[slotText])
		if len(d.more) > 0 {
			key("additionalDirectories")
			for _, s := range d.more {
				val(s)
			}
		}
		opt("idempotencyKey", slotUpdate)
	case shapeResume:
		key("sessionId")
		val(d.s[slotSession])
		key("cwd")
		val(d.s[slotText])
		if d.s[slotUpdate] != "" {
			key("replayFrom")
			key("type")
			val(d.s[slotUpdate])
		}
	}
}

// digest finishes d for frame, or gives the zero Digest when a string it
// holds is not one the reader decodes back to itself (valid UTF-8).
func digest(frame []byte, d Digest) Digest {
	for _, s := range d.s {
		if !utf8.ValidString(s) {
			return Digest{}
		}
	}
	for _, s := range d.more {
		if !utf8.ValidString(s) {
			return Digest{}
		}
	}
	return digestValid(frame, d)
}

// digestValid is digest of a d whose strings are known valid UTF-8.
func digestValid(frame []byte, d Digest) Digest {
	if len(frame) == 0 || len(frame) > 1<<31-1 || d.ID != "" && (!validIDToken(d.ID) || d.ID[0] == '"' && !plainToken(string(d.ID))) {
		return Digest{} // an id the bytes would not read back as written
	}
	if d.shape >= shapePrompt && (d.Method == "" || !utf8.ValidString(d.Method)) {
		return Digest{} // no method: the bytes read as an invalid request
	}
	d.notice = d.shape >= shapePrompt && d.ID == "" // a request without an id, as Message.Kind reads it
	d.data, d.size = unsafe.SliceData(frame), int32(len(frame))
	return d
}

// plainToken is a JSON string token that holds no escape.
func plainToken(tok string) bool {
	_, ok := plainQuoted(tok)
	return ok
}

// plainQuoted is the content of a JSON string token that holds no escape.
func plainQuoted(tok string) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", false
	}
	s := tok[1 : len(tok)-1]
	if strings.ContainsAny(s, "\"\\") {
		return "", false
	}
	return s, true
}

// textBlocks reads content written as plain text blocks, as textBlock
// writes them: one {"type":"text","text":"…"} with no escape, or an array
// of them. first is the first block's text and more every block's when
// there are several (nil for one); ok is false for any other content.
func textBlocks(c []byte) (first string, more []string, ok bool) {
	const head, tail = `{"type":"text","text":"`, `"}`
	s := unsafe.String(unsafe.SliceData(c), len(c)) // content is not written again
	array := len(s) > 0 && s[0] == '['
	if array {
		if len(s) < 2 || s[len(s)-1] != ']' {
			return "", nil, false
		}
		s = s[1 : len(s)-1]
	}
	for n := 0; ; n++ {
		if !strings.HasPrefix(s, head) {
			return "", nil, false
		}
		s = s[len(head):]
		end := strings.IndexAny(s, "\\\"")
		if end < 0 || s[end] != '"' || !strings.HasPrefix(s[end:], tail) {
			return "", nil, false
		}
		switch n {
		case 0:
			first = s[:end]
		case 1:
			more = append(more, first, s[:end])
		default:
			more = append(more, s[:end])
		}
		s = s[end+len(tail):]
		switch {
		case s == "":
			return first, more, true
		case !array || s[0] != ',':
			return "", nil, false
		}
		s = s[1:]
	}
}

// UpdateFrameDigest is UpdateFrame with the frame's Digest (none when it
// has _meta or content other than plain text blocks).
func UpdateFrameDigest(sessionID string, u Update) ([]byte, Digest) {
	frame := UpdateFrame(sessionID, u)
	if len(u.Meta) > 0 {
		return frame, Digest{}
	}
	d := Digest{shape: shapeUpdate, Method: MethodSessionUpdate}
	d.s = [6]string{sessionID, "", u.MessageID, u.Kind, u.State, u.StopReason}
	if len(u.Content) > 0 {
		first, more, ok := textBlocks(u.Content)
		if !ok {
			return frame, Digest{}
		}
		if first == u.text {
			first = u.text // the maker's string, not a copy cut from the bytes
		}
		d.content, d.s[slotText] = true, first
		if more != nil {
			d.more, d.s[slotText] = more, strings.Join(more, "")
		}
	}
	return frame, digest(frame, d)
}

// ResultDigest is Result with the frame's Digest, for the results whose
// every member the Digest holds: a PromptResult without _meta, a
// NewSessionResult, or an empty object (struct{}{}, nil); none for others.
func ResultDigest(id ID, result any) ([]byte, Digest) {
	frame := Result(id, result)
	d := Digest{ID: idOrNull(id)}
	switch r := result.(type) {
	case PromptResult:
		if len(r.Meta) > 0 {
			return frame, Digest{}
		}
		d.shape, d.s[slotMessage] = shapePromptResult, r.MessageID
	case NewSessionResult:
		d.shape, d.s[slotSession] = shapeSessionResult, r.SessionID
	case struct{}, nil:
		d.shape = shapeEmptyResult
	default:
		return frame, Digest{}
	}
	return frame, digest(frame, d)
}

// ErrorDigest is ErrorResponse with the frame's Digest (none when the
// error carries data or a code beyond 32 bits).
func ErrorDigest(id ID, e *Error) ([]byte, Digest) {
	frame := ErrorResponse(id, e)
	if len(e.Data) > 0 || int(int32(e.Code)) != e.Code {
		return frame, Digest{}
	}
	d := Digest{shape: shapeError, ID: idOrNull(id), errCode: int32(e.Code)}
	d.s[slotText] = e.Message
	return frame, digest(frame, d)
}

// RequestDigest is Request with the frame's Digest, for a session/prompt
// (PromptParams), session/new (NewSessionParams), session/resume
// (ResumeSessionParams) and a request whose params are only a sessionId
// (SessionParams); none for other params.
func RequestDigest(id ID, method string, params any) ([]byte, Digest) {
	frame, byHand := requestFrame(id, method, params) // by hand: its strings are valid and its key kept
	d := Digest{ID: id, Method: method}
	switch p := params.(type) {
	case PromptParams:
		if method != MethodSessionPrompt || len(p.Meta) > 0 {
			return frame, Digest{}
		}
		d.shape, d.s[slotSession] = shapePrompt, p.SessionID
		for _, b := range p.Prompt {
			if b.Type != "text" || len(b.raw) > 0 {
				return frame, Digest{}
			}
		}
		switch len(p.Prompt) {
		case 0:
			d.more = []string{}
		case 1:
			d.s[slotText] = p.Prompt[0].Text
		default:
			d.more = make([]string, len(p.Prompt))
			for i, b := range p.Prompt {
				d.more[i] = b.Text
			}
			d.s[slotText] = PromptText(p.Prompt)
		}
		if len(p.IdempotencyKey) > 0 {
			raw := string(p.IdempotencyKey)
			if raw != "null" && !byHand && !keptKey(raw) { // the frame holds the key as written
				return frame, Digest{}
			}
			d.s[slotUpdate] = raw
			if k := p.KeyText; k != "" && len(raw) == len(k)+2 && raw[1:len(raw)-1] == k {
				d.s[slotKey] = k
			}
		}
	case SessionParams:
		d.shape, d.s[slotSession] = shapeSessionParams, p.SessionID
	case NewSessionParams:
		if len(p.McpServers) > 0 {
			return frame, Digest{}
		}
		d.shape, d.s[slotText], d.more, d.s[slotUpdate] = shapeNewSession, p.Cwd, p.AdditionalDirectories, p.IdempotencyKey
	case ResumeSessionParams:
		if len(p.McpServers) > 0 || p.ReplayFrom != nil && p.ReplayFrom.Type == "" {
			return frame, Digest{} // "type":"" would be written, and read back
		}
		d.shape, d.s[slotSession], d.s[slotText] = shapeResume, p.SessionID, p.Cwd
		if p.ReplayFrom != nil {
			d.s[slotUpdate] = p.ReplayFrom.Type
		}
	default:
		return frame, Digest{}
	}
	if byHand && d.shape == shapePrompt {
		return frame, digestValid(frame, d)
	}
	return frame, digest(frame, d)
}
