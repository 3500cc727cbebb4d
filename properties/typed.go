package properties

import (
	"fmt"
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Typed events: a send event from the simulator may carry its frame's
// acp.Digest, made by the actor that encoded the frame. The checker then
// reads the digest's fields instead of scanning the bytes; whatever the
// digest does not hold (a result it has no field for, a cancel's params)
// is read from the bytes as before (msgView.undigest), so a digest can
// only spare work, never change what is read. TestDigestsReadAsTheBytes
// holds the two paths to the same answers on every frame of many seeds.

// digestView is the msgView of a frame its digest describes, or false.
func digestView(e *traces.Event) (msgView, bool) {
	d := e.Digest
	if !d.Describes(e.Frame) {
		return msgView{}, false
	}
	return msgView{kind: d.Kind(), id: d.ID, method: d.Method, hasErr: d.HasErr(), errCode: d.ErrCode(), errMsg: d.ErrMsg(), dig: d, frame: e.Frame}, true
}

// undigest turns a digested view into the view of its bytes: for the reads
// the digest holds no field for.
func (v *msgView) undigest() {
	if v.dig == nil {
		return
	}
	if vs := viewFrame(v.frame, nil); len(vs) == 1 {
		*v = vs[0]
	}
	// The step's handles were the digest's ids: the bytes' ids get their own.
	v.dig, v.ids = nil, false
}

// rawParams is the message's params as written.
func (v *msgView) rawParams() string {
	v.undigest()
	return v.params
}

// rawResult is the message's result as written.
func (v *msgView) rawResult() string {
	v.undigest()
	return v.result
}

// prompt is a session/prompt's params.
func (v *msgView) prompt() promptFields {
	if d := v.dig; d != nil {
		return promptFields{session: d.Session(), key: d.KeyRaw(), text: d.Text(), hasText: true}
	}
	return readPrompt(v.params)
}

// sessionParam is params.sessionId.
func (v *msgView) sessionParam() string {
	if d := v.dig; d != nil && d.Kind() != acp.KindResponse {
		return d.Session()
	}
	return readSession(v.rawParams())
}

// update is a session/update's params.
func (v *msgView) update() (updView, bool) {
	if d := v.dig; d != nil {
		return updView{session: d.Session(), kind: d.Update(), msgID: d.MessageID(), state: d.State(), typedText: d.Text(), typed: true, typedContent: d.Content(), ids: v.ids, sessionH: v.sessH, msgH: v.msgH}, true
	}
	return readUpdate(v.params)
}

// messageID is a success result's messageId.
func (v *msgView) messageID() string {
	if d := v.dig; d != nil {
		return d.MessageID()
	}
	return readMessageID(v.result)
}

// resultSession is a success result's sessionId.
func (v *msgView) resultSession() string {
	if d := v.dig; d != nil {
		return d.Session()
	}
	return readSession(v.result)
}

// DigestDiff says where a send event's digest reads otherwise than its
// frame's bytes ("" when it reads the same, or carries none): every field
// the checker takes from a digest, against the same read of the bytes. The
// simulator's tests run it on every frame of many seeds.
func DigestDiff(e *traces.Event) string {
	tv, ok := digestView(e)
	if !ok {
		return ""
	}
	vs := viewFrame(e.Frame, nil)
	if len(vs) != 1 {
		return fmt.Sprintf("the digest describes one message, the bytes hold %d", len(vs))
	}
	bv := &vs[0]
	var diffs []string
	same := func(what string, got, want any) {
		if got != want {
			diffs = append(diffs, fmt.Sprintf("%s: digest %#v, bytes %#v", what, got, want))
		}
	}
	same("kind", tv.kind, bv.kind)
	same("id", tv.id, bv.id)
	same("method", tv.method, bv.method)
	same("error", [3]any{tv.hasErr, tv.errCode, tv.errMsg}, [3]any{bv.hasErr, bv.errCode, bv.errMsg})
	switch {
	case tv.kind == acp.KindRequest && tv.method == acp.MethodSessionPrompt:
		tp, bp := tv.prompt(), bv.prompt()
		var blocks []acp.ContentBlock
		_ = json.Unmarshal([]byte(bp.prompt), &blocks)
		same("prompt", [3]string{tp.session, tp.key, tp.text}, [3]string{bp.session, bp.key, acp.PromptText(blocks)})
		// An Agent handed the digest reads the params the bytes hold.
		if diff := promptParamsDiff(e.Digest, bv.params); diff != "" {
			diffs = append(diffs, diff)
		}
		// The key its Client holds, where it said, is the key the bytes
		// hold.
		if k := e.Digest.Key(); k != "" {
			if key, present, bad := promptKey(bp.key, false); !present || bad || key != k {
				diffs = append(diffs, fmt.Sprintf("key its Client holds: digest %q, bytes %s", k, bp.key))
			}
		}
	case tv.kind == acp.KindRequest || tv.kind == acp.KindNotification && tv.method != acp.MethodSessionUpdate:
		same("sessionId", tv.sessionParam(), bv.sessionParam())
	case tv.kind == acp.KindNotification:
		tu, tok := tv.update()
		bu, bok := bv.update()
		same("update", [7]any{tok, tu.session, tu.kind, tu.msgID, tu.state, tu.text(), tu.hasContent()}, [7]any{bok, bu.session, bu.kind, bu.msgID, bu.state, bu.text(), bu.hasContent()})
	case tv.kind == acp.KindResponse && !tv.hasErr:
		same("result", [2]string{tv.messageID(), tv.resultSession()}, [2]string{bv.messageID(), bv.resultSession()})
	}
	// The facts the checker reads (form.go), from each.
	bare := *e
	bare.Digest = nil
	tf, bf := factsOf(e), factsOf(&bare)
	same("facts", strings.Join(tf, "\n"), strings.Join(bf, "\n"))
	var ts, bs, varying []string
	namesKey := false
	literals := acp.DigestLiterals()
	e.Digest.EachString(func(s string, isKey, literal bool) {
		ts = append(ts, fmt.Sprint(s, isKey))
		if literal && !slices.Contains(literals, s) {
			diffs = append(diffs, fmt.Sprintf("%q is passed as a literal and is not one of acp.DigestLiterals", s))
		}
		if !literal {
			varying = append(varying, s)
		}
		namesKey = namesKey || isKey && s == keyField
	})
	// The leak scan reads the strings that vary without the rest.
	values, valuesNameKey := e.Digest.AppendValues(nil)
	same("values", strings.Join(values, " | "), strings.Join(varying, " | "))
	same("names idempotencyKey", valuesNameKey, namesKey)
	eachString(e.Frame, func(s string, isKey bool) { bs = append(bs, fmt.Sprint(s, isKey)) })
	same("strings", strings.Join(ts, " | "), strings.Join(bs, " | "))
	return strings.Join(diffs, "; ")
}

// promptParamsDiff says where the params a prompt's digest gives
// (acp.Digest.PromptParams) differ from those its params' bytes decode to,
// their blocks written again as the Agent writes a stored prompt (its
// encoder and this one both call ContentBlock.MarshalJSON, which writes a
// plain block by hand); "" when they agree or the digest gives none.
func promptParamsDiff(d *acp.Digest, params string) string {
	var dp, bp acp.PromptParams
	if !d.PromptParams(&dp) {
		return ""
	}
	if err := acp.DecodePromptParams(json.RawMessage(params), &bp); err != nil {
		return fmt.Sprintf("the digest gives params, the bytes decode to an error: %v", err)
	}
	dj, _ := json.Marshal(dp.Prompt)
	bj, _ := json.Marshal(bp.Prompt)
	got := fmt.Sprintf("%q %q %s %s", dp.SessionID, acp.PromptText(dp.Prompt), dp.IdempotencyKey, dj)
	want := fmt.Sprintf("%q %q %s %s", bp.SessionID, acp.PromptText(bp.Prompt), bp.IdempotencyKey, bj)
	if got != want || dp.Meta != nil || (dp.IdempotencyKey == nil) != (bp.IdempotencyKey == nil) {
		return fmt.Sprintf("prompt params: digest %s, bytes %s", got, want)
	}
	return ""
}

// factsOf spells out the facts of e, a send, read by an interner of its own.
func factsOf(e *traces.Event) []string {
	in := NewInterner(true)
	st := in.Step(e)
	var out []string
	for _, x := range in.facts(&st, nil) {
		out = append(out, in.factString(&x))
	}
	return out
}
