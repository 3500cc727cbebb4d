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
// it (Describes), and its reader falls back to the bytes.
//
// Only frames whose every part the fields below say are digested: one
// JSON-RPC message, no _meta or error data, strings of valid UTF-8. Others
// get none (nil), and are read from their bytes.
type Digest struct {
	data *byte // the frame the digest describes
	size int

	Kind    Kind
	ID      ID // the id token as written; "" for a notification
	Method  string
	HasErr  bool
	ErrCode int
	ErrMsg  string

	// Session is params.sessionId of a request or notification.
	Session string
	// KeyRaw is a session/prompt's idempotencyKey as written ("" when
	// omitted); Text its prompt's text (PromptText).
	KeyRaw string
	// Text is also a session/update's content text.
	Text string
	// MessageID is a success result's messageId or an update's.
	MessageID string
	// ResultSession is a success result's sessionId.
	ResultSession string
	// Update and State are a session/update's sessionUpdate and state;
	// Content says it has content (whose text is Text).
	Update, State string
	Content       bool
	// Strings are the frame's string tokens in order, decoded, and Keys
	// marks which of them are object keys (bit i for Strings[i]): what a
	// reader looking for strings in the frame would find.
	Strings []string
	Keys    uint64
}

// Describes reports whether d was made for frame: the same bytes, not an
// equal copy, since only those are known to be unchanged.
func (d *Digest) Describes(frame string) bool {
	return d != nil && d.size == len(frame) && d.data == unsafe.StringData(frame)
}

// digester builds a Digest beside the frame it describes.
type digester struct {
	d  *Digest
	ok bool
}

func newDigester(kind Kind) *digester {
	return &digester{d: &Digest{Kind: kind, Strings: make([]string, 0, 16)}, ok: true}
}

func (g *digester) key(s string) {
	if len(g.d.Strings) >= 64 {
		g.ok = false
		return
	}
	g.d.Keys |= 1 << len(g.d.Strings)
	g.d.Strings = append(g.d.Strings, s)
}

func (g *digester) str(s string) {
	if len(g.d.Strings) >= 64 || !utf8.ValidString(s) {
		g.ok = false
		return
	}
	g.d.Strings = append(g.d.Strings, s)
}

// blocks notes the strings of text blocks.
func (g *digester) blocks(texts []string) {
	for _, t := range texts {
		g.key("type")
		g.str("text")
		g.key("text")
		g.str(t)
	}
}

// envelope notes the strings of a frame's head: "jsonrpc":"2.0" and its id.
func (g *digester) envelope(id ID) {
	g.key("jsonrpc")
	g.str(Version)
	if id != "" {
		g.key("id")
		g.d.ID = id
		if id[0] == '"' {
			s, ok := plainQuoted(string(id))
			if !ok {
				g.ok = false
				return
			}
			g.str(s)
		}
	}
}

