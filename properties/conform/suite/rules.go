// The rules a case file names after needs (does the case apply to this
// Agent?) and expect (what must hold of its frames).

package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

var rules map[string]rule

func init() {
	rules = map[string]rule{
		// needs
		"stored-session": needStoredSession,
		"resumable":      needResumable,
		"held":           needHeld,
		"during-work":    needDuringWork,
		"held-at-cancel": needHeldAtCancel,
		// needs or expect
		"ok":    expectOK,
		"error": expectError,
		// expect
		"same-id":   expectSameID,
		"fresh":     expectFresh,
		"cancelled": expectCancelled,
		"replay":    expectReplay,
		"reused":    expectReused,
		"private":   expectPrivate,
		"agrees":    expectAgrees,
		"turns":     expectTurns,
		"resumed":   expectResumed,
		"announced": expectAnnounced,
		// baselines
		"initialized": expectInitialized,
		"turn":        expectTurn,
	}
}

// judgesAnswers are the expect rules that judge a request's answer
// whatever it is, an error included: a set-up request they name is theirs
// to judge, not failed for its error.
var judgesAnswers = map[string]bool{"error": true, "resumed": true, "ok": true, "initialized": true, "turn": true}

func expectOK(e *Exec, s step, reqs []*request) outcome {
	for _, r := range reqs {
		if !r.ok() || r.method == acp.MethodSessionPrompt && r.messageID() == "" || r.method == acp.MethodSessionNew && r.sessionID() == "" {
			what := r.answerText()
			switch {
			case r.ok() && r.method == acp.MethodSessionNew:
				what = "answered without a sessionId at #" + strconv.Itoa(r.answer.N)
			case r.ok():
				what = "answered without a messageId at #" + strconv.Itoa(r.answer.N)
			}
			if er := r.err(); er != nil && er.Code == acp.CodeMethodNotFound {
				return broken(r.frames(), "the Agent does not offer %s: %s was %s", r.method, r.describe(), what)
			}
			return broken(r.frames(), "%s was %s; it must succeed", r.describe(), what)
		}
	}
	return holds()
}

func expectError(e *Exec, s step, reqs []*request) outcome {
	want := 0
	if c := s.arg("code"); c != "" {
		want = atoi(c)
	}
	for _, r := range reqs {
		er := r.err()
		switch {
		case er == nil && want != 0:
			return broken(r.frames(), "%s was %s; it must be answered with error %d", r.describe(), r.answerText(), want)
		case er == nil:
			return broken(r.frames(), "%s was %s; it must be answered with an error", r.describe(), r.answerText())
		case want != 0 && er.Code != want:
			return broken(r.frames(), "%s was %s; the error must be %d", r.describe(), r.answerText(), want)
		}
	}
	return holds()
}

func expectSameID(e *Exec, s step, reqs []*request) outcome {
	first := reqs[0]
	if o := expectOK(e, s, reqs[:1]); !o.held {
		return o
	}
	for _, r := range reqs[1:] {
		if r.messageID() != first.messageID() {
			o := broken(append(first.frames(), r.frames()...),
				"%s, a retry with the same key, was %s; it must get the original's messageId %q (%s)",
				r.describe(), r.answerText(), first.messageID(), first.label)
			o.keyJudged = r.answer != nil
			o.keyIgnored = r.messageID() != ""
			return o
		}
	}
	o := holds()
	o.keyJudged = true
	return o
}

func expectFresh(e *Exec, s step, reqs []*request) outcome {
	if o := expectOK(e, s, reqs); !o.held {
		return o
	}
	a, b := reqs[0], reqs[1]
	if a.messageID() == b.messageID() {
		return broken(append(a.frames(), b.frames()...),
			"%s was answered with %s's messageId %q: it was taken for a retry of %s, but it is a new submission",
			b.describe(), a.label, a.messageID(), a.label)
	}
	return holds()
}

func expectCancelled(e *Exec, s step, reqs []*request) outcome {
	for _, r := range reqs {
		if er := r.err(); er == nil || er.Code != acp.CodeRequestCancelled {
			return broken(r.frames(), "%s was %s; every pending request for the withdrawn key must be answered -32800", r.describe(), r.answerText())
		}
	}
	return holds()
}

