// Package classes checks the retry classes of acp.Classes by simulation:
// for every Client→Agent request the reference Agent serves, it sends the
// request, loses the response, sends it again as the class allows, and holds
// the Agent's observable state after two sends against the state after one.
//
// "Observable" is what a Client that arrives afterwards can read: a fresh
// connection's session/list and, for every session, session/resume with
// replayFrom start, plus the answer to session/list on the connection the
// request went on (that connection's own state, such as a login). A class
// that says a resend is safe (as-is, keyed) must converge; duplicating must
// not. The check runs under several schedules, because a resend that is
// harmless while the Agent is idle may not be while it works, after a
// reconnect, or after a restart.
package classes

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
)

// Result is the verdict on one row of the retry-class table.
type Result struct {
	Method string
	// Keyed tells session/prompt's two rows apart.
	Keyed bool
	Class acp.RetryClass
	// Verified is true when the simulation showed what the class says.
	Verified bool
	// Detail says what the simulation saw: the schedules it ran and, for a
	// failure or a duplicating class, how the states differed.
	Detail string
	// NotSimulated is why the row was not simulated ("" when it was): a
	// notification, an Agent→Client request, a method the reference Agent
	// does not implement.
	NotSimulated string
}

// Name is the method, with "(keyed)" or "(no key)" for session/prompt's rows.
func (r Result) Name() string {
	return acp.MethodClass{Method: r.Method, Keyed: r.Keyed}.Name()
}

// Failed reports a row that was simulated and did not show its class.
func (r Result) Failed() bool { return r.NotSimulated == "" && !r.Verified }

// Verify checks every row of acp.Classes against the reference Agent, in
// table order.
func Verify() []Result {
	return verifier{build: reference, knobs: agent.DefaultKnobs()}.all(agent.Methods())
}

// verifier checks rows against one model Agent with one set of knobs (a
// scenario may set more, such as auth for the auth methods).
type verifier struct {
	build factory
	knobs agent.Knobs
}

func (v verifier) all(served []string) []Result {
	implemented := map[string]bool{}
	for _, m := range served {
		implemented[m] = true
	}
	rows := acp.Classes()
	out := make([]Result, 0, len(rows))
	for _, row := range rows {
		out = append(out, v.verify(implemented, row))
	}
	return out
}

// notSimulated is why a row cannot be simulated against the reference
// Agent, "" when it can.
func notSimulated(row acp.MethodClass, implemented map[string]bool) string {
	switch row.Direction {
	case acp.ClientNotification, acp.AgentNotification, acp.EitherNotification:
		return "a notification: nothing answers it, so there is no lost response to resend after"
	case acp.AgentToClient, acp.MCPTunnel:
		return "an Agent→Client request: the reference Agent sends none"
	case acp.ConductorToProxy, acp.ProxyEnvelope:
		return "a proxy-chain message: acpsim models no conductor or proxy"
	case acp.ClientToAgent:
		if !implemented[row.Method] {
			return "the reference Agent does not implement it"
		}
		return ""
	}
	return fmt.Sprintf("unknown direction %q", row.Direction)
}

// setup is how far a scenario prepares connection c1 before the request.
type setup int

const (
	// connectOnly: a connection and nothing sent (initialize is tested).
	connectOnly setup = iota
	// initialized: initialize answered, no login (auth/login is tested).
	initialized
	// withSession: initialized, logged in when the Agent offers a method,
	// and a session with one finished exchange ("hello"), so there is a
	// transcript for a resend to disturb.
	withSession
)

// scenario is how to exercise one method.
type scenario struct {
	// knobs set on top of the defaults: the auth methods exist only when
	// the Agent offers a login, which the default Agent does not.
	knobs map[string]string
	setup setup
	// connBound: the method's effect lives on its connection, so a resend
	// after a reconnect or a restart is a new request, not a resend; those
	// schedules are skipped.
	connBound bool
	// needsActive: a resend on a new connection comes after session/resume,
	// as the RFD's Client does before it resends a prompt.
	needsActive bool
	params      func(session, authMethod string, keyed bool) any
}

// key is the idempotencyKey of the keyed session/prompt row.
const key = "6e40df93-classes"

// cwd is the working directory of every session the scenarios make.
const cwd = "/w"

