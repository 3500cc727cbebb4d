// Judging a run: the verdict of a case from the frames the Agent sent.

package suite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

// Status is a case's verdict.
type Status string

// The verdicts.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	// NA: the case does not apply to this Agent, as what it did shows
	// (it rejects busy prompts, keeps sessions in memory, cannot fork).
	NA Status = "n/a"
	// Blocked: a baseline the case needs did not pass (BlockedBy names
	// it), so the case was not run; its own verdict is unknown.
	Blocked Status = "blocked"
)

// Verdict is the judgement of one run of a case.
type Verdict struct {
	Case   *Case
	Status Status
	// Why explains a failure or why the case does not apply, citing
	// frames by number; "" for a pass.
	Why string
	// Frames are the frames that show it.
	Frames []*Frame
	// Source and Quote are the rule a failure broke when it is not the
	// case's own (a session found gone under the durable contract); ""
	// for the case's. Rule reads them.
	Source, Quote string
	// Sessions is what the case showed of the Agent's sessions across a
	// restart or a new connection, for HoldTo's session contract.
	Sessions SessionFate
	// vanished says how the session was found missing (the resume and its
	// answer), when Sessions is Vanished.
	vanished string
	// BlockedBy is the failed baseline that blocked the case.
	BlockedBy string
	// NotJudged lists the parts of the case left unjudged because the
	// baseline they stand on did not pass (the rest was judged).
	NotJudged []string
	// TimedOut: some wait of the run ended on the answer timeout.
	TimedOut bool
	// Log is every frame and event of the run, for a trace.
	Log []*Frame
	// Peer is what the Agent's first initialize answer says of the
	// protocol version it speaks.
	Peer acp.PeerVersion
	// keyRetries counts the keyed retries judged; keyIgnored those
	// answered as a new prompt (a new messageId), for KeyDiagnosis.
	keyRetries, keyIgnored int
}

// Rule is where the rule v checks comes from and its sentence: the case's,
// or the one HoldTo's contract made it break.
func (v Verdict) Rule() (source, quote string) {
	if v.Quote != "" {
		return v.Source, v.Quote
	}
	return v.Case.Source, v.Case.Quote
}

// outcome is what one rule found: held, or why not and where.
type outcome struct {
	held bool
	// fails: a needs rule found that the Agent broke a rule while showing
	// whether the case applies (a resume answered -32603 is neither a
	// resumed session nor an unknown one), so the case fails, not n/a.
	fails  bool
	why    string
	frames []*Frame
	// fate and vanished: what a session needs rule saw (contract.go).
	fate     SessionFate
	vanished string
	// keyJudged: a same-id rule read a retry's answer; keyIgnored: the
	// retry was answered as a new prompt, with a new messageId.
	keyJudged, keyIgnored bool
}

func holds() outcome { return outcome{held: true} }

func broken(frames []*Frame, format string, args ...any) outcome {
	return outcome{why: fmt.Sprintf(format, args...), frames: frames}
}

// rule checks one needs or expect directive.
type rule func(e *Exec, s step, reqs []*request) outcome

