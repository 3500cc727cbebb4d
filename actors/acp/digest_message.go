// This file reads a digested frame back as the message ParseLine would
// read, for the receivers in the simulator (an Agent, a Client, the
// observer).

package acp

import (
	"strings"
	"unsafe"

	json "github.com/goccy/go-json"
)

// Message is the frame d describes as ParseLine reads it, when the frame is
// laid out as this package's encoders write one message:
// {"jsonrpc":"2.0","id":…,"method":"…","params":{…}} for a request or
// notification, {"jsonrpc":"2.0","id":…,"result":{…}} for a success
// response. Its params or result are the frame's own bytes, which the
// sender never writes again. ok is false for any other frame (an error, a
// batch, another layout), which the reader parses.
func (d *Digest) Message(frame []byte) (m Message, ok bool) {
	s := unsafe.String(unsafe.SliceData(frame), len(frame))
	if !d.Describes(s) || d.shape == shapeError {
		return Message{}, false
	}
	rest, ok := strings.CutPrefix(s, `{"jsonrpc":"`+Version+`"`)
	if !ok {
		return Message{}, false
	}
	if d.ID != "" {
		if rest, ok = strings.CutPrefix(rest, `,"id":`); !ok {
			return Message{}, false
		}
		if rest, ok = strings.CutPrefix(rest, string(d.ID)); !ok {
			return Message{}, false
		}
	}
	member := `,"result":`
	if d.Kind() != KindResponse {
		if !plainString(d.Method) {
			return Message{}, false
		}
		if rest, ok = strings.CutPrefix(rest, `,"method":"`); !ok {
			return Message{}, false
		}
		if rest, ok = strings.CutPrefix(rest, d.Method); !ok {
			return Message{}, false
		}
		member = `","params":`
	}
	if rest, ok = strings.CutPrefix(rest, member); !ok || len(rest) < 3 || rest[0] != '{' || rest[len(rest)-1] != '}' {
		return Message{}, false
	}
	at, end := len(frame)-len(rest), len(frame)-1
	m = Message{JSONRPC: Version, ID: d.ID}
	if d.Kind() == KindResponse {
		m.Result = frame[at:end:end]
	} else {
		m.Method, m.Params = d.Method, frame[at:end:end]
	}
	return m, true
}

// PromptParams reads a session/prompt's params from its digest into p as
// DecodePromptParams reads them from the frame's bytes, when p is zero and
// the params are plain (a plain session id, at least one text block of
// plain text, a key as written that the decoder keeps as it is): the
// strings are the sender's own, not copies cut from the bytes, so a text
// keeps its register's handle (sim.Names) through the Agent that stores
// and echoes it. It reads nothing and says so otherwise (the bytes are to
// be read).
func (d *Digest) PromptParams(p *PromptParams) bool {
	if d.shape != shapePrompt || d.Method != MethodSessionPrompt || d.notice ||
		p.SessionID != "" || p.Prompt != nil || p.IdempotencyKey != nil || p.Meta != nil {
		return false
	}
	texts := d.more
	if texts == nil {
		texts = d.s[slotText : slotText+1]
	}
	// An empty prompt is written null or []: the digest does not say which.
	if len(texts) == 0 || !plainString(d.s[slotSession]) {
		return false
	}
	for _, t := range texts {
		if !plainString(t) {
			return false
		}
	}
	// The key needs no test: a prompt's digest holds its key token only
	// where the frame holds it as written (keptKey, by appendPromptParams
	// or RequestDigest), which the decoder keeps as it is (verbatimString).
	key := d.s[slotUpdate]
	blocks := make([]ContentBlock, len(texts))
	for i, t := range texts {
		blocks[i] = ContentBlock{Type: "text", Text: t}
	}
	p.SessionID, p.Prompt = d.s[slotSession], blocks
	if key != "" {
		p.IdempotencyKey = json.RawMessage(key)
	}
	return true
}
