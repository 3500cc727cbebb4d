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
	"fmt"
	json "github.com/goccy/go-json"
	"strconv"
)

// Version is the JSON-RPC version every envelope carries.
const Version = "2.0"

// ProtocolVersion is the ACP protocol version acpsim speaks.
const ProtocolVersion = 2

// ID is a JSON-RPC request id kept as its JSON text: a number (`7`), a string
// (`"a"`) or `null`. The empty ID means "no id" (a notification). Keeping the
// text makes ids comparable and preserves them byte for byte across hops.
type ID string

// NumID is the ID of the integer n.
func NumID(n int64) ID { return ID(strconv.FormatInt(n, 10)) }

// StrID is the ID of the string s.
func StrID(s string) ID {
	b, _ := json.Marshal(s)
	return ID(b)
}

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return id == "" }

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) {
	if id == "" {
		return []byte("null"), nil
	}
	return []byte(id), nil
}

// UnmarshalJSON implements json.Unmarshaler; it accepts numbers, strings and null.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return fmt.Errorf("empty id")
	}
	if plainIDToken(b) { // what decoding it would give back: the id as written
		*id = ID(b)
		return nil
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = StrID(s)
	case 'n':
		*id = "null"
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("id must be a number, a string or null, not %s", b)
		}
		if _, err := n.Int64(); err != nil {
			return fmt.Errorf("id must be an integer, not %s", b)
		}
		*id = ID(n.String())
	}
	return nil
}

// plainIDToken is an id token that decodes to itself, as nearly every id
// does: up to 18 digits without a leading zero (an int64, as written), or a
// string of plain ASCII (StrID writes it back as it was). Reading those
// directly spares a decoder run per frame.
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
