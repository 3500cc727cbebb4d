// Reading a frame's envelope without a decoder: the fast path of ParseLine,
// and what the checker reads every frame with.

package acp

import (
	"strconv"
	"strings"
	"unsafe"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp/jsonscan"
)

// Envelope is a JSON-RPC message's envelope as ScanEnvelope slices it out of
// its frame: raw values, no copies, so it lives as long as the frame does.
type Envelope struct {
	// Version is the "jsonrpc" member's string, "" when absent.
	Version string
	// ID is the id as ID.UnmarshalJSON reads it, "" when absent.
	ID     ID
	Method string
	// Params and Result are the raw JSON values, "" when absent.
	Params, Result string
	// HasErr: an "error" member that is not null.
	HasErr  bool
	ErrCode int
	ErrMsg  string
	ErrData string // raw JSON, "" when absent
}

var (
	envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	errorKeys    = []string{"code", "message", "data"}
)

const (
	envJSONRPC = iota
	envID
	envMethod
	envParams
	envResult
	envError
)

// ScanEnvelope reads the one JSON-RPC object frame holds with jsonscan. It
// declines (ok false) whatever the codec could read differently (an escaped,
// repeated or case-variant key, an id that needs normalising, a batch, an
// error object that does not decode as Error, anything malformed): decode
// those with ParseLine. A message it reads is not checked for its version or
// kind; that is the caller's.
func ScanEnvelope(frame string) (env Envelope, ok bool) {
	var vals [6]string
	i := jsonscan.SkipWS(frame, 0)
	end, ok := jsonscan.Object(frame, i, envelopeKeys, vals[:], 0, !jsonscan.HasControl(frame))
	if !ok || jsonscan.SkipWS(frame, end) != len(frame) {
		return env, false
	}
	present := func(f int) bool { return vals[f] != "" }
	if env.Version, ok = jsonscan.PlainString(vals[envJSONRPC]); !ok && present(envJSONRPC) {
		return env, false
	}
	if present(envID) {
		if env.ID, ok = ScanID(vals[envID]); !ok {
			return env, false
		}
	}
	if present(envMethod) {
		if env.Method, ok = jsonscan.PlainString(vals[envMethod]); !ok {
			return env, false
		}
	}
	env.Params, env.Result = vals[envParams], vals[envResult]
	if e := vals[envError]; e != "" && e != "null" {
		// The error object must decode as Error does, or the whole message
		// is invalid: let the codec say so.
		var ev [3]string
		if end, ok := jsonscan.Object(e, 0, errorKeys, ev[:], 0, true); !ok || end != len(e) {
			return env, false
		}
		if ev[1] != "" && ev[1] != "null" {
			if env.ErrMsg, ok = jsonscan.PlainString(ev[1]); !ok {
				return env, false
			}
		}
		code, err := strconv.Atoi(ev[0])
		if ev[0] != "" && (err != nil || !isIntLiteral(ev[0])) {
			return env, false
		}
		env.HasErr, env.ErrCode, env.ErrData = true, code, ev[2]
	}
	return env, true
}

// Kind classifies the envelope as Message.Kind does.
func (env *Envelope) Kind() Kind {
	m := Message{ID: env.ID, Method: env.Method}
	if env.Result != "" {
		m.Result = json.RawMessage{} // present: what Kind looks at
	}
	if env.HasErr {
		m.Error = &Error{}
	}
	return m.Kind()
}

// ScanID reads a raw JSON id the way ID.UnmarshalJSON does, for the
// spellings it can tell apart without a decoder: null, a number, a string
// without escapes; ok is false for any other, which the codec must read.
func ScanID(raw string) (ID, bool) {
	switch {
	case raw == "null":
		return "null", true
	case raw[0] == '"':
		s, ok := jsonscan.PlainString(raw)
		if !ok {
			return "", false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 { // no JSON string: the codec refuses it
				return "", false
			}
		}
		return ID(raw), true
	case isJSONNumber(raw):
		return ID(raw), true
	}
	return "", false
}

func isIntLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// fastParse is ParseLine for a line that is one valid JSON-RPC object
// ScanEnvelope reads: the message's strings and raw values share one copy of
// the line (a caller may reuse its buffer), with no decoder run. ok is false
// for anything else, including a null params, result or error data, whose
// decoding into RawMessage the codec decides.
func fastParse(line []byte) (Parsed, bool) {
	if len(line) == 0 || line[0] != '{' {
		return Parsed{}, false
	}
	own := make([]byte, len(line))
	copy(own, line)
	// own is never written again, so strings may share it.
	s := unsafe.String(unsafe.SliceData(own), len(own))
	env, ok := ScanEnvelope(s)
	if !ok || env.Version != Version || env.Params == "null" || env.Result == "null" || env.ErrData == "null" {
		return Parsed{}, false
	}
	// raw is a value ScanEnvelope sliced out of s as the same bytes of own,
	// capped so that an append copies.
	raw := func(v string) json.RawMessage {
		if v == "" {
			return nil
		}
		off := int(uintptr(unsafe.Pointer(unsafe.StringData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(own))))
		return own[off : off+len(v) : off+len(v)]
	}
	m := Message{JSONRPC: Version, ID: env.ID, Method: env.Method, Params: raw(env.Params), Result: raw(env.Result)}
	if env.HasErr {
		m.Error = &Error{Code: env.ErrCode, Message: env.ErrMsg, Data: raw(env.ErrData)}
	}
	if m.Kind() == KindInvalid {
		return Parsed{}, false
	}
	return Parsed{Msg: m}, true
}
