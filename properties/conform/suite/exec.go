// Running a case: the Exec a runner drives, step by step.

package suite

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

// ActionKind says what the runner must do next.
type ActionKind uint8

// The actions a runner performs.
const (
	// ActConnect opens connection Conn to the Agent (over stdio: starts an
	// Agent process, whose store is the case's).
	ActConnect ActionKind = iota + 1
	// ActSend writes Frame on Conn.
	ActSend
	// ActCut ends connection Conn from the Client's side (stdio: closes the
	// process's stdin). Whatever the Agent still writes on it is lost.
	ActCut
	// ActKill kills the Agent abruptly (stdio: SIGKILL to every process of
	// the case; remote: the restart command). Every connection ends; the
	// next ActConnect reaches a fresh Agent on the same store.
	ActKill
	// ActWait waits for the Agent: call Received or Ended as frames arrive
	// and Next again after each; call TimedOut when nothing arrived for the
	// answer timeout, or (Settle) for the quiet period.
	ActWait
	// ActDone: the script is over; call Verdict.
	ActDone
)

// Action is what Next asks the runner to do.
type Action struct {
	Kind  ActionKind
	Conn  string
	Frame []byte
	// Settle: the wait ends only by TimedOut, after the quiet period: the
	// Agent is left to finish whatever it does on its own.
	Settle bool
	// What says what is waited for, for a runner's progress and errors.
	What string
}

// Frame is one line of a case's log: a frame sent or received, or an event
// (a connection opened, cut or ended, the Agent killed).
type Frame struct {
	N     int
	Conn  string
	Out   bool // sent by the suite to the Agent
	Bytes []byte
	Event string // "" for a frame
	msg   *acp.Message
	upd   *acp.SessionUpdateParams
}

// String shows the frame as reports cite it: "#7 c1 ← {...}".
func (f *Frame) String() string {
	if f.Event != "" {
		return fmt.Sprintf("#%d %s: %s", f.N, f.Conn, f.Event)
	}
	dir := "←"
	if f.Out {
		dir = "→"
	}
	b := string(f.Bytes)
	if len(b) > 240 {
		b = b[:240] + "…"
	}
	return fmt.Sprintf("#%d %s %s %s", f.N, f.Conn, dir, b)
}

type conn struct {
	name   string
	nextID int64
	alive  bool
}

// request is a request the script sent and its answer.
type request struct {
	label, conn, method string
	id                  acp.ID
	sent                *Frame
	answer              *Frame // nil while unanswered
	lost                string // why it can no longer be answered
	session             string // session label or id it names
	text, key           string // prompts: the text, and the valid key sent ("" none)
}

func (r *request) ok() bool { return r.answer != nil && r.answer.msg.Error == nil }
func (r *request) err() *acp.Error {
	if r.answer == nil {
		return nil
	}
	return r.answer.msg.Error
}

// messageID is a prompt's answered messageId ("" if none).
func (r *request) messageID() string {
	if !r.ok() {
		return ""
	}
	var res acp.PromptResult
	if json.Unmarshal(r.answer.msg.Result, &res) != nil {
		return ""
	}
	return res.MessageID
}

// Exec is one run of a case.
type Exec struct {
	c        *Case
	pc       int
	log      []*Frame
	conns    map[string]*conn
	reqs     map[string]*request // by label
	order    []*request          // in the order sent
	sessions map[string]string   // label → session id
	wait     func() bool
	waitWhat string
	settle   bool
	timeouts []string
	na       string // the runner could not perform a step: why
	keys     []string
	anon     int
	// pendingInit is the connection whose initialize is still to be sent.
	pendingInit string
	// skip: labels and rules standing on a baseline that did not pass.
	skip map[string]Skip
	// decided is the needs rule that showed, mid-run, that the case does
	// not apply; the run stopped there.
	decided *step
}

// NewExec starts a run of c.
func NewExec(c *Case) *Exec {
	return &Exec{c: c, conns: map[string]*conn{}, reqs: map[string]*request{}, sessions: map[string]string{}}
}

// Case is the case being run.
func (e *Exec) Case() *Case { return e.c }

// Log is every frame and event of the run so far, in order.
func (e *Exec) Log() []*Frame { return e.log }

func (e *Exec) add(f *Frame) *Frame {
	f.N = len(e.log) + 1
	e.log = append(e.log, f)
	return f
}

