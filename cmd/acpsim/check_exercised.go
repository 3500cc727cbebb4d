// Which user action classes a check seed really exercised: a class drawn on
// only says the users tried; what the Agent got and answered is in the
// trace. An Agent that answers every session/fork -32601 has had no fork
// tested, however many seeds drew the fork class.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// classUse is what a seed's wire shows of one action class.
type classUse struct {
	// exercised counts the actions that reached the Agent in a state where
	// they do what the class is for (check --help says which).
	exercised int
	// why counts, for the attempts that did not, the reason in words
	// ("session/fork answered -32601").
	why map[string]int
}

func (u *classUse) miss(why string) {
	if u.why == nil {
		u.why = map[string]int{}
	}
	u.why[why]++
}

// classNoneReached is why a class was not exercised when none of its
// actions reached the Agent at all.
var classNoneReached = map[string]string{
	"cancel-request": "no $/cancel_request reached the Agent",
	"session-cancel": "no session/cancel reached the Agent",
	"close-resume":   "no session/close reached the Agent",
	"fork":           "no session/fork reached the Agent",
	"impatient":      "no prompt was sent again: every one was answered within the timeout",
}

// wireMsg is the part of a JSON-RPC frame the class accounting reads.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		SessionID string          `json:"sessionId"`
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// pendingReq is a request the Agent got and has not answered yet.
type pendingReq struct {
	method, session, sub string
}

// classesOnWire reads a seed's trace for what each action class did. A
// request counts from when the proxy delivered it to the Agent until the
// Agent sent its answer or the connection ended; the observer's frames are
// not the users'.
func classesOnWire(events []traces.Event) map[string]*classUse {
	use := map[string]*classUse{}
	for _, c := range users.ActionClasses {
		use[c.Name] = &classUse{}
	}
	pending := map[string]map[string]pendingReq{} // link → request id → request
	closed := map[string]bool{}                   // sessions whose session/close was answered with success
	resent := 0                                   // prompts sent again
	promptPending := func(match func(pendingReq) bool) bool {
		for _, reqs := range pending {
			for _, r := range reqs {
				if r.method == acp.MethodSessionPrompt && match(r) {
					return true
				}
			}
		}
		return false
	}
	prompted := map[string]bool{} // submissions whose prompt reached the Agent
	for _, e := range events {
		if e.From == traces.Observer || e.To == traces.Observer {
			continue
		}
		if e.Kind == traces.KindDisconnect {
			delete(pending, e.Link)
			continue
		}
		var m wireMsg
		if e.Frame == "" || json.Unmarshal([]byte(e.Frame), &m) != nil {
			continue
		}
		switch {
		case e.Kind == traces.KindDeliver && e.Dir == traces.ClientToAgent:
			switch m.Method {
			case acp.MethodSessionPrompt:
				if prompted[e.Sub] && e.Sub != "" {
					resent++
					if promptPending(func(r pendingReq) bool { return r.sub == e.Sub }) {
						use["impatient"].exercised++
					} else {
						use["impatient"].miss("prompts were sent again only after their first attempt was answered or its connection ended")
					}
				}
				prompted[e.Sub] = true
			case acp.MethodSessionCancel:
				if promptPending(func(r pendingReq) bool { return r.session == m.Params.SessionID }) {
					use["session-cancel"].exercised++
				} else {
					use["session-cancel"].miss("session/cancel came with no prompt of its session pending")
				}
			case acp.MethodCancelRequest:
				if _, ok := pending[e.Link][string(m.Params.RequestID)]; ok {
					use["cancel-request"].exercised++
				} else {
					use["cancel-request"].miss("$/cancel_request named a request already answered")
				}
			}
			if m.Method == acp.MethodSessionLoad {
				m.Method = acp.MethodSessionResume // v1's reopening, with its replay
			}
			if len(m.ID) > 0 && m.Method != "" {
				if pending[e.Link] == nil {
					pending[e.Link] = map[string]pendingReq{}
				}
				pending[e.Link][string(m.ID)] = pendingReq{m.Method, m.Params.SessionID, e.Sub}
			}
		case e.Kind == traces.KindSend && e.Dir == traces.AgentToClient && m.Method == "" && len(m.ID) > 0:
			r, ok := pending[e.Link][string(m.ID)]
			if !ok {
				continue
			}
			delete(pending[e.Link], string(m.ID))
			answered := func(what string) string {
				if m.Error != nil {
					return fmt.Sprintf("%s answered %d", what, m.Error.Code)
				}
				return what + " answered with neither result nor error"
			}
			ok = m.Error == nil && len(m.Result) > 0
			switch r.method {
			case acp.MethodSessionFork:
				if ok {
					use["fork"].exercised++
				} else {
					use["fork"].miss(answered("session/fork"))
				}
			case acp.MethodSessionClose:
				if ok {
					closed[r.session] = true
				} else {
					use["close-resume"].miss(answered("session/close"))
				}
			case acp.MethodSessionResume:
				switch {
				case !closed[r.session]:
				case ok:
					use["close-resume"].exercised++
					delete(closed, r.session)
				default:
					use["close-resume"].miss(answered("session/resume after session/close"))
				}
			}
		}
	}
	for range closed {
		use["close-resume"].miss("a session closed was not resumed after it")
	}
	for _, reqs := range pending {
		for _, r := range reqs {
			switch r.method {
			case acp.MethodSessionFork:
				use["fork"].miss("session/fork never answered")
			case acp.MethodSessionClose:
				use["close-resume"].miss("session/close never answered")
			}
		}
	}
	return use
}