// Verdict judges the run. Call it once Next has returned ActDone.
func (e *Exec) Verdict() (v Verdict) {
	v = Verdict{Case: e.c, Status: Pass, Peer: e.peer(), Log: e.log, TimedOut: len(e.timeouts) > 0}
	defer func() { v.Frames = distinct(v.Frames) }()
	if e.na != "" {
		v.Status, v.Why = NA, e.na
		return v
	}
	// A set-up request a needs or an answer-judging expect names is judged
	// by that rule; any other that failed fails the case.
	covered := map[string]bool{}
	needs := e.c.steps
	if e.decided != nil {
		needs = []step{*e.decided} // the rest of the script never ran
	}
	for _, s := range needs {
		if s.cmd == "needs" || s.cmd == "expect" && judgesAnswers[s.pos[0]] {
			for _, l := range s.pos[1:] {
				covered[l] = true
			}
		}
		if s.cmd != "needs" {
			continue
		}
		if sk, ok := e.skipped(s); ok {
			v.Status, v.Why, v.BlockedBy = Blocked, sk.Why, sk.By
			return v
		}
		o := e.check(s)
		if o.fate > v.Sessions {
			v.Sessions, v.vanished = o.fate, o.vanished
		}
		switch {
		case o.fails:
			v.Status, v.Why, v.Frames = Fail, o.why, o.frames
			return v
		case !o.held:
			why := o.why
			if w := s.arg("why"); w != "" {
				why = w + ": " + why
			}
			v.Status, v.Why, v.Frames = NA, why, o.frames
			return v
		}
	}
	var whys []string
	fail := func(o outcome) {
		whys = append(whys, o.why)
		v.Frames = append(v.Frames, o.frames...)
	}
	for _, r := range e.order {
		setup := r.method != acp.MethodSessionPrompt
		if setup && !covered[r.label] && !r.ok() {
			fail(broken(r.frames(), "%s: %s", r.describe(), r.answerText()))
		}
	}
	judged, by, blockedWhy := 0, "", ""
	for _, s := range e.c.steps {
		if s.cmd != "expect" {
			continue
		}
		if sk, ok := e.skipped(s); ok {
			v.NotJudged = append(v.NotJudged, fmt.Sprintf("expect %s: needs %s, which did not pass", s.text(), sk.By))
			if by == "" {
				by, blockedWhy = sk.By, sk.Why
			}
			continue
		}
		judged++
		o := e.check(s)
		if o.keyJudged {
			v.keyRetries++
		}
		if o.keyIgnored {
			v.keyIgnored++
		}
		if !o.held {
			fail(o)
		}
	}
	if e.c.IsBaseline() && len(whys) > 1 {
		// A baseline's first failure is what blocks the cases on it; the
		// rest follow from it (a resume refused has no replay to read).
		whys = whys[:1]
	}
	switch {
	case len(whys) > 0:
		v.Status, v.Why = Fail, strings.Join(whys, "; ")
	case judged == 0 && len(v.NotJudged) > 0:
		v.Status, v.Why, v.BlockedBy, v.NotJudged = Blocked, blockedWhy, by, nil
	}
	return v
}

// distinct keeps the first of each frame, in the order of the log: a
// frame two rules cite is shown once.
func distinct(fs []*Frame) []*Frame {
	seen := map[*Frame]bool{}
	var out []*Frame
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out
}

func (e *Exec) check(s step) outcome {
	var reqs []*request
	for _, l := range s.pos[1:] {
		r := e.reqs[l]
		if r == nil {
			return broken(nil, "%s:%d: the script never sent %s", e.c.File, s.line, l)
		}
		reqs = append(reqs, r)
	}
	return rules[s.pos[0]](e, s, reqs)
}

func (r *request) describe() string {
	return fmt.Sprintf("%s (%s, request %s on %s)", r.label, r.method, r.id, r.conn)
}

// answerText says how r was answered, citing the frame.
func (r *request) answerText() string {
	switch {
	case r.answer == nil && r.lost != "":
		return "never answered: " + r.lost
	case r.answer == nil:
		return "not answered in time"
	case r.answer.msg.Error != nil:
		return fmt.Sprintf("answered error %d %q at #%d", r.answer.msg.Error.Code, r.answer.msg.Error.Message, r.answer.N)
	case r.method == acp.MethodSessionPrompt:
		return fmt.Sprintf("answered messageId %q at #%d", r.messageID(), r.answer.N)
	}
	return fmt.Sprintf("answered at #%d", r.answer.N)
}

// frames are r's request and answer, for a report.
func (r *request) frames() []*Frame {
	if r.answer == nil {
		return []*Frame{r.sent}
	}
	return []*Frame{r.sent, r.answer}
}

// turnIdle is the number of the first idle state_update of r's session that
// arrived after r's answer (0: none).
func (e *Exec) turnIdle(r *request) *Frame {
	if r.answer == nil {
		return nil
	}
	sid := e.session(r.session)
	for _, f := range e.log[r.answer.N:] {
		if f.upd != nil && f.upd.SessionID == sid && f.upd.Update.Kind == acp.UpdateState && f.upd.Update.State == acp.StateIdle {
			return f
		}
	}
	return nil
}

// replayed are the distinct user messages (id → text) the Agent sent for
// r's session on r's connection after r, until the suite sent its next
// frame there: a resume's replay.
func (e *Exec) replayed(r *request) (ids []string, text map[string]string, frames []*Frame) {
	text = map[string]string{}
	sid := e.session(r.session)
	for _, f := range e.log[r.sent.N:] {
		if f.Conn != r.conn || f.Event != "" {
			continue
		}
		if f.Out {
			break
		}
		u := f.upd
		if u == nil || u.SessionID != sid || (u.Update.Kind != acp.UpdateUserMessage && u.Update.Kind != acp.UpdateUserMessageChunk) {
			continue
		}
		t, _ := u.Update.ContentText()
		id := u.Update.MessageID
		if _, seen := text[id]; !seen {
			ids = append(ids, id)
		}
		text[id] += t
		frames = append(frames, f)
	}
	return ids, text, frames
}
