package properties

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
)

// This file reads frames without a general JSON decoder. Almost every frame
// is one object with plainly spelled keys, and the checker needs a handful
// of fields from it, so a validating scanner (jsonscan.go) that slices them
// out of the frame string does the job without copies or reflection. Whenever a frame
// could decode differently from an exact-key lookup (a key escaped,
// repeated, or equal to a wanted key but for case; an id that needs
// normalising; a batch; anything malformed) it says so and the caller falls
// back to acp.ParseLine and the acp codec, so both paths read every frame the
// way the endpoints do. FuzzViewMatchesParseLine holds them to that.

// msgView is one JSON-RPC message of a frame as the checker reads it.
type msgView struct {
	kind    acp.Kind // KindInvalid: the receiver owes an error response with errID
	id      acp.ID
	errID   acp.ID
	method  string
	params  string // raw JSON; "" when absent
	result  string // raw JSON; "" when absent
	hasErr  bool
	errCode int
	errMsg  string // the error's message, for explanations
}

// viewFrame appends the messages of frame to out.
func viewFrame(frame string, out []msgView) []msgView {
	if v, ok := fastMessage(frame); ok {
		return append(out, v)
	}
	return codecView(frame, out)
}

// codecView appends the messages of frame as acp.ParseLine reads them: the
// path for batches and anything fastMessage hands over, and the reference
// the fast path is tested against.
func codecView(frame string, out []msgView) []msgView {
	for _, p := range parseLine(frame).Entries {
		if p.Err != nil {
			out = append(out, msgView{kind: acp.KindInvalid, errID: p.ErrID})
			continue
		}
		m := &p.Msg
		v := msgView{kind: m.Kind(), id: m.ID, method: m.Method, params: string(m.Params), result: string(m.Result)}
		if m.Error != nil {
			v.hasErr, v.errCode, v.errMsg = true, m.Error.Code, m.Error.Message
		}
		out = append(out, v)
	}
	return out
}

// parseLine is acp.ParseLine, except that a line the codec panics on (goccy
// go-json v0.10.5's Valid indexes out of range on some invalid input) reads
// as the parse error it is: one bad frame must not take the checker down.
func parseLine(frame string) (line acp.Line) {
	defer func() {
		if recover() != nil {
			line = acp.Line{Entries: []acp.Parsed{{Err: acp.Errorf(acp.CodeParseError, "parse error"), ErrID: "null"}}}
		}
	}()
	return acp.ParseLine([]byte(frame))
}

var envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}

const (
	fJSONRPC = iota
	fID
	fMethod
	fParams
	fResult
	fError
)

func fastMessage(s string) (v msgView, ok bool) {
	var vals [6]string
	i := skipWS(s, 0)
	end, ok := object(s, i, envelopeKeys, vals[:], 0, !hasControl(s))
	if !ok || skipWS(s, end) != len(s) {
		return v, false
	}
	present := func(f int) bool { return vals[f] != "" }

	version, ok := plainString(vals[fJSONRPC])
	if !ok && present(fJSONRPC) {
		return v, false
	}
	if present(fID) {
		if v.id, ok = fastID(vals[fID]); !ok {
			return v, false
		}
	}
	if present(fMethod) {
		if v.method, ok = plainString(vals[fMethod]); !ok {
			return v, false
		}
	}
	v.params, v.result = vals[fParams], vals[fResult]
	if e := vals[fError]; e != "" && e != "null" {
		// The error object must decode as acp.Error does, or the whole
		// message is invalid: let the codec say so.
		var ev [3]string
		if end, ok := object(e, 0, errorKeys, ev[:], 0, true); !ok || end != len(e) {
			return v, false
		}
		if ev[1] != "" && ev[1] != "null" {
			if v.errMsg, ok = plainString(ev[1]); !ok {
				return v, false
			}
		}
		code, err := strconv.Atoi(ev[0])
		if ev[0] != "" && (err != nil || !isIntLiteral(ev[0])) {
			return v, false
		}
		v.hasErr, v.errCode = true, code
	}
	// As acp.parseOne and Message.Kind classify.
	m := acp.Message{ID: v.id, Method: v.method}
	if v.result != "" {
		m.Result = []byte(v.result)
	}
	if v.hasErr {
		m.Error = &acp.Error{}
	}
	v.kind = m.Kind()
	if version != acp.Version || v.kind == acp.KindInvalid {
		errID := v.id
		if errID == "" {
			errID = "null"
		}
		return msgView{kind: acp.KindInvalid, errID: errID}, true
	}
	return v, true
}

var errorKeys = []string{"code", "message", "data"}

// fastID reads an id the way acp.ID.UnmarshalJSON does, for the spellings
// that need no normalising: null, a plain integer, a plain ASCII string.
func fastID(raw string) (acp.ID, bool) {
	switch {
	case raw == "null":
		return "null", true
	case raw[0] == '"':
		s, ok := plainString(raw)
		if !ok {
			return "", false
		}
		for i := 0; i < len(s); i++ {
			// json.Marshal would escape these when acp re-encodes the id.
			if c := s[i]; c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
				return "", false
			}
		}
		return acp.ID(raw), true
	case isIntLiteral(raw):
		if _, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return acp.ID(raw), true
		}
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