// checkClassTotal is one action class's line in check's summary: the seeds
// it was on in, those whose wire shows it exercised, those that failed,
// and why it was not exercised where it was on.
type checkClassTotal struct {
	class                 string
	on, exercised, failed int
	ran                   int // seeds on whose Agent was not broken
	why                   map[string]int
}

// add folds in a seed that had the class on. A seed whose Agent is broken
// ran no action: it says nothing of why the class was not exercised.
func (c *checkClassTotal) add(u *classUse, failed, broken bool) {
	c.on++
	if failed {
		c.failed++
	}
	if u == nil || broken {
		return
	}
	c.ran++
	if u.exercised > 0 {
		c.exercised++
		return
	}
	if c.why == nil {
		c.why = map[string]int{}
	}
	for w, n := range u.why {
		c.why[w] += n
	}
}

// notExercised says in words why a class on in some seeds was exercised in
// none: the most common reason, with how often, or that nothing of the
// class reached the Agent.
func (c *checkClassTotal) notExercised() string {
	var reasons []string
	total := 0
	for w, n := range c.why {
		reasons = append(reasons, w)
		total += n
	}
	sort.Slice(reasons, func(i, j int) bool {
		if c.why[reasons[i]] != c.why[reasons[j]] {
			return c.why[reasons[i]] > c.why[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	line := fmt.Sprintf("%s: on in %d %s, exercised in 0", c.class, c.on, plural(c.on, "seed"))
	switch {
	case len(reasons) == 0:
		return line + ": " + classNoneReached[c.class]
	case len(reasons) == 1 && total == 1:
		return line + ": " + reasons[0]
	case len(reasons) == 1:
		return fmt.Sprintf("%s: %s, all %d times", line, reasons[0], total)
	}
	return fmt.Sprintf("%s: most often %s, %d of %d times", line, reasons[0], c.why[reasons[0]], total)
}

// writeCheckActionClasses prints check's action class table (on, exercised,
// failed), then one line per class on in some seeds but exercised in none.
func writeCheckActionClasses(out io.Writer, classes []checkClassTotal) {
	if classes == nil {
		return
	}
	fmt.Fprintln(out, "user actions (each seed switches a class on or off and draws how often each user does it; exercised: the trace shows it done):")
	fmt.Fprintf(out, "  %-15s %-53s %6s %9s %7s\n", "class", "what the user does", "on", "exercised", "failed")
	for _, c := range classes {
		ac, _ := users.ActionClassOf(c.class)
		fmt.Fprintf(out, "  %-15s %-53s %6d %9d %7d\n", c.class, ac.Doc, c.on, c.exercised, c.failed)
	}
	for _, c := range classes {
		if c.ran > 0 && c.exercised == 0 {
			fmt.Fprintf(out, "  not exercised: %s\n", c.notExercised())
		}
	}
}

// unexercised names the classes on in some seeds that ran but exercised in
// none.
func unexercised(classes []checkClassTotal) []string {
	var out []string
	for _, c := range classes {
		if c.ran > 0 && c.exercised == 0 {
			out = append(out, c.class)
		}
	}
	return out
}

// seedExercised names, of the classes on in a seed, those its wire shows
// exercised and those it does not: for JUnit's properties.
func seedExercised(on []string, use map[string]*classUse) (done, not []string) {
	for _, c := range on {
		if u := use[c]; u != nil && u.exercised > 0 {
			done = append(done, c)
		} else {
			not = append(not, c)
		}
	}
	return done, not
}

// notExercisedNote is what the PASS line adds when classes were drawn but
// never done, so that it claims no test of them.
func notExercisedNote(classes []checkClassTotal) string {
	not := unexercised(classes)
	if len(not) == 0 {
		return ""
	}
	return "; not exercised: " + strings.Join(not, ", ")
}