// expectReplay: the replay of reqs[0] (a resume) holds count user messages
// whose text is text= (or of= a prompt's), with the messageId of id= if
// given.
func expectReplay(e *Exec, s step, reqs []*request) outcome {
	r := reqs[0]
	text := s.arg("text")
	if of := e.reqs[s.arg("of")]; of != nil {
		text = of.text
	}
	want := atoi(s.arg("count"))
	if !r.ok() {
		return broken(r.frames(), "%s was %s, so its replay cannot be read", r.describe(), r.answerText())
	}
	ids, texts, frames := e.replayed(r)
	var match []string
	for _, id := range ids {
		if texts[id] == text {
			match = append(match, id)
		}
	}
	if len(match) != want {
		if len(frames) == 0 {
			frames = r.frames()
		}
		return broken(frames, "the replay of %s holds %d user message(s) %q (ids %s); it must hold %d",
			r.describe(), len(match), text, strings.Join(quoteAll(match), ", "), want)
	}
	if p := e.reqs[s.arg("id")]; p != nil && want == 1 && match[0] != p.messageID() {
		return broken(append(p.frames(), frames...), "the replay of %s shows %q with messageId %q, but %s was answered %q: a retained message keeps its messageId",
			r.describe(), text, match[0], p.label, p.messageID())
	}
	return holds()
}

// expectAnnounced: every user_message (or chunk) of a prompt's text the
// Agent sent on its connection, from the prompt until the suite's next
// frame there, carries the messageId the prompt was answered with: a
// retry answered with the original id but announced under another one
// shows every Client the input inserted twice.
func expectAnnounced(e *Exec, s step, reqs []*request) outcome {
	for _, r := range reqs {
		if o := expectOK(e, s, []*request{r}); !o.held {
			return o
		}
		ids, texts, frames := e.replayed(r)
		for _, id := range ids {
			if texts[id] == r.text && id != r.messageID() {
				return broken(append(r.frames(), frames...), "%s was answered with messageId %q, but the Agent announced its prompt %q live as a user_message with messageId %q: a live message carries the id the response gave",
					r.describe(), r.messageID(), r.text, id)
			}
		}
	}
	return holds()
}

// expectReused: reqs[0] reused the key of first= with a different prompt:
// it is -32602, or answered as a retry (the first prompt's messageId).
func expectReused(e *Exec, s step, reqs []*request) outcome {
	r, first := reqs[0], e.reqs[s.arg("original")]
	if er := r.err(); er != nil && er.Code == acp.CodeInvalidParams {
		return holds()
	}
	if r.ok() && r.messageID() == first.messageID() {
		return holds()
	}
	return broken(append(first.frames(), r.frames()...), "%s, the recorded key of %s with a different prompt, was %s; it must be -32602 or answered as a retry with %q",
		r.describe(), first.label, r.answerText(), first.messageID())
}

// expectPrivate: no Agent frame in scope (in=updates, in=errors, in=LABEL
// for a request's answer and replay; all frames without in=) carries a key
// the suite sent, or an idempotencyKey field.
func expectPrivate(e *Exec, s step, reqs []*request) outcome {
	in := s.arg("in")
	scope := func(f *Frame) bool { return true }
	switch r := e.reqs[in]; {
	case in == "updates":
		scope = func(f *Frame) bool { return f.upd != nil }
	case in == "errors":
		scope = func(f *Frame) bool { return f.msg != nil && f.msg.Error != nil }
	case r != nil:
		_, _, replay := e.replayed(r)
		scope = func(f *Frame) bool { return f == r.answer || contains(replay, f) }
	}
	for _, f := range e.log {
		if f.Out || f.Event != "" || !scope(f) {
			continue
		}
		if bytes.Contains(f.Bytes, []byte(`"idempotencyKey"`)) {
			return broken([]*Frame{f}, "#%d carries an idempotencyKey field: keys stay private", f.N)
		}
		for _, k := range e.keys {
			enc, _ := json.Marshal(k)
			if bytes.Contains(f.Bytes, []byte(k)) || bytes.Contains(f.Bytes, enc[1:len(enc)-1]) {
				return broken([]*Frame{f}, "#%d carries the key %q: keys stay private", f.N, short(k))
			}
		}
	}
	return holds()
}

