package acp

import (
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
	data  *byte // the frame the digest describes
	size  int
	shape shape

	Kind    Kind
	ID      ID // the id token as written; "" for a notification
	Method  string
	HasErr  bool
	ErrCode int
	ErrMsg  string

	// Session is params.sessionId of a request or notification, or a
	// success result's sessionId.
	Session string
	// KeyRaw is a session/prompt's idempotencyKey as written ("" when
	// omitted).
	KeyRaw string
	// Text is a session/prompt's text (PromptText) or a session/update's
	// content text; texts holds each block's text when there are several.
	Text  string
	texts []string
	// MessageID is a success result's messageId or an update's.
	MessageID string
	// Update and State are a session/update's sessionUpdate and state;
	// Content says it has content (whose text is Text), StopReason its
	// stopReason.
	Update, State, StopReason string
	Content                   bool
	// Cwd and the flags below are what else a request's params hold.
	Cwd    string
	dirs   []string
	replay string // session/resume's replayFrom.type ("" without one)
	newKey string // session/new's idempotencyKey
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
	return d != nil && d.data != nil && d.size == len(frame) && d.data == unsafe.StringData(frame)
}

// EachString calls fn with every string token of the frame d describes, in
// order, decoded, and whether it is an object key: what a reader looking
// for strings in the frame's bytes would find.
func (d *Digest) EachString(fn func(s string, isKey bool)) {
	key := func(s string) { fn(s, true) }
	val := func(s string) { fn(s, false) }
	key("jsonrpc")
	val(Version)
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
		texts := d.texts
		if texts == nil {
			texts = []string{d.Text}
		}
		for _, t := range texts {
			key("type")
			val("text")
			key("text")
			val(t)
		}
	}
	switch d.shape {
	case shapeUpdate:
		key("sessionId")
		val(d.Session)
		key("update")
		key("sessionUpdate")
		val(d.Update)
		if d.MessageID != "" {
			key("messageId")
			val(d.MessageID)
		}
		if d.Content {
			key("content")
			blocks()
		}
		if d.State != "" {
			key("state")
			val(d.State)
		}
		if d.StopReason != "" {
			key("stopReason")
			val(d.StopReason)
		}
	case shapePromptResult:
		key("result")
		key("messageId")
		val(d.MessageID)
	case shapeSessionResult:
		key("result")
		key("sessionId")
		val(d.Session)
	case shapeEmptyResult:
		key("result")
	case shapeError:
		key("error")
		key("code")
		key("message")
		val(d.ErrMsg)
	case shapePrompt:
		key("sessionId")
		val(d.Session)
		key("prompt")
		blocks()
		switch {
		case d.KeyRaw == "null":
			key("idempotencyKey")
		case d.KeyRaw != "":
			key("idempotencyKey")
			val(d.KeyRaw[1 : len(d.KeyRaw)-1])
		}
	case shapeSessionParams:
		key("sessionId")
		val(d.Session)
	case shapeNewSession:
		key("cwd")
		val(d.Cwd)
		if len(d.dirs) > 0 {
			key("additionalDirectories")
			for _, s := range d.dirs {
				val(s)
			}
		}
		if d.newKey != "" {
			key("idempotencyKey")
			val(d.newKey)
		}
	case shapeResume:
		key("sessionId")
		val(d.Session)
		key("cwd")
		val(d.Cwd)
		if d.replay != "" {
			key("replayFrom")
			key("type")
			val(d.replay)
		}
	}
}

// digest finishes d for frame: ok says every string d holds is one the
// reader decodes back to itself (valid UTF-8), else it describes nothing.
func digest(frame []byte, d Digest, strs ...string) Digest {
	for _, s := range strs {
		if !utf8.ValidString(s) {
			return Digest{}
		}
	}
	for _, s := range d.texts {
		if !utf8.ValidString(s) {
			return Digest{}
		}
	}
	if len(frame) == 0 || d.ID != "" && d.ID[0] == '"' && !plainToken(string(d.ID)) {
		return Digest{}
	}
	if d.Kind == KindRequest && d.ID == "" {
		d.Kind = KindNotification // a request without an id, as Message.Kind reads it
	}
	d.data, d.size = unsafe.SliceData(frame), len(frame)
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
	d := Digest{shape: shapeUpdate, Kind: KindNotification, Method: MethodSessionUpdate, Session: sessionID,
		Update: u.Kind, MessageID: u.MessageID, State: u.State, StopReason: u.StopReason}
	if len(u.Content) > 0 {
		first, more, ok := textBlocks(u.Content)
		if !ok {
			return frame, Digest{}
		}
		d.Content, d.Text = true, first
		if more != nil {
			d.texts, d.Text = more, strings.Join(more, "")
		}
	}
	return frame, digest(frame, d, sessionID, u.Kind, u.MessageID, u.State, u.StopReason, d.Text)
}

