// Package acp is the ACP v2 wire layer: JSON-RPC 2.0 envelopes in
// newline-delimited JSON, the typed params and results acpsim exchanges, the
// error codes of the v2 schema, and the RFD's idempotencyKey rules.
//
// Shapes follow spec/acp-v2/schema.json (@agentclientprotocol/sdk 2.4.0) plus
// the draft RFD's idempotencyKey on session/prompt. Fields whose absence, null
// and empty value mean different things are kept as json.RawMessage so the
// three never collapse into one (an omitempty that turns "" into "omitted" is
// exactly the bug the RFD forbids).
package acp

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// Version is the JSON-RPC version every envelope carries.
const Version = "2.0"

// ProtocolVersion is the ACP protocol version acpsim speaks.
const ProtocolVersion = 2

// ID is a JSON-RPC request id kept as its JSON text: a number (`7`, `1e3`,
// `18446744073709551616`), a string (`"a"`) or `null`. The empty ID means "no
// id" (a notification). The text is the token as the peer wrote it, so a
// response echoes its request's id byte for byte and ids compare by
// spelling; every JSON number and string is a legal JSON-RPC id, whatever
// the ACP schema narrows it to.
type ID string

// NumID is the ID of the integer n.
func NumID(n int64) ID { return ID(strconv.FormatInt(n, 10)) }

// SmallNum is the number id spells when NumID would spell it so and it has
// at most nine digits (1, 2, 3 …, as Clients number their requests): what
// a table indexed by request number can hold. ok is false for anything
// else: a string, a sign, a fraction, a leading zero, a longer number.
func (id ID) SmallNum() (n int, ok bool) {
	if len(id) == 0 || len(id) > 9 || id[0] == '0' && len(id) > 1 {
		return 0, false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// StrID is the ID of the string s.
func StrID(s string) ID { return ID(quotePlain(s)) }

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return id == "" }

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) {
	if id == "" {
		return []byte("null"), nil
	}
	return []byte(id), nil
}

// UnmarshalJSON implements json.Unmarshaler; it accepts numbers, strings and
// null, and keeps the token as written.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return fmt.Errorf("empty id")
	}
	if plainIDToken(b) { // the common spellings, spared a validation run
		*id = ID(b)
		return nil
	}
	switch {
	case string(b) == "null":
		*id = "null"
	case b[0] == '"':
		if !stdjson.Valid(b) {
			return fmt.Errorf("id %.40s is not a JSON string", b)
		}
		if !utf8.Valid(b) {
			// Echoed as written it would be no JSON text: send back the
			// string a decoder reads from it instead.
			var s string
			if err := json.Unmarshal(b, &s); err != nil {
				return err
			}
			*id = StrID(s)
			return nil
		}
		*id = ID(b)
	case isJSONNumber(b):
		*id = ID(b)
	default:
		return fmt.Errorf("id must be a number, a string or null, not %.40s", b)
	}
	return nil
}

// plainIDToken is an id token taken as written without a validation run,
// as nearly every id is: up to 18 digits without a leading zero, or a
// string of plain ASCII.
func plainIDToken(b []byte) bool {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return plainString(string(b[1 : len(b)-1]))
	}
	if len(b) == 0 || len(b) > 18 || b[0] == '0' && len(b) > 1 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isJSONNumber reports whether b is one JSON number token (RFC 8259 §6):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber[T string | []byte](b T) bool {
	i, n := 0, len(b)
	digits := func() bool {
		start := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < n && b[i] == '-' {
		i++
	}
	switch {
	case i < n && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < n && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == n
}

// Message is one JSON-RPC 2.0 envelope: a request (Method and ID), a
// notification (Method, no ID) or a response (ID and Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      ID              `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Kind of a Message.
type Kind int

// Message kinds.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

// Kind classifies the envelope.
func (m *Message) Kind() Kind {
	switch {
	case m.Method != "" && m.ID != "":
		return KindRequest
	case m.Method != "":
		return KindNotification
	case m.ID != "" && (m.Result != nil) != (m.Error != nil):
		return KindResponse
	}
	return KindInvalid
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// Error codes of the v2 schema (ErrorCode) that acpsim uses.
const (
	CodeParseError         = -32700
	CodeInvalidRequest     = -32600
	CodeMethodNotFound     = -32601
	CodeInvalidParams      = -32602
	CodeInternalError      = -32603
	CodeRequestCancelled   = -32800
	CodeAuthRequired       = -32000
	CodeResourceNotFound   = -32002
	CodeUnsupportedVersion = -32022
)

// Errorf returns an *Error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// UnsupportedVersion is the -32022 error with the schema's
// UnsupportedProtocolVersionErrorData.
func UnsupportedVersion(requested int) *Error {
	data, _ := json.Marshal(struct {
		Requested int   `json:"requested"`
		Supported []int `json:"supported"`
	}{requested, []int{ProtocolVersion}})
	return &Error{Code: CodeUnsupportedVersion, Message: "unsupported protocol version", Data: data}
}

// SessionNotFound is the -32002 error with the schema's SessionNotFoundErrorData.
func SessionNotFound(sessionID string) *Error {
	data, _ := json.Marshal(struct {
		SessionID string `json:"sessionId"`
	}{sessionID})
	return &Error{Code: CodeResourceNotFound, Message: "session not found or not active", Data: data}
}