func (e *Exec) event(conn, what string) { e.add(&Frame{Conn: conn, Event: what}) }

// Next returns what the runner does next.
func (e *Exec) Next() Action {
	if e.wait != nil {
		if e.settle || !e.wait() {
			return Action{Kind: ActWait, Settle: e.settle, What: e.waitWhat}
		}
		e.wait = nil
	}
	if c := e.pendingInit; c != "" {
		e.pendingInit = ""
		a, r := e.send(c, "init-"+c, acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: 2, Info: acp.Implementation{Name: "acpsim-conform", Version: "0"}}, step{})
		e.awaitAnswer(r, nil)
		return a
	}
	for e.pc < len(e.c.steps) && e.na == "" {
		if e.decidedNotToApply() {
			// The rest of the script would only wait on a case that does not apply.
			e.pc = len(e.c.steps)
			break
		}
		s := e.c.steps[e.pc]
		e.pc++
		if e.skips(s) {
			continue
		}
		if a, ok := e.run(s); ok {
			return a
		}
		if e.wait != nil && !e.wait() {
			return Action{Kind: ActWait, Settle: e.settle, What: e.waitWhat}
		}
		e.wait = nil
	}
	return Action{Kind: ActDone}
}

// Received records a frame the Agent wrote on conn.
func (e *Exec) Received(connName string, frame []byte) {
	cn := e.conns[connName]
	if cn == nil || !cn.alive {
		return // after a cut or a kill: lost, as for a Client
	}
	f := e.add(&Frame{Conn: connName, Bytes: append([]byte(nil), frame...)})
	l := acp.ParseLine(frame)
	if l.Batch || l.Entries[0].Err != nil {
		return
	}
	m := l.Entries[0].Msg
	f.msg = &m
	switch {
	case m.Kind() == acp.KindResponse:
		for _, r := range e.order {
			if r.conn == connName && r.id == m.ID && r.answer == nil && r.lost == "" {
				r.answer = f
				return
			}
		}
	case m.Method == acp.MethodSessionUpdate:
		var p acp.SessionUpdateParams
		if json.Unmarshal(m.Params, &p) == nil {
			f.upd = &p
		}
	}
}

// Ended records that conn ended without the suite ending it (the Agent
// process exited, the server closed it): its pending requests can no
// longer be answered.
func (e *Exec) Ended(connName, why string) {
	cn := e.conns[connName]
	if cn == nil || !cn.alive {
		return
	}
	e.down(cn, "ended: "+why)
}

func (e *Exec) down(cn *conn, why string) {
	cn.alive = false
	e.event(cn.name, why)
	for _, r := range e.order {
		if r.conn == cn.name && r.answer == nil && r.lost == "" {
			r.lost = "its connection " + why
		}
	}
}

// TimedOut ends the current wait: nothing more arrived in time.
func (e *Exec) TimedOut() {
	if e.wait == nil {
		return
	}
	if !e.settle {
		e.timeouts = append(e.timeouts, e.waitWhat)
	}
	e.wait, e.settle = nil, false
}

// Unsupported stops the run: the runner cannot perform the action Next
// asked for (why says so); the case does not apply to this Agent.
func (e *Exec) Unsupported(why string) { e.na = why }

func (e *Exec) conn(name string) *conn {
	cn := e.conns[name]
	if cn == nil {
		cn = &conn{name: name}
		e.conns[name] = cn
	}
	return cn
}

// session resolves a session label to the id the Agent chose; a name that
// is no label is used as written (an unknown session on purpose).
func (e *Exec) session(name string) string {
	if id, ok := e.sessions[name]; ok {
		return id
	}
	return name
}

func (e *Exec) send(connName, label, method string, params any, s step) (Action, *request) {
	cn := e.conn(connName)
	cn.nextID++
	id := acp.NumID(cn.nextID)
	frame := acp.Request(id, method, params)
	if label == "" {
		e.anon++
		label = fmt.Sprintf("%s#%d", method, e.anon)
	}
	r := &request{label: label, conn: connName, method: method, id: id, session: s.arg("session")}
	r.sent = e.add(&Frame{Conn: connName, Out: true, Bytes: frame})
	e.reqs[label] = r
	e.order = append(e.order, r)
	return Action{Kind: ActSend, Conn: connName, Frame: frame}, r
}