// scenarios has one entry per Client→Agent request the reference Agent
// serves; a method without one is reported, and a test fails on it.
var scenarios = map[string]scenario{
	acp.MethodInitialize: {setup: connectOnly, connBound: true,
		params: func(string, string, bool) any { return initParams }},
	acp.MethodAuthLogin: {knobs: map[string]string{"auth": agent.AuthRequired}, setup: initialized, connBound: true,
		params: func(_, method string, _ bool) any { return acp.LoginParams{MethodID: method} }},
	acp.MethodAuthLogout: {knobs: map[string]string{"auth": agent.AuthRequired}, setup: withSession, connBound: true,
		params: func(string, string, bool) any { return struct{}{} }},
	acp.MethodSessionNew: {setup: withSession,
		params: func(string, string, bool) any { return acp.NewSessionParams{Cwd: cwd} }},
	acp.MethodSessionFork: {setup: withSession,
		params: func(s, _ string, _ bool) any { return acp.ForkSessionParams{SessionID: s, Cwd: cwd} }},
	acp.MethodSessionResume: {setup: withSession,
		params: func(s, _ string, _ bool) any {
			return acp.ResumeSessionParams{SessionID: s, Cwd: cwd, ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}
		}},
	acp.MethodSessionList: {setup: withSession,
		params: func(string, string, bool) any { return acp.ListSessionsParams{} }},
	acp.MethodSessionClose: {setup: withSession,
		params: func(s, _ string, _ bool) any { return acp.SessionParams{SessionID: s} }},
	acp.MethodSessionDelete: {setup: withSession,
		params: func(s, _ string, _ bool) any { return acp.SessionParams{SessionID: s} }},
	acp.MethodSessionPrompt: {setup: withSession, needsActive: true,
		params: func(s, _ string, keyed bool) any {
			p := acp.PromptParams{SessionID: s, Prompt: []acp.ContentBlock{acp.Text("make it faster")}}
			if keyed {
				p.IdempotencyKey = acp.KeyJSON(key)
			}
			return p
		}},
}

// schedule is when and where the resend goes.
type schedule struct {
	name string
	// busy: the session is running a prompt when the request arrives, so a
	// prompt is held and the resend finds the first still pending.
	busy bool
	// quiet: the Agent finishes all its work before the resend.
	quiet bool
	// reconnect: the first connection ends and the resend goes on a new one.
	reconnect bool
	// restart: the Agent process is killed and restarted before the resend.
	restart bool
}

var schedules = []schedule{
	{name: "at once"},
	{name: "while busy", busy: true},
	{name: "after quiet", quiet: true},
	{name: "new connection", quiet: true, reconnect: true},
	{name: "after restart", quiet: true, reconnect: true, restart: true},
}

// skip is why a schedule does not apply to a scenario, "" when it does.
func (s schedule) skip(sc scenario) string {
	switch {
	case s.busy && sc.setup != withSession:
		return "no session to be busy"
	case s.reconnect && sc.connBound:
		return "the effect ends with its connection"
	}
	return ""
}

func (v verifier) verify(implemented map[string]bool, row acp.MethodClass) Result {
	r := Result{Method: row.Method, Keyed: row.Keyed, Class: row.Class}
	if why := notSimulated(row, implemented); why != "" {
		r.NotSimulated = why
		return r
	}
	sc, ok := scenarios[row.Method]
	if !ok {
		r.NotSimulated = "the reference Agent implements it, but sim/classes has no scenario for it yet"
		return r
	}
	switch row.Class {
	case acp.ClassNever:
		r.Verified, r.Detail = v.checkNever(sc, row)
	case acp.ClassAsIs, acp.ClassKeyed, acp.ClassDuplicating:
		r.Verified, r.Detail = v.checkResend(sc, row)
	default:
		r.Detail = fmt.Sprintf("unknown class %q", row.Class)
	}
	return r
}

// world starts an Agent installation with the verifier's knobs and the
// scenario's on top.
func (v verifier) world(sc scenario) (*world, error) {
	k := v.knobs
	for name, val := range sc.knobs {
		if err := k.Set(name, val); err != nil {
			return nil, err
		}
	}
	return newWorld(v.build, k), nil
}

// outcome is one run of a scenario under a schedule.
type outcome struct {
	ob            observation
	first, resend *acp.Message // the answers; the Client saw neither
	problems      []string
}

