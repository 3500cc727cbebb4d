// This file holds what the page reads of a JSON-RPC frame and the few words
// it labels the frame with.

package view

import (
	"encoding/json"
	"fmt"
	"strings"
)

// frame is what the page needs to know of one JSON-RPC frame.
type frame struct {
	ok      bool   // it parsed as a JSON object
	batch   int    // elements of a batch
	id      string // the id as JSON, "" when none
	method  string
	result  bool
	errCode int
	errMsg  string
	msg     string // result.messageId, or the messageId of a user_message update
	update  string // params.update.sessionUpdate
	state   string // params.update.state
	key     string // params.idempotencyKey when it is a string
	session string // params.sessionId
	hasKey  bool
}

func parseFrame(s string) frame {
	var f frame
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "[") {
		var arr []json.RawMessage
		if json.Unmarshal([]byte(t), &arr) == nil {
			f.batch = len(arr)
		}
		return f
	}
	var raw struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Params struct {
			Session string          `json:"sessionId"`
			Key     json.RawMessage `json:"idempotencyKey"`
			Update  struct {
				Kind      string `json:"sessionUpdate"`
				MessageID string `json:"messageId"`
				State     string `json:"state"`
			} `json:"update"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(t), &raw) != nil {
		return f
	}
	f.ok = true
	if len(raw.ID) > 0 && string(raw.ID) != "null" {
		f.id = string(raw.ID)
	}
	f.method = raw.Method
	if len(raw.Result) > 0 {
		f.result = true
		var res struct {
			MessageID string `json:"messageId"`
		}
		if json.Unmarshal(raw.Result, &res) == nil {
			f.msg = res.MessageID
		}
	}
	if raw.Error != nil {
		f.errCode, f.errMsg = raw.Error.Code, raw.Error.Message
	}
	if len(raw.Params.Key) > 0 {
		f.hasKey = true
		_ = json.Unmarshal(raw.Params.Key, &f.key) // a malformed key (a number, an object) stays ""
	}
	f.session = raw.Params.Session
	f.update, f.state = raw.Params.Update.Kind, raw.Params.Update.State
	if f.update == "user_message" {
		f.msg = raw.Params.Update.MessageID
	}
	return f
}

// frameLabel is a frame in a few words, and its class for colour.
func frameLabel(f frame) (label, class string) {
	switch {
	case f.batch > 0:
		return fmt.Sprintf("batch of %d", f.batch), "other"
	case !f.ok:
		return "(not a JSON object)", "other"
	case f.method == "session/prompt":
		l := "session/prompt #" + f.id
		if f.hasKey {
			l += " key " + keyPrefix(f.key)
		}
		// The same key in two sessions is a different submission: the
		// session beside the key tells them apart at a glance.
		if f.session != "" {
			l += " session " + short(f.session)
		}
		return l, "prompt"
	case f.method == "session/update":
		l := "update " + f.update
		if f.state != "" {
			l += " " + f.state
		}
		if f.msg != "" {
			return l + " " + short(f.msg), "user-message"
		}
		return l, "update"
	case f.method != "" && f.id != "":
		return f.method + " #" + f.id, "other"
	case f.method != "":
		return f.method, "other"
	case f.errCode != 0 || f.errMsg != "":
		return fmt.Sprintf("error #%s %d", f.id, f.errCode), "response"
	case f.msg != "":
		return "result #" + f.id + " messageId " + short(f.msg), "response"
	default:
		return "result #" + f.id, "response"
	}
}