// ResultDigest is Result with the frame's Digest, for the results whose
// every member the Digest holds: a PromptResult without _meta, a
// NewSessionResult, or an empty object (struct{}{}, nil); none for others.
func ResultDigest(id ID, result any) ([]byte, Digest) {
	frame := Result(id, result)
	d := Digest{Kind: KindResponse, ID: idOrNull(id)}
	switch r := result.(type) {
	case PromptResult:
		if len(r.Meta) > 0 {
			return frame, Digest{}
		}
		d.shape, d.MessageID = shapePromptResult, r.MessageID
	case NewSessionResult:
		d.shape, d.Session = shapeSessionResult, r.SessionID
	case struct{}, nil:
		d.shape = shapeEmptyResult
	default:
		return frame, Digest{}
	}
	return frame, digest(frame, d, d.MessageID, d.Session)
}

// ErrorDigest is ErrorResponse with the frame's Digest (none when the
// error carries data).
func ErrorDigest(id ID, e *Error) ([]byte, Digest) {
	frame := ErrorResponse(id, e)
	if len(e.Data) > 0 {
		return frame, Digest{}
	}
	d := Digest{shape: shapeError, Kind: KindResponse, ID: idOrNull(id), HasErr: true, ErrCode: e.Code, ErrMsg: e.Message}
	return frame, digest(frame, d, e.Message)
}

// RequestDigest is Request with the frame's Digest, for a session/prompt
// (PromptParams), session/new (NewSessionParams), session/resume
// (ResumeSessionParams) and a request whose params are only a sessionId
// (SessionParams); none for other params.
func RequestDigest(id ID, method string, params any) ([]byte, Digest) {
	frame := Request(id, method, params)
	d := Digest{Kind: KindRequest, ID: id, Method: method}
	switch p := params.(type) {
	case PromptParams:
		if method != MethodSessionPrompt || len(p.Meta) > 0 {
			return frame, Digest{}
		}
		d.shape, d.Session = shapePrompt, p.SessionID
		for _, b := range p.Prompt {
			if b.Type != "text" || len(b.raw) > 0 {
				return frame, Digest{}
			}
		}
		switch len(p.Prompt) {
		case 0:
			d.texts = []string{}
		case 1:
			d.Text = p.Prompt[0].Text
		default:
			d.texts = make([]string, len(p.Prompt))
			for i, b := range p.Prompt {
				d.texts[i] = b.Text
			}
			d.Text = PromptText(p.Prompt)
		}
		if len(p.IdempotencyKey) > 0 {
			raw := string(p.IdempotencyKey)
			if s, ok := plainQuoted(raw); raw != "null" && !(ok && plainString(s)) {
				return frame, Digest{}
			}
			d.KeyRaw = raw
		}
		return frame, digest(frame, d, d.Session, d.Text)
	case SessionParams:
		d.shape, d.Session = shapeSessionParams, p.SessionID
		return frame, digest(frame, d, d.Session)
	case NewSessionParams:
		if len(p.McpServers) > 0 {
			return frame, Digest{}
		}
		d.shape, d.Cwd, d.dirs, d.newKey = shapeNewSession, p.Cwd, p.AdditionalDirectories, p.IdempotencyKey
		return frame, digest(frame, d, append([]string{d.Cwd, d.newKey}, d.dirs...)...)
	case ResumeSessionParams:
		if len(p.McpServers) > 0 {
			return frame, Digest{}
		}
		d.shape, d.Session, d.Cwd = shapeResume, p.SessionID, p.Cwd
		if p.ReplayFrom != nil {
			d.replay = p.ReplayFrom.Type
			if d.replay == "" {
				return frame, Digest{} // "type":"" would be written, and read back
			}
		}
		return frame, digest(frame, d, d.Session, d.Cwd, d.replay)
	}
	return frame, Digest{}
}
