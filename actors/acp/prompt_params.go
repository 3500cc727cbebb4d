package acp

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	json "github.com/goccy/go-json"
)

// appendPromptParams appends p as the reflective encoder writes it, for the
// params every prompt carries: a plain session id (plainString), text
// blocks of plain strings, a key that is a plain quoted string or null, and
// no _meta. Anything else is not ok, and the encoder writes it. The encoder
// was most of a prompt's encoding (issue 33).
func appendPromptParams(b []byte, p *PromptParams) ([]byte, bool) {
	if len(p.Meta) > 0 || !plainString(p.SessionID) {
		return b, false
	}
	b = append(b, `{"sessionId":"`...)
	b = append(b, p.SessionID...)
	b = append(b, `","prompt":`...)
	if p.Prompt == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Prompt {
			c := &p.Prompt[i]
			if i > 0 {
				b = append(b, ',')
			}
			switch {
			case c.raw != nil:
				// A block read from a frame: the encoder writes its bytes,
				// compacted, which leaves a plain block as it is.
				if _, _, ok := readPlainBlock(c.raw); !ok {
					return b, false
				}
				b = append(b, c.raw...)
			case plainString(c.Type) && plainString(c.Text):
				b = appendPlainBlock(b, c.Type, c.Text)
			default:
				return b, false
			}
		}
		b = append(b, ']')
	}
	if k := string(p.IdempotencyKey); k != "" {
		if k != "null" && !keptKey(k) {
			return b, false
		}
		b = append(b, `,"idempotencyKey":`...)
		b = append(b, k...)
	}
	return append(b, '}'), true
}

// encodeParams is what Request and Notification write under "params".
func encodeParams(v any) json.RawMessage {
	var p *PromptParams
	switch x := v.(type) {
	case PromptParams:
		p = &x
	case *PromptParams:
		p = x
	}
	if p != nil {
		if b, ok := appendPromptParams(make([]byte, 0, 64+len(p.SessionID)+len(p.IdempotencyKey)+40*len(p.Prompt)), p); ok {
			return b
		}
	}
	return mustRaw(v)
}

// encodeResult is what Result writes under "result": by hand for the
// results every prompt and session/new answer with, when the encoder would
// copy their strings as they are.
func encodeResult(v any) json.RawMessage {
	var name, value string
	switch r := v.(type) {
	case PromptResult:
		if len(r.Meta) > 0 {
			return mustRaw(v)
		}
		name, value = `{"messageId":"`, r.MessageID
	case NewSessionResult:
		name, value = `{"sessionId":"`, r.SessionID
	default:
		return mustRaw(v)
	}
	if !plainString(value) {
		return mustRaw(v)
	}
	b := make([]byte, 0, len(name)+len(value)+2)
	b = append(b, name...)
	b = append(b, value...)
	return append(b, `"}`...)
}

