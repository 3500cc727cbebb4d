package acp

import (
	stdjson "encoding/json"
	"unicode/utf8"
)

// The frames every simulated step writes, encoded by hand: a session/update
// is most of the traffic, and a reflective encoder spends most of its time
// on it. The bytes are what encoding/json would write for the same values
// (checked by TestHandEncodedFramesMatchEncodingJSON).

// updatePrefix starts every session/update notification this package writes.
const updatePrefix = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`

// IsUpdateFrame reports whether frame is a session/update notification as
// this package writes it: a fast way for a receiver that ignores updates to
// skip them without decoding. Frames from elsewhere may not match; those
// are decoded as usual.
func IsUpdateFrame(frame []byte) bool {
	return len(frame) > len(updatePrefix) && string(frame[:len(updatePrefix)]) == updatePrefix
}

// UpdateFrame encodes a session/update notification.
func UpdateFrame(sessionID string, u Update) []byte {
	// Sized for the whole frame (escapes aside): growing it twice on the way
	// was 4% of the bytes a seed allocates.
	n := len(updatePrefix) + len(sessionID) + len(u.Kind) + len(u.MessageID) + len(u.Content) +
		len(u.State) + len(u.StopReason) + len(u.Meta) + 128
	b := make([]byte, 0, n)
	b = append(b, updatePrefix...)
	b = appendString(b, sessionID)
	b = append(b, `,"update":{"sessionUpdate":`...)
	b = appendString(b, u.Kind)
	if u.MessageID != "" {
		b = append(b, `,"messageId":`...)
		b = appendString(b, u.MessageID)
	}
	if len(u.Content) > 0 {
		b = append(b, `,"content":`...)
		b = append(b, u.Content...)
	}
	if u.State != "" {
		b = append(b, `,"state":`...)
		b = appendString(b, u.State)
	}
	if u.StopReason != "" {
		b = append(b, `,"stopReason":`...)
		b = appendString(b, u.StopReason)
	}
	if len(u.Meta) > 0 {
		b = append(b, `,"_meta":`...)
		b = append(b, u.Meta...)
	}
	return append(b, "}}}"...)
}

// textBlock encodes {"type":"text","text":s}.
func textBlock(b []byte, s string) []byte {
	b = append(b, `{"type":"text","text":`...)
	b = appendString(b, s)
	return append(b, '}')
}

// appendString appends s as a JSON string. Plain ASCII is copied; anything
// that needs escaping goes through encoding/json, so the bytes match it.
func appendString(b []byte, s string) []byte {
	if !plainString(s) {
		q, _ := stdjson.Marshal(s)
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// promptResultPrefix and promptResultSuffix frame a PromptResult as
// Result(id, PromptResult{MessageID: id}) encodes it.
const (
	promptResultPrefix = `{"messageId":"`
	promptResultSuffix = `"}`
)

// DecodePromptResult decodes a session/prompt result as encoding/json
// would into a PromptResult (ok: without error), reading the shape this
// package writes, a messageId of plain ASCII and nothing else, straight
// from the bytes, since every answered prompt is one: any other result
// goes through encoding/json.
func DecodePromptResult(raw []byte) (res PromptResult, ok bool) {
	if n := len(raw) - len(promptResultSuffix); n > len(promptResultPrefix) &&
		string(raw[:len(promptResultPrefix)]) == promptResultPrefix && string(raw[n:]) == promptResultSuffix {
		id := raw[len(promptResultPrefix):n]
		plain := true
		for _, c := range id {
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			return PromptResult{MessageID: string(id)}, true
		}
	}
	return res, stdjson.Unmarshal(raw, &res) == nil
}

// appendEnvelope appends m as the reflective encoder writes it, for the
// envelopes every step writes: no error object, and strings, id and raw
// members that it would copy as they are (plain ASCII, compact). Anything
// else is not ok, and Encode leaves it to the encoder, which compacts,
// escapes and validates.
func appendEnvelope(b []byte, m *Message) ([]byte, bool) {
	if m.Error != nil || !plainString(m.JSONRPC) || !plainString(m.Method) || !plainID(m.ID) || !plainRaw(m.Params) || !plainRaw(m.Result) {
		return b, false
	}
	b = append(b, `{"jsonrpc":"`...)
	b = append(b, m.JSONRPC...)
	b = append(b, '"')
	if m.ID != "" {
		b = append(b, `,"id":`...)
		b = append(b, m.ID...)
	}
	if m.Method != "" {
		b = append(b, `,"method":"`...)
		b = append(b, m.Method...)
		b = append(b, '"')
	}
	if len(m.Params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, m.Params...)
	}
	if len(m.Result) > 0 {
		b = append(b, `,"result":`...)
		b = append(b, m.Result...)
	}
	return append(b, '}'), true
}

// plainByte is a byte a JSON encoder copies as it is inside a string.
func plainByte(c byte) bool { return plainBytes[c] }

// plainBytes is plainByte by byte: one load a byte, where the five tests
// took twice the instructions over a frame's texts. The ASCII a key token
// holds as it is (tokenByte) is what the encoder copies.
var plainBytes = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = tokenByte[c] == tokenPlain
	}
	return t
}()

func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainBytes[s[i]] {
			return false
		}
	}
	return true
}

// plainID is an id as NumID and StrID make them: digits, or a quoted
// plain string (or null, or absent).
func plainID(id ID) bool {
	if len(id) >= 2 && id[0] == '"' && id[len(id)-1] == '"' {
		return plainString(string(id[1 : len(id)-1]))
	}
	if id == "null" {
		return true
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; (c < '0' || c > '9') && (c != '-' || i > 0) {
			return false
		}
	}
	return len(id) != 1 || id[0] != '-'
}

// plainRaw is a raw member the encoder would copy unchanged: no white
// space outside strings, no escape or anything to escape inside them
// (plainByte), and balanced. It
// is a guard, not a validator: every raw the actors write came out of an
// encoder or a decoder.
func plainRaw(raw []byte) bool {
	inString, depth := false, 0
	for _, c := range raw {
		switch {
		case inString && c == '"':
			inString = false
		case inString:
			if !plainByte(c) {
				return false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c <= ' ' || c >= 0x80 || c == '<' || c == '>' || c == '&':
			return false
		}
	}
	return !inString && depth == 0
}