// expectAgrees: the answer to a held prompt agrees with the transcript: an
// error means it was not inserted (not in the replay of reqs[1]); a
// messageId means it was, once.
func expectAgrees(e *Exec, s step, reqs []*request) outcome {
	p, r := reqs[0], reqs[1]
	if !r.ok() {
		return broken(r.frames(), "%s was %s, so its replay cannot be read", r.describe(), r.answerText())
	}
	ids, texts, frames := e.replayed(r)
	var match []string
	for _, id := range ids {
		if texts[id] == p.text {
			match = append(match, id)
		}
	}
	switch {
	case p.answer == nil:
		return broken(p.frames(), "%s was %s; a held prompt must still be answered", p.describe(), p.answerText())
	case p.err() != nil && len(match) > 0:
		return broken(append(p.frames(), frames...), "%s was %s, which means it was not inserted, yet the replay of %s holds it (%s)",
			p.describe(), p.answerText(), r.label, strings.Join(quoteAll(match), ", "))
	case p.ok() && (len(match) != 1 || match[0] != p.messageID()):
		return broken(append(p.frames(), frames...), "%s was %s, but the replay of %s holds %d such message(s) (%s)",
			p.describe(), p.answerText(), r.label, len(match), strings.Join(quoteAll(match), ", "))
	}
	return holds()
}

// expectTurns: the session of the request until= started count= rounds of
// work (a state_update running) before that request was sent: a retry
// answered from its key starts none.
func expectTurns(e *Exec, s step, _ []*request) outcome {
	until := e.reqs[s.arg("until")]
	sid, want := e.session(until.session), atoi(s.arg("count"))
	var runs []*Frame
	for _, f := range e.log[:until.sent.N] {
		if f.upd != nil && f.upd.SessionID == sid && f.upd.Update.Kind == acp.UpdateState && f.upd.Update.State == acp.StateRunning {
			runs = append(runs, f)
		}
	}
	if len(runs) != want {
		return broken(runs, "session %s started %d round(s) of work (state_update running at %s), for %d submission(s): a retry must not start a second round of work",
			until.session, len(runs), frameNumbers(runs), want)
	}
	return holds()
}

func frameNumbers(fs []*Frame) string {
	if len(fs) == 0 {
		return "no frame"
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, "#"+strconv.Itoa(f.N))
	}
	return strings.Join(parts, ", ")
}

func needStoredSession(e *Exec, s step, reqs []*request) outcome {
	o := resumeOutcome(reqs[0], "after the Agent was restarted, %s was %s: the Agent keeps sessions with its process "+
		"(legal: the ACP v2 notes, T3b: \"If S1 itself was not persisted, session/resume fails (session unknown)\"), so there is no stored session to retry in")
	if o.held && e.killedBefore(reqs[0].sent) {
		o.fate = Survived
	}
	return o
}

// killedBefore: the Agent was killed before frame f, so a session resumed
// at f outlived the process that created it, whatever the transport.
func (e *Exec) killedBefore(f *Frame) bool {
	for _, g := range e.log[:f.N] {
		if g.Conn == "agent" && g.Event == "killed" {
			return true
		}
	}
	return false
}

// needResumable: the session survived its connection (a new one over
// stdio is a new Agent process).
func needResumable(e *Exec, s step, reqs []*request) outcome {
	return resumeOutcome(reqs[0], "on a new connection %s was %s: the session does not outlive its connection "+
		"(legal for an Agent that keeps sessions in memory: over stdio a new connection is a new process)")
}

// resumeOutcome reads a session/resume's answer: resumed, the session
// unknown (-32002, with unknown's text) or resume not offered (-32601),
// both legal; any other answer fails the case, for the Agent answered
// neither that it has the session nor that it does not.
func resumeOutcome(r *request, unknown string) outcome {
	switch resumeAnswer(r) {
	case resumed:
		return holds()
	case resumeUnknown:
		o := broken(r.frames(), unknown, r.describe(), r.answerText())
		o.fate, o.vanished = Vanished, r.describe()+" was "+r.answerText()
		return o
	case resumeUnoffered:
		return broken(r.frames(), "%s was %s: the Agent does not offer session/resume", r.describe(), r.answerText())
	}
	o := badResume(r)
	o.fails = true
	return o
}

// The ways a session/resume can be answered.
const (
	resumed         = iota
	resumeUnknown   // -32002: the Agent does not have the session
	resumeUnoffered // -32601: the Agent does not offer resume
	resumeBad       // anything else
)

func resumeAnswer(r *request) int {
	er := r.err()
	switch {
	case r.ok():
		return resumed
	case er != nil && er.Code == acp.CodeResourceNotFound:
		return resumeUnknown
	case er != nil && er.Code == acp.CodeMethodNotFound:
		return resumeUnoffered
	}
	return resumeBad
}