// play runs sc under sched, sending the request once or twice, and observes
// the Agent once it is quiet. Two runs differ only in the resend: the setup,
// the reconnect and the restart happen in both.
func (v verifier) play(sc scenario, row acp.MethodClass, sched schedule, sends int) (outcome, error) {
	var out outcome
	w, err := v.world(sc)
	if err != nil {
		return out, err
	}
	const c1 = "c1"
	session := ""
	switch sc.setup {
	case connectOnly:
		w.connect(c1)
	case initialized:
		if err := w.open(c1, false); err != nil {
			return out, err
		}
	case withSession:
		if err := w.open(c1, true); err != nil {
			return out, err
		}
		var res acp.NewSessionResult
		if err := w.call(c1, acp.MethodSessionNew, acp.NewSessionParams{Cwd: cwd}, &res); err != nil {
			return out, err
		}
		session = res.SessionID
		if err := w.call(c1, acp.MethodSessionPrompt, acp.PromptParams{SessionID: session, Prompt: []acp.ContentBlock{acp.Text("hello")}}, nil); err != nil {
			return out, err
		}
		if err := w.quiesce(); err != nil {
			return out, err
		}
	}
	if sched.busy {
		if err := w.call(c1, acp.MethodSessionPrompt, acp.PromptParams{SessionID: session, Prompt: []acp.ContentBlock{acp.Text("busy work")}}, nil); err != nil {
			return out, err
		}
	}
	params := sc.params(session, w.authMethod, row.Keyed)
	first := w.send(c1, row.Method, params) // its answer is lost: nobody reads it before the resend
	conn := c1
	if sched.quiet {
		if err := w.quiesce(); err != nil {
			return out, err
		}
	}
	if sched.restart {
		w.restart()
	} else if sched.reconnect {
		w.disconnect(c1)
	}
	if sched.reconnect {
		conn = "c2"
		if err := w.open(conn, true); err != nil {
			return out, err
		}
		if sc.needsActive {
			if err := w.call(conn, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: session, Cwd: cwd}, nil); err != nil {
				return out, err
			}
		}
	}
	var resend acp.ID
	if sends == 2 {
		resend = w.send(conn, row.Method, params) // same params, a new JSON-RPC id
	}
	if err := w.quiesce(); err != nil {
		return out, err
	}
	ob, err := w.observe(conn)
	if err != nil {
		return out, fmt.Errorf("observing: %v", err)
	}
	out.ob, out.first, out.problems = ob, w.answer(c1, first), w.problems
	if sends == 2 {
		out.resend = w.answer(conn, resend)
	}
	return out, nil
}

// checkResend runs every schedule that applies, once with one send and once
// with two, and holds the pair against the class: as-is and keyed must
// converge and answer the resend with a success (keyed: the original
// messageId); duplicating must not converge.
func (v verifier) checkResend(sc scenario, row acp.MethodClass) (bool, string) {
	var ran, skipped, failures, diverged []string
	for _, sched := range schedules {
		if why := sched.skip(sc); why != "" {
			skipped = append(skipped, sched.name+" ("+why+")")
			continue
		}
		ran = append(ran, sched.name)
		one, err := v.play(sc, row, sched, 1)
		if err == nil {
			var two outcome
			two, err = v.play(sc, row, sched, 2)
			if err == nil {
				if why := judge(row, one, two); why != "" {
					failures = append(failures, sched.name+": "+why)
				} else if row.Class == acp.ClassDuplicating {
					diverged = append(diverged, sched.name+": "+diff(one.ob, two.ob))
				}
				continue
			}
		}
		failures = append(failures, fmt.Sprintf("%s: the scenario could not run: %v", sched.name, err))
	}
	if len(failures) > 0 {
		return false, strings.Join(failures, " | ")
	}
	if len(ran) == 0 {
		return false, "no schedule applies to the scenario, so nothing was checked"
	}
	schedText := fmt.Sprintf("%d schedules (%s)", len(ran), strings.Join(ran, ", "))
	if len(skipped) > 0 {
		schedText += "; skipped " + strings.Join(skipped, ", ")
	}
	switch row.Class {
	case acp.ClassDuplicating:
		return true, fmt.Sprintf("did not converge in all %s, as the class says; %s", schedText, diverged[0])
	case acp.ClassKeyed:
		return true, fmt.Sprintf("converged in %s; every resend got the original messageId", schedText)
	}
	return true, fmt.Sprintf("converged in %s; every resend answered with a success", schedText)
}

