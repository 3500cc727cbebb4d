// The rules only baseline cases use.

package suite

import (
	"encoding/json"

	"github.com/acpsim/acpsim/actors/acp"
)

// sessionID is a session/new or session/fork's answered sessionId ("" if none).
func (r *request) sessionID() string {
	if !r.ok() {
		return ""
	}
	var res acp.NewSessionResult
	if json.Unmarshal(r.answer.msg.Result, &res) != nil {
		return ""
	}
	return res.SessionID
}

// initializeFields are what an initialize answer must carry, with the JSON
// kind each must be.
var initializeFields = []struct{ name, kind string }{
	{"protocolVersion", "number"},
	{"info", "object"},
	{"capabilities", "object"},
}

// expectInitialized: the initialize request succeeded with protocolVersion,
// info (name and version) and capabilities.
func expectInitialized(e *Exec, s step, reqs []*request) outcome {
	for _, r := range reqs {
		if o := expectOK(e, s, []*request{r}); !o.held {
			return o
		}
		var res map[string]json.RawMessage
		if json.Unmarshal(r.answer.msg.Result, &res) != nil {
			return broken(r.frames(), "%s was answered at #%d with a result that is not an object", r.describe(), r.answer.N)
		}
		for _, f := range initializeFields {
			if kindOf(res[f.name]) != f.kind {
				return broken(r.frames(), "%s was answered at #%d without %s (a %s)", r.describe(), r.answer.N, f.name, f.kind)
			}
		}
		var info struct{ Name, Version string }
		if json.Unmarshal(res["info"], &info) != nil || info.Name == "" || info.Version == "" {
			return broken(r.frames(), "%s was answered at #%d with an info that lacks name or version", r.describe(), r.answer.N)
		}
	}
	return holds()
}

func kindOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "absent"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// expectTurn: the prompt reqs[0] started a turn its session reported: a
// state_update running after the prompt was sent, then idle after it.
func expectTurn(e *Exec, s step, reqs []*request) outcome {
	p := reqs[0]
	if o := expectOK(e, s, reqs[:1]); !o.held {
		return o
	}
	sid := e.session(p.session)
	var running *Frame
	for _, f := range e.log[p.sent.N:] {
		if f.upd == nil || f.upd.SessionID != sid || f.upd.Update.Kind != acp.UpdateState {
			continue
		}
		switch {
		case f.upd.Update.State == acp.StateRunning && running == nil:
			running = f
		case f.upd.Update.State == acp.StateIdle && running != nil:
			return holds()
		}
	}
	if running == nil {
		return broken(p.frames(), "the Agent sent no state_update running for the turn of %s (answered at #%d): a Client cannot tell when work starts or ends", p.label, p.answer.N)
	}
	return broken([]*Frame{running}, "the Agent sent state_update running at #%d for the turn of %s, but no idle after it", running.N, p.label)
}
