package properties

import (
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/acp/jsonscan"
)

// The fields the checker reads from params and results. Each reader takes the
// scanner's path and falls back to the acp codec where the scanner declines.

type promptFields struct {
	session string
	prompt  string // raw JSON
	key     string // raw JSON; "" when absent
	// text is the prompt's text when a digest gave it (hasText), instead
	// of the raw prompt.
	text    string
	hasText bool
}

var promptKeys = []string{"sessionId", "prompt", "idempotencyKey"}

func readPrompt(params string) promptFields {
	var v [3]string
	if jsonscan.FieldsOf(params, promptKeys, v[:]) {
		if s, ok := jsonscan.StringField(v[0]); ok {
			return promptFields{session: s, prompt: v[1], key: v[2]}
		}
	}
	var p struct {
		SessionID      string          `json:"sessionId"`
		Prompt         json.RawMessage `json:"prompt"`
		IdempotencyKey json.RawMessage `json:"idempotencyKey"`
	}
	// A type error in one field still fills the others, so the key is judged
	// even in otherwise bad params.
	_ = json.Unmarshal([]byte(params), &p)
	return promptFields{session: p.SessionID, prompt: string(p.Prompt), key: string(p.IdempotencyKey)}
}

var sessionKeys = []string{"sessionId"}

func readSession(params string) string {
	var v [1]string
	if jsonscan.FieldsOf(params, sessionKeys, v[:]) {
		if s, ok := jsonscan.StringField(v[0]); ok {
			return s
		}
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal([]byte(params), &p)
	return p.SessionID
}

var resultKeys = []string{"messageId"}

func readMessageID(result string) string {
	var v [1]string
	if jsonscan.FieldsOf(result, resultKeys, v[:]) {
		if s, ok := jsonscan.StringField(v[0]); ok {
			return s
		}
	}
	var r struct {
		MessageID string `json:"messageId"`
	}
	_ = json.Unmarshal([]byte(result), &r)
	return r.MessageID
}

// updView is the part of a session/update the checker reads.
type updView struct {
	session, kind, msgID, state string
	content                     string // raw JSON
	// typedText is the content's text when a digest gave it (typed), and
	// typedContent whether the update had content.
	typedText    string
	typed        bool
	typedContent bool
	// ids: sessionH and msgH are session's and msgID's handles (a
	// digest's, from its step); otherwise fact making interns them
	// (Interner.idOf).
	ids            bool
	sessionH, msgH int32
}

// hasContent reports whether the update carries content (even null or []).
func (u *updView) hasContent() bool {
	if u.typed {
		return u.typedContent
	}
	return u.content != ""
}

var (
	updateParamKeys = []string{"sessionId", "update"}
	updateKeys      = []string{"sessionUpdate", "messageId", "state", "content"}
)

func readUpdate(params string) (u updView, ok bool) {
	var p [2]string
	var v [4]string
	if jsonscan.FieldsOf(params, updateParamKeys, p[:]) && jsonscan.FieldsOf(p[1], updateKeys, v[:]) {
		var ok [4]bool
		u.session, ok[0] = jsonscan.StringField(p[0])
		u.kind, ok[1] = jsonscan.StringField(v[0])
		u.msgID, ok[2] = jsonscan.StringField(v[1])
		u.state, ok[3] = jsonscan.StringField(v[2])
		if ok == [4]bool{true, true, true, true} {
			u.content = v[3]
			return u, true
		}
	}
	var up acp.SessionUpdateParams
	if json.Unmarshal([]byte(params), &up) != nil {
		return updView{}, false
	}
	return updView{session: up.SessionID, kind: up.Update.Kind, msgID: up.Update.MessageID, state: up.Update.State, content: string(up.Update.Content)}, true
}

// text is the update's content as acp reads it.
func (u *updView) text() string {
	if u.typed {
		return u.typedText
	}
	if t, ok := contentText(u.content); ok {
		return t
	}
	up := acp.Update{Kind: u.kind, Content: json.RawMessage(u.content)}
	t, _ := up.ContentText()
	return t
}

var blockKeys = []string{"type", "text"}

// contentText is acp.Update.ContentText's text for the spellings the scanner
// reads exactly: absent or null, one content block, or an array of one;
// ok is false for anything else, which the codec reads.
func contentText(c string) (string, bool) {
	if c == "" || c == "null" {
		return "", true
	}
	var vals [2]string
	noCtl := !jsonscan.HasControl(c)
	end, ok := 0, false
	switch c[0] {
	case '{':
		end, ok = jsonscan.Object(c, 0, blockKeys, vals[:], 0, noCtl)
	case '[':
		end, ok = jsonscan.Object(c, jsonscan.SkipWS(c, 1), blockKeys, vals[:], 1, noCtl)
		if end = jsonscan.SkipWS(c, end); ok && end < len(c) && c[end] == ']' {
			end++
		} else {
			ok = false
		}
	}
	if !ok || end != len(c) {
		return "", false
	}
	if _, ok := jsonscan.StringField(vals[0]); !ok {
		return "", false
	}
	return jsonscan.StringField(vals[1])
}

// promptKey reads a prompt's raw idempotencyKey as acp.PromptParams.Key
// does: present with a string of 1 to 255 code points, absent when omitted
// or null, bad otherwise. A plain string is read in place (acp.PlainKey);
// valid says raw is known valid UTF-8 (a digest's strings are), so as not
// to check it again.
func promptKey(raw string, valid bool) (key string, present, bad bool) {
	if valid || utf8.ValidString(raw) {
		if s, ok := acp.PlainKey(raw); ok && acp.ValidKeyFits(s) {
			return s, true, false
		}
	}
	var pp acp.PromptParams
	if raw != "" {
		pp.IdempotencyKey = json.RawMessage(raw)
	}
	key, present, err := pp.Key()
	return key, present, err != nil
}

var cancelRequestKeys = []string{"requestId"}

// readRequestID reads the requestId of $/cancel_request params as the acp
// codec decodes acp.CancelRequestParams; "" when absent or unreadable (the
// Agent then has nothing to cancel).
func readRequestID(params string) acp.ID {
	var v [1]string
	if jsonscan.FieldsOf(params, cancelRequestKeys, v[:]) {
		if v[0] == "" {
			return ""
		}
		if id, ok := acp.ScanID(v[0]); ok {
			return id
		}
	}
	var p acp.CancelRequestParams
	if acp.DecodeParams(json.RawMessage(params), &p) != nil {
		return ""
	}
	return p.RequestID
}
