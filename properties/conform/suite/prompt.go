// The prompts a case sends, and waiting for a session to fall idle.

package suite

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

// prompt sends session/prompt as step s says: the text (or an image block),
// and the key as a string (key=), as raw JSON (rawkey=), as n astral-plane
// code points (astral=, 4 bytes of UTF-8 each) or as n ASCII letters
// (keylen=); without any of them the field is absent.
func (e *Exec) prompt(c string, s step) Action {
	p := acp.PromptParams{SessionID: e.session(s.arg("session"))}
	if b := s.arg("block"); b != "" {
		var blk acp.ContentBlock
		if err := json.Unmarshal([]byte(b), &blk); err != nil {
			panic(fmt.Sprintf("%s:%d: block=%s: %v", e.c.File, s.line, b, err))
		}
		p.Prompt = []acp.ContentBlock{blk}
	} else if s.flags["image"] {
		var img acp.ContentBlock
		_ = json.Unmarshal([]byte(`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`), &img)
		p.Prompt = []acp.ContentBlock{img}
	} else {
		p.Prompt = []acp.ContentBlock{acp.Text(s.arg("text"))}
	}
	key := ""
	switch {
	case s.args["key"] != "":
		key = s.arg("key")
	case s.args["astral"] != "":
		key = strings.Repeat("\U0001F600", atoi(s.arg("astral")))
	case s.args["keylen"] != "":
		key = strings.Repeat("k", atoi(s.arg("keylen")))
	}
	switch {
	case key != "":
		p.IdempotencyKey = acp.KeyJSON(key)
	case s.args["rawkey"] != "":
		p.IdempotencyKey = json.RawMessage(s.arg("rawkey"))
	}
	a, r := e.send(c, s.arg("as"), acp.MethodSessionPrompt, p, s)
	r.text = s.arg("text")
	if key != "" && len([]rune(key)) <= acp.MaxKeyLength {
		r.key = key
		e.keys = append(e.keys, key)
	}
	return a
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("suite: %q is not a number", s))
	}
	return n
}

// idle waits until session s has gone idle after the last prompt answered
// in it: a state_update idle that arrived after that answer. An Agent that
// never sent a state_update for the session is left to fall quiet instead.
func (e *Exec) idle(label string) {
	sid := e.session(label)
	e.waitWhat = "session " + label + " to go idle"
	e.wait = func() bool {
		last, states := e.lastAnswer(sid), 0
		for _, f := range e.log {
			if f.upd == nil || f.upd.SessionID != sid || f.upd.Update.Kind != acp.UpdateState {
				continue
			}
			states++
			if f.N > last && f.upd.Update.State == acp.StateIdle {
				return true
			}
		}
		if states == 0 {
			e.settle = true
		}
		return false
	}
}

// running waits until session s is running the turn of the last prompt
// answered in it: a state_update running (or any agent output) after that
// answer. An Agent that is idle again at once, or never says, is waited
// for until the answer timeout; the needs rules then say the case does not
// apply.
func (e *Exec) running(label string) {
	sid := e.session(label)
	e.waitWhat = "session " + label + " to be running"
	e.wait = func() bool {
		last := e.lastAnswer(sid)
		for _, f := range e.log[last:] {
			if f.upd == nil || f.upd.SessionID != sid {
				continue
			}
			u := f.upd.Update
			switch {
			case u.Kind == acp.UpdateState && u.State == acp.StateIdle:
				return true // over already: the needs rules tell
			case u.Kind == acp.UpdateState || u.Kind == acp.UpdateAgentMessageChunk:
				return true
			}
		}
		return false
	}
}

// lastAnswer is the number of the last answer in session sid that
// inserted a message (0: none): a retry answered with an earlier answer's
// messageId starts no work, so there is no turn of it to wait for.
func (e *Exec) lastAnswer(sid string) int {
	last := 0
	seen := map[string]bool{}
	for _, r := range e.answeredInOrder() {
		id := r.messageID()
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if e.session(r.session) == sid {
			last = r.answer.N
		}
	}
	return last
}

// answeredInOrder are the prompts answered with a messageId, in the order
// of their answers.
func (e *Exec) answeredInOrder() []*request {
	var out []*request
	for _, r := range e.order {
		if r.method == acp.MethodSessionPrompt && r.ok() {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].answer.N < out[j].answer.N })
	return out
}

func (e *Exec) sortedConns() []*conn {
	out := make([]*conn, 0, len(e.conns))
	for _, c := range e.conns {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