// quotePlain is s as a JSON string token, by hand when the encoder would
// copy it as it is.
func quotePlain(s string) []byte {
	if !plainString(s) {
		b, _ := json.Marshal(s)
		return b
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// readPromptParams reads raw into p, when p is zero and raw is laid out as
// appendPromptParams writes (a plain session id, plain text blocks, a plain
// quoted or null key, nothing else), giving what the decoder gives; it
// reads nothing and says so otherwise. The decoder was most of an Agent's
// reading of a prompt (issue 33).
func readPromptParams(raw []byte, p *PromptParams) bool {
	if p.SessionID != "" || p.Prompt != nil || p.IdempotencyKey != nil || p.Meta != nil {
		return false
	}
	s := unsafe.String(unsafe.SliceData(raw), len(raw)) // read only; what is kept is copied
	rest, ok := strings.CutPrefix(s, `{"sessionId":"`)
	if !ok {
		return false
	}
	end := strings.IndexByte(rest, '"')
	if end < 0 || !plainString(rest[:end]) {
		return false
	}
	session := rest[:end]
	rest, ok = strings.CutPrefix(rest[end:], `","prompt":`)
	if !ok {
		return false
	}
	var blocks []ContentBlock
	if rest, ok = strings.CutPrefix(rest, "null"); !ok {
		if rest, ok = strings.CutPrefix(rest, "["); !ok {
			return false
		}
		blocks = []ContentBlock{}
		for first := true; ; first = false {
			if r, ok := strings.CutPrefix(rest, "]"); ok {
				rest = r
				break
			}
			if !first {
				if rest, ok = strings.CutPrefix(rest, ","); !ok {
					return false
				}
			}
			end := strings.Index(rest, plainBlockEnd)
			if end < 0 {
				return false
			}
			block := rest[:end+len(plainBlockEnd)]
			typ, text, ok := readPlainBlockOf(block)
			if !ok {
				return false
			}
			// Kept as the decoder keeps a block (ContentBlock.UnmarshalJSON):
			// its strings in a copy of their own, its bytes in another.
			own := strings.Clone(block)
			at := len(plainBlockType)
			typ = own[at : at+len(typ)]
			at = len(own) - len(plainBlockEnd) - len(text)
			text = own[at : at+len(text)]
			blocks = append(blocks, ContentBlock{Type: typ, Text: text, raw: json.RawMessage(block)})
			rest = rest[len(block):]
		}
	}
	var key json.RawMessage
	if r, ok := strings.CutPrefix(rest, `,"idempotencyKey":`); ok {
		end := len(r) - 1
		if end < 0 || r[end] != '}' {
			return false
		}
		tok := r[:end]
		if tok != "null" && !verbatimString(tok) {
			return false
		}
		key, rest = json.RawMessage(tok), r[end:]
	}
	if rest != "}" {
		return false
	}
	p.SessionID, p.Prompt, p.IdempotencyKey = strings.Clone(session), blocks, key
	return true
}

// verbatimString reports whether tok is a JSON string token the decoder
// keeps as it is in a json.RawMessage: quoted, valid UTF-8, with no quote,
// backslash or control byte inside. Clients draw keys of every kind, most
// of them beyond ASCII.
func verbatimString(tok string) bool {
	verbatim, _ := stringToken(tok)
	return verbatim
}

// keptKey reports whether the encoder writes key token tok as it is: a
// verbatimString with none of what it escapes in raw JSON (<, >, &,
// U+2028, U+2029).
func keptKey(tok string) bool {
	verbatim, kept := stringToken(tok)
	return verbatim && kept
}

// stringToken reads tok once (a key may be a thousand bytes) for both
// verbatimString and keptKey.
func stringToken(tok string) (verbatim, kept bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' || !utf8.ValidString(tok) {
		return false, false
	}
	kept = true
	for i := 1; i < len(tok)-1; i++ {
		switch tokenByte[tok[i]] {
		case tokenPlain:
		case tokenEnds:
			return false, false
		case tokenEscaped:
			kept = false
		case tokenE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if tok[i+1] == 0x80 && (tok[i+2] == 0xA8 || tok[i+2] == 0xA9) {
				kept = false
			}
		}
	}
	return true, kept
}

// What a byte inside a key's JSON string token is to stringToken, looked
// up rather than tested (every prompt's key is read so, three times on its
// way): plain; the end of a verbatim token (a quote, a backslash, a
// control byte); escaped by the encoder in raw JSON (<, >, &); the first
// byte of U+2028 or U+2029.
const (
	tokenPlain = iota
	tokenEnds
	tokenEscaped
	tokenE2
)

var tokenByte = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = tokenEnds
	}
	t['"'], t['\\'] = tokenEnds, tokenEnds
	t['<'], t['>'], t['&'] = tokenEscaped, tokenEscaped, tokenEscaped
	t[0xE2] = tokenE2
	return t
}()

// DecodePromptParams is DecodeParams into a PromptParams: by hand where
// readPromptParams reads it, and then p does not escape to the heap (every
// prompt an Agent reads).
func DecodePromptParams(raw json.RawMessage, p *PromptParams) *Error {
	if len(raw) > 0 && readPromptParams(raw, p) {
		return nil
	}
	q := *p
	e := DecodeParams(raw, &q)
	*p = q
	return e
}