func (e *Exec) notify(connName, method string, params any) Action {
	frame := acp.Notification(method, params)
	e.add(&Frame{Conn: connName, Out: true, Bytes: frame})
	return Action{Kind: ActSend, Conn: connName, Frame: frame}
}

// awaitAnswer makes the next wait last until r is answered or lost.
func (e *Exec) awaitAnswer(r *request, then func()) {
	e.waitWhat = fmt.Sprintf("the answer to %s (%s request %s on %s)", r.label, r.method, r.id, r.conn)
	e.wait = func() bool {
		if r.answer == nil && r.lost == "" {
			return false
		}
		if then != nil {
			then()
			then = nil
		}
		return true
	}
}

// run performs step s; ok is false for steps that ask nothing of the runner.
func (e *Exec) run(s step) (Action, bool) {
	c := ""
	if len(s.pos) > 0 {
		c = s.pos[0]
	}
	cwd := "/conform/" + e.c.ID
	switch s.cmd {
	case "connect":
		e.conn(c).alive = true
		e.event(c, "connect")
		// initialize is sent with the connection: nothing else can go first.
		e.pendingInit = c
		return Action{Kind: ActConnect, Conn: c}, true
	case "cut":
		e.down(e.conn(c), "cut by the suite")
		return Action{Kind: ActCut, Conn: c}, true
	case "kill":
		for _, cn := range e.sortedConns() {
			if cn.alive {
				e.down(cn, "ended: the Agent was killed")
			}
		}
		e.event("agent", "killed")
		return Action{Kind: ActKill}, true
	case "new":
		a, r := e.send(c, s.arg("as"), acp.MethodSessionNew, acp.NewSessionParams{Cwd: cwd}, s)
		e.awaitAnswer(r, func() { e.bindSession(s.arg("as"), r) })
		return a, true
	case "fork":
		a, r := e.send(c, s.arg("as"), acp.MethodSessionFork, acp.ForkSessionParams{SessionID: e.session(s.arg("session")), Cwd: cwd}, s)
		e.awaitAnswer(r, func() { e.bindSession(s.arg("as"), r) })
		return a, true
	case "resume":
		p := acp.ResumeSessionParams{SessionID: e.session(s.arg("session")), Cwd: cwd}
		if s.flags["replay"] {
			p.ReplayFrom = &acp.ReplayFrom{Type: acp.ReplayStart}
		}
		a, r := e.send(c, s.arg("as"), acp.MethodSessionResume, p, s)
		e.awaitAnswer(r, nil)
		return a, true
	case "list":
		a, r := e.send(c, s.arg("as"), acp.MethodSessionList, acp.ListSessionsParams{}, s)
		e.awaitAnswer(r, nil)
		return a, true
	case "close":
		a, r := e.send(c, s.arg("as"), acp.MethodSessionClose, acp.SessionParams{SessionID: e.session(s.arg("session"))}, s)
		e.awaitAnswer(r, nil)
		return a, true
	case "prompt":
		return e.prompt(c, s), true
	case "cancel-request":
		r := e.reqs[s.arg("request")]
		if r == nil {
			panic(fmt.Sprintf("%s:%d: no request %s", e.c.File, s.line, s.arg("request")))
		}
		return e.notify(c, acp.MethodCancelRequest, acp.CancelRequestParams{RequestID: r.id}), true
	case "session-cancel":
		return e.notify(c, acp.MethodSessionCancel, acp.SessionParams{SessionID: e.session(s.arg("session"))}), true
	case "await":
		rs := make([]*request, 0, len(s.pos))
		for _, l := range s.pos {
			if r := e.reqs[l]; r != nil {
				rs = append(rs, r) // nil: a skipped request
			}
		}
		e.waitWhat = "the answers to " + strings.Join(s.pos, ", ")
		e.wait = func() bool {
			for _, r := range rs {
				if r.answer == nil && r.lost == "" {
					return false
				}
			}
			return true
		}
	case "idle":
		e.idle(c)
	case "running":
		e.running(c)
	case "settle":
		e.waitWhat, e.settle = "the Agent to fall quiet", true
		e.wait = func() bool { return false }
	}
	return Action{}, false
}

func (e *Exec) bindSession(label string, r *request) {
	if !r.ok() || label == "" {
		return
	}
	var res acp.NewSessionResult
	if json.Unmarshal(r.answer.msg.Result, &res) == nil && res.SessionID != "" {
		e.sessions[label] = res.SessionID
	}
}
