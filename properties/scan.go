package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
)

// This file reads frames without a general JSON decoder. Almost every frame
// is one object with plainly spelled keys, and the checker needs a handful
// of fields from it, so the scanner the endpoints' ParseLine uses
// (acp.ScanEnvelope, on actors/acp/jsonscan) slices them out of the frame
// string without copies or reflection. Whenever a frame could decode
// differently from an exact-key lookup (a key escaped, repeated, or equal to
// a wanted key but for case; an id that needs normalising; a batch; anything
// malformed) it says so and the checker falls back to the acp codec
// (acp.DecodeLine), so both paths read every frame the way the endpoints do.
// FuzzViewMatchesParseLine holds them to that.

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
	// dig is the frame's digest when the checker reads it instead of the
	// bytes (typed.go), frame the bytes; params and result are then unset.
	dig   *acp.Digest
	frame string
	// ids: sessH and msgH are the handles of the digest's sessionId and
	// messageId, from its step (Step.Session, Step.Msg).
	ids               bool
	sessH, msgH, keyH int32
}

// viewFrame appends the messages of frame to out.
func viewFrame(frame string, out []msgView) []msgView {
	if v, ok := fastMessage(frame); ok {
		return append(out, v)
	}
	return codecView(frame, out)
}

// codecView appends the messages of frame as the acp codec reads them: the
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

// parseLine is acp.DecodeLine, except that a line the codec panics on (goccy
// go-json v0.10.5's Valid indexes out of range on some invalid input) reads
// as the parse error it is: one bad frame must not take the checker down.
func parseLine(frame string) (line acp.Line) {
	defer func() {
		if recover() != nil {
			line = acp.Line{Entries: []acp.Parsed{{Err: acp.Errorf(acp.CodeParseError, "parse error"), ErrID: "null"}}}
		}
	}()
	return acp.DecodeLine([]byte(frame))
}

func fastMessage(s string) (v msgView, ok bool) {
	env, ok := acp.ScanEnvelope(s)
	if !ok {
		return v, false
	}
	v = msgView{id: env.ID, method: env.Method, params: env.Params, result: env.Result, hasErr: env.HasErr, errCode: env.ErrCode, errMsg: env.ErrMsg}
	// As acp.parseOne and Message.Kind classify.
	v.kind = env.Kind()
	if env.Version != acp.Version || v.kind == acp.KindInvalid {
		errID := v.id
		if errID == "" {
			errID = "null"
		}
		return msgView{kind: acp.KindInvalid, errID: errID}, true
	}
	return v, true
}