// badResume explains a resume answered neither with success, -32002 nor
// -32601.
func badResume(r *request) outcome {
	return broken(r.frames(), "%s was %s: a session the Agent does not have is answered -32002 (\"Resource not found\"), "+
		"so the Client starts a new one; any other answer leaves it no way to go on", r.describe(), r.answerText())
}

// expectResumed: each session/resume resumed its session or answered that
// the Agent does not have it (-32002) or does not offer resume (-32601).
func expectResumed(e *Exec, s step, reqs []*request) outcome {
	for _, r := range reqs {
		if resumeAnswer(r) == resumeBad {
			return badResume(r)
		}
	}
	return holds()
}

// needHeld: reqs[0] reached the Agent while the turn of after= still ran,
// and the Agent held it: neither rejected it nor inserted it before that
// turn ended. Whether the turn still ran is read from the probe= request,
// sent right after: the Agent read the prompt before the probe, so what it
// wrote after answering the probe it wrote after reading the prompt. A
// turn whose idle came before that answer may have ended before the prompt
// arrived.
func needHeld(e *Exec, s step, reqs []*request) outcome {
	p, first, probe := reqs[0], e.reqs[s.arg("after")], e.reqs[s.arg("probe")]
	idle := e.turnIdle(first)
	switch {
	case probe.answer == nil:
		return broken(probe.frames(), "%s was %s, so whether %s reached the Agent during the turn of %s cannot be told", probe.describe(), probe.answerText(), p.label, first.label)
	case idle != nil && idle.N < probe.answer.N && !(p.answer != nil && p.answer.N < idle.N):
		return broken([]*Frame{idle, probe.answer}, "the turn of %s was over (idle at #%d) before the Agent answered %s at #%d, sent right after %s: the Agent's work ends too fast to tell whether it holds prompts",
			first.label, idle.N, probe.label, probe.answer.N, p.label)
	case p.err() != nil && p.err().Code != acp.CodeRequestCancelled:
		return broken(p.frames(), "the Agent does not hold prompts: %s, sent while the session was running, was %s", p.describe(), p.answerText())
	case p.ok() && idle != nil && p.answer.N < idle.N:
		return broken([]*Frame{p.answer, idle}, "the Agent does not hold prompts: it inserted %s during active work (answered at #%d, before the turn's idle at #%d)",
			p.label, p.answer.N, idle.N)
	}
	return holds()
}

// needDuringWork: reqs[0] was inserted while the turn of after= ran.
func needDuringWork(e *Exec, s step, reqs []*request) outcome {
	p, first := reqs[0], e.reqs[s.arg("after")]
	idle := e.turnIdle(first)
	switch {
	case p.err() != nil:
		return broken(p.frames(), "the Agent inserts no prompt during active work: %s, sent while the session was running, was %s", p.describe(), p.answerText())
	case !p.ok():
		return broken(p.frames(), "%s was %s", p.describe(), p.answerText())
	case idle == nil:
		return broken(p.frames(), "the Agent sent no idle state_update after %s, so whether %s was inserted during active work cannot be told", first.label, p.label)
	case idle.N < p.sent.N:
		return broken([]*Frame{idle, p.sent}, "the turn of %s was over (idle at #%d) before %s was sent: the Agent's work ends too fast to insert a prompt during it",
			first.label, idle.N, p.label)
	case p.answer.N > idle.N:
		return broken([]*Frame{idle, p.answer}, "the Agent holds prompts until the turn ends (%s answered at #%d, after the idle at #%d): no prompt was inserted during active work",
			p.label, p.answer.N, idle.N)
	}
	return holds()
}

// needHeldAtCancel: the prompts reqs, sent while the turn of after= ran,
// were still held when the cancel came: the turn was not over before they
// were sent, the Agent rejected none of them, and it did not insert them
// during the turn.
func needHeldAtCancel(e *Exec, s step, reqs []*request) outcome {
	for _, r := range reqs {
		if o := needHeld(e, s, []*request{r}); !o.held {
			return o
		}
	}
	return holds()
}

func contains(fs []*Frame, f *Frame) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

func short(k string) string {
	if r := []rune(k); len(r) > 20 {
		return fmt.Sprintf("%s… (%d characters)", string(r[:20]), len(r))
	}
	return k
}
