package acp

import (
	stdjson "encoding/json"
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
	b := make([]byte, 0, 128+len(u.Content))
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
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := stdjson.Marshal(s)
			return append(b, q...)
		}
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