// judge is why a one-send and a two-send run contradict the class, "" when
// they agree with it.
func judge(row acp.MethodClass, one, two outcome) string {
	if p := append(append([]string(nil), one.problems...), two.problems...); len(p) > 0 {
		return strings.Join(p, "; ")
	}
	if one.first == nil || two.first == nil {
		return "the first request was never answered"
	}
	if two.resend == nil {
		return "the resend was never answered, so a Client waiting for it would hang"
	}
	d := diff(one.ob, two.ob)
	if row.Class == acp.ClassDuplicating {
		if d == "" {
			return "converged (state after two sends == state after one), but the class says a resend creates a second effect"
		}
		return ""
	}
	if d != "" {
		return "not converged: " + d
	}
	if e := two.resend.Error; e != nil && !(row.Method == acp.MethodSessionClose && e.Code == acp.CodeResourceNotFound) {
		// The schema tells Clients to read -32002 on session/close as a
		// successful close; any other error leaves a Client unsure.
		return fmt.Sprintf("the resend was answered with error %d %s", e.Code, e.Message)
	}
	if row.Class == acp.ClassKeyed {
		orig, again := messageID(two.first), messageID(two.resend)
		if orig == "" || orig != again {
			return fmt.Sprintf("the resend got messageId %q, the original request %q; the RFD answers a retry with the original's", again, orig)
		}
		if !two.ob.userIDs[orig] {
			return fmt.Sprintf("messageId %q, the answer to both sends, is not among the user messages replayed from start; a retained message keeps its messageId", orig)
		}
	}
	return ""
}

func messageID(m *acp.Message) string {
	if m == nil || m.Error != nil {
		return ""
	}
	var r acp.PromptResult
	if acp.DecodeParams(m.Result, &r) != nil {
		return ""
	}
	return r.MessageID
}

// checkNever checks the one thing class never claims of a request: its
// effect is bound to the connection (a handshake), so after a reconnect it
// is sent afresh, not resent. A second connection prepared as far as the
// first was before the request must not be able to use the Agent. A resend
// on the same connection is reported, not judged: the class forbids it, so
// its outcome is not a promise.
func (v verifier) checkNever(sc scenario, row acp.MethodClass) (bool, string) {
	if !sc.connBound {
		return false, "class never, but the scenario does not describe a connection-bound request; nothing to check"
	}
	w, err := v.world(sc)
	if err != nil {
		return false, "the scenario could not run: " + err.Error()
	}
	prepare := func(conn string) error {
		if sc.setup == connectOnly {
			w.connect(conn)
			return nil
		}
		return w.open(conn, false)
	}
	if err := prepare("c1"); err != nil {
		return false, "the scenario could not run: " + err.Error()
	}
	first := w.send("c1", row.Method, sc.params("", w.authMethod, row.Keyed))
	if a := w.answer("c1", first); a == nil || a.Error != nil {
		return false, fmt.Sprintf("the request itself was not answered with a success: %v", a)
	}
	if err := prepare("c2"); err != nil {
		return false, "the scenario could not run: " + err.Error()
	}
	probe := w.send("c2", acp.MethodSessionList, acp.ListSessionsParams{})
	a := w.answer("c2", probe)
	if a == nil || a.Error == nil {
		return false, fmt.Sprintf("not connection-bound: after %s on c1, session/list on a new connection c2 was served, so %s's effect outlives its connection", row.Method, row.Method)
	}
	detail := fmt.Sprintf("connection-bound: after %s on c1, session/list on a new connection got %d (%s), so every connection sends its own and none resends one", row.Method, a.Error.Code, a.Error.Message)
	one, err1 := v.play(sc, row, schedules[0], 1)
	two, err2 := v.play(sc, row, schedules[0], 2)
	switch {
	case err1 != nil || err2 != nil:
		detail += fmt.Sprintf("; a resend on the same connection could not be played: %v %v", err1, err2)
	case diff(one.ob, two.ob) == "" && len(two.problems) == 0:
		detail += "; a resend on the same connection (which the class forbids) changed nothing observable"
	default:
		detail += "; a resend on the same connection (which the class forbids) changed: " + diff(one.ob, two.ob) + strings.Join(two.problems, "; ")
	}
	return true, detail
}