// done attaches the digest to frame, or gives none.
func (g *digester) done(frame []byte) *Digest {
	if !g.ok || len(frame) == 0 {
		return nil
	}
	if g.d.Kind == KindRequest && g.d.ID == "" {
		g.d.Kind = KindNotification // a request without an id, as Message.Kind reads it
	}
	g.d.data, g.d.size = unsafe.SliceData(frame), len(frame)
	return g.d
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

// textBlocks is the text of content written as plain text blocks, as
// textBlock writes them: one {"type":"text","text":"…"} with no escape, or
// an array of them; ok is false for any other content.
func textBlocks(c []byte) (texts []string, ok bool) {
	const head, tail = `{"type":"text","text":"`, `"}`
	s := string(c)
	array := len(s) > 0 && s[0] == '['
	if array {
		if len(s) < 2 || s[len(s)-1] != ']' {
			return nil, false
		}
		s = s[1 : len(s)-1]
	}
	for {
		if !strings.HasPrefix(s, head) {
			return nil, false
		}
		s = s[len(head):]
		end := strings.IndexAny(s, "\\\"")
		if end < 0 || s[end] != '"' || !strings.HasPrefix(s[end:], tail) {
			return nil, false
		}
		texts = append(texts, s[:end])
		s = s[end+len(tail):]
		switch {
		case s == "":
			return texts, true
		case !array || s[0] != ',':
			return nil, false
		}
		s = s[1:]
	}
}

// UpdateFrameDigest is UpdateFrame with the frame's Digest (nil when it
// has _meta or content other than one plain text block).
func UpdateFrameDigest(sessionID string, u Update) ([]byte, *Digest) {
	frame := UpdateFrame(sessionID, u)
	if len(u.Meta) > 0 {
		return frame, nil
	}
	g := newDigester(KindNotification)
	g.envelope("")
	g.key("method")
	g.str(MethodSessionUpdate)
	g.key("params")
	g.key("sessionId")
	g.str(sessionID)
	g.key("update")
	g.key("sessionUpdate")
	g.str(u.Kind)
	d := g.d
	d.Method, d.Session, d.Update, d.MessageID, d.State = MethodSessionUpdate, sessionID, u.Kind, u.MessageID, u.State
	if u.MessageID != "" {
		g.key("messageId")
		g.str(u.MessageID)
	}
	if len(u.Content) > 0 {
		texts, ok := textBlocks(u.Content)
		if !ok {
			return frame, nil
		}
		g.key("content")
		g.blocks(texts)
		d.Text, d.Content = strings.Join(texts, ""), true
	}
	if u.State != "" {
		g.key("state")
		g.str(u.State)
	}
	if u.StopReason != "" {
		g.key("stopReason")
		g.str(u.StopReason)
	}
	return frame, g.done(frame)
}

// ResultDigest is Result with the frame's Digest, for the results whose
// every member the Digest holds: a PromptResult or NewSessionResult
// without _meta, or an empty object (struct{}{}); nil for others.
func ResultDigest(id ID, result any) ([]byte, *Digest) {
	frame := Result(id, result)
	g := newDigester(KindResponse)
	g.envelope(idOrNull(id))
	g.key("result")
	switch r := result.(type) {
	case PromptResult:
		if len(r.Meta) > 0 {
			return frame, nil
		}
		g.key("messageId")
		g.str(r.MessageID)
		g.d.MessageID = r.MessageID
	case NewSessionResult:
		g.key("sessionId")
		g.str(r.SessionID)
		g.d.ResultSession = r.SessionID
	case struct{}:
	default:
		return frame, nil
	}
	return frame, g.done(frame)
}

// ErrorDigest is ErrorResponse with the frame's Digest (nil when the error
// carries data).
func ErrorDigest(id ID, e *Error) ([]byte, *Digest) {
	frame := ErrorResponse(id, e)
	if len(e.Data) > 0 {
		return frame, nil
	}
	g := newDigester(KindResponse)
	g.envelope(idOrNull(id))
	g.key("error")
	g.key("code")
	g.key("message")
	g.str(e.Message)
	g.d.HasErr, g.d.ErrCode, g.d.ErrMsg = true, e.Code, e.Message
	return frame, g.done(frame)
}

// RequestDigest is Request with the frame's Digest, for a session/prompt
// (PromptParams) and a request whose params are only a sessionId
// (SessionParams); nil for other params.
func RequestDigest(id ID, method string, params any) ([]byte, *Digest) {
	switch p := params.(type) {
	case PromptParams:
		if method == MethodSessionPrompt {
			return promptRequestDigest(id, p)
		}
	case SessionParams:
		return sessionRequestDigest(id, method, p)
	case NewSessionParams:
		if len(p.McpServers) == 0 {
			return newSessionDigest(id, method, p)
		}
	case ResumeSessionParams:
		if len(p.McpServers) == 0 {
			return resumeDigest(id, method, p)
		}
	}
	return Request(id, method, params), nil
}

// newSessionDigest is the frame and Digest of a session/new.
func newSessionDigest(id ID, method string, p NewSessionParams) ([]byte, *Digest) {
	frame := Request(id, method, p)
	g := newDigester(KindRequest)
	g.envelope(id)
	g.key("method")
	g.str(method)
	g.key("params")
	g.key("cwd")
	g.str(p.Cwd)
	if len(p.AdditionalDirectories) > 0 {
		g.key("additionalDirectories")
		for _, d := range p.AdditionalDirectories {
			g.str(d)
		}
	}
	if p.IdempotencyKey != "" {
		g.key("idempotencyKey")
		g.str(p.IdempotencyKey)
	}
	g.d.Method = method
	return frame, g.done(frame)
}

// resumeDigest is the frame and Digest of a session/resume.
func resumeDigest(id ID, method string, p ResumeSessionParams) ([]byte, *Digest) {
	frame := Request(id, method, p)
	g := newDigester(KindRequest)
	g.envelope(id)
	g.key("method")
	g.str(method)
	g.key("params")
	g.key("sessionId")
	g.str(p.SessionID)
	g.key("cwd")
	g.str(p.Cwd)
	if p.ReplayFrom != nil {
		g.key("replayFrom")
		g.key("type")
		g.str(p.ReplayFrom.Type)
	}
	g.d.Method, g.d.Session = method, p.SessionID
	return frame, g.done(frame)
}

// promptRequestDigest is a session/prompt's frame and Digest (nil when the
// params carry _meta, a block other than plain text, or a key that is not
// a plain string, null or omitted).
func promptRequestDigest(id ID, p PromptParams) ([]byte, *Digest) {
	frame := Request(id, MethodSessionPrompt, p)
	if len(p.Meta) > 0 {
		return frame, nil
	}
	g := newDigester(KindRequest)
	g.envelope(id)
	g.key("method")
	g.str(MethodSessionPrompt)
	g.key("params")
	g.key("sessionId")
	g.str(p.SessionID)
	g.key("prompt")
	texts := make([]string, 0, len(p.Prompt))
	for _, b := range p.Prompt {
		if b.Type != "text" || len(b.raw) > 0 {
			return frame, nil
		}
		texts = append(texts, b.Text)
	}
	g.blocks(texts)
	d := g.d
	d.Method, d.Session, d.Text = MethodSessionPrompt, p.SessionID, PromptText(p.Prompt)
	if len(p.IdempotencyKey) > 0 {
		raw := string(p.IdempotencyKey)
		s, ok := plainQuoted(raw)
		switch {
		case raw == "null":
		case ok && plainString(s):
			g.key("idempotencyKey")
			g.str(s)
		default:
			return frame, nil
		}
		g.d.KeyRaw = raw
		if raw == "null" {
			g.key("idempotencyKey")
		}
	}
	return frame, g.done(frame)
}

// sessionRequestDigest is the frame and Digest of a request whose params
// are only a sessionId (session/close).
func sessionRequestDigest(id ID, method string, p SessionParams) ([]byte, *Digest) {
	frame := Request(id, method, p)
	g := newDigester(KindRequest)
	g.envelope(id)
	g.key("method")
	g.str(method)
	g.key("params")
	g.key("sessionId")
	g.str(p.SessionID)
	g.d.Method, g.d.Session = method, p.SessionID
	return frame, g.done(frame)
}
