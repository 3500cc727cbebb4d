package properties

import (
	"fmt"
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The session contract: whether the Agent's sessions outlive the process that
// made them. The ACP v2 notes (trace T3b) let an Agent keep sessions in
// memory: "If S1 itself was not persisted, session/resume fails (session
// unknown) and the client must session/new". Under the process contract a
// session's disappearance with its process is not a loss of its messages;
// under the durable contract it is, and is told once per session
// (session-lost) instead of once per message (lost).

// sessRec is what the frames show of one session: the Agent processes that
// had it (answered its session/new, resume, fork or a prompt in it), whether
// one answered a prompt in it, and the processes that did not know it.
type sessRec struct {
	id       string
	had      []sessSeen // in order, one per process
	prompted bool
	lastAns  sessSeen // the last prompt answered in it (how: see lastAnsReq)
	// lastAnsReq is that prompt, named only in a verdict: formatting
	// every answer's name was a tenth of the sessions' cost.
	lastAnsReq *reqRec
	unknown    []sessSeen // a resume answered -32002, or the observer's list lacked it
	// hadBy holds the processes of had once they are more than hadScan:
	// a session may pass through thousands of processes, each answering
	// many prompts in it.
	hadBy map[string]bool
}

// sessSeen is a process and the event that showed what it knew.
type sessSeen struct {
	proc   string
	seq, t int64
	how    string
}

// procRec is one Agent process as the trace shows it.
type procRec struct {
	name             string
	start, startT    int64 // its restart event, or its first link
	ended            bool  // a kill event names it, or every link to it ended
	open             int   // links to it still up
	restart          bool  // it started after another process of its Agent ended
	listed           bool  // the observer's session/list on it succeeded
	listedSeq, listT int64
	lists            map[string]bool // the sessions that list named
}

func (c *checker) proc(name string, e *traces.Event) *procRec {
	if name == "" || !strings.Contains(name, "#") {
		return nil // a Client's restart, or a name that is no process
	}
	p := c.procs[name]
	if p == nil {
		name = c.name(name)
		p = &procRec{name: name, start: e.Seq, startT: e.T}
		for _, q := range c.procOrder {
			if q.ended && agentOf(q.name) == agentOf(name) {
				p.restart = true
				break
			}
		}
		if c.procs == nil {
			c.procs = map[string]*procRec{}
		}
		c.procs[name] = p
		c.procOrder = append(c.procOrder, p)
	}
	return p
}

// procEvent follows the Agent processes: started (restart, or a first
// link), ended (kill, or its last link gone).
func (c *checker) procEvent(st *Step) {
	e := st.Event
	switch e.Kind {
	case traces.KindRestart:
		c.proc(e.From, e)
	case traces.KindKill:
		if p := c.procs[e.From]; p != nil {
			p.ended = true
		}
	case traces.KindConnect:
		if p := c.proc(e.To, e); p != nil {
			p.open++
		}
	case traces.KindDisconnect:
		if l := c.link(st.Link); l != nil {
			if p := c.procs[l.agent]; p != nil && p.open > 0 {
				p.open--
				p.ended = p.ended || p.open == 0
			}
		}
	}
}

// sessOf is the record of session id, whose handle is h.
func (c *checker) sessOf(h int32, id string) *sessRec {
	at := byIndex(&c.sessAt, h)
	if *at == nil {
		*at = c.sess(id)
	}
	return *at
}

func (c *checker) sess(id string) *sessRec {
	s := c.sessRecs[id]
	if s == nil {
		s = &sessRec{id: id}
		if c.sessRecs == nil {
			c.sessRecs = map[string]*sessRec{}
		}
		c.sessRecs[id] = s
		c.sessRecOrder = append(c.sessRecOrder, s)
	}
	return s
}

// sawHad notes that proc had s, the first time it shows.
func (s *sessRec) sawHad(proc string, e *traces.Event, how string) {
	if n := len(s.had); n > 0 && s.had[n-1].proc == proc || s.hadProc(proc) {
		return
	}
	if s.hadBy != nil {
		s.hadBy[proc] = true
	} else if len(s.had) == hadScan {
		s.hadBy = make(map[string]bool, 2*hadScan)
		for _, h := range s.had {
			s.hadBy[h.proc] = true
		}
		s.hadBy[proc] = true
	}
	s.had = append(s.had, sessSeen{proc, e.Seq, e.T, how})
}

// hadScan is how many processes of a session are searched in had before
// hadBy holds them: most sessions pass through one or two.
const hadScan = 8

// hadProc reports whether proc had s.
func (s *sessRec) hadProc(proc string) bool {
	if s.hadBy != nil {
		return s.hadBy[proc]
	}
	for _, h := range s.had {
		if h.proc == proc {
			return true
		}
	}
	return false
}

// hadIn reports whether a process of Agent installation agent had s.
func (s *sessRec) hadIn(agent string) bool {
	for _, h := range s.had {
		if agentOf(h.proc) == agent {
			return true
		}
	}
	return false
}

func (s *sessRec) saw(list *[]sessSeen, proc string, e *traces.Event, how string) {
	for _, x := range *list {
		if x.proc == proc {
			return
		}
	}
	*list = append(*list, sessSeen{proc, e.Seq, e.T, how})
}

// sessionAnswer notes what the Agent's first response to r says about the
// session r concerns (or, for session/new and session/fork, creates).
func (c *checker) sessionAnswer(l *linkState, r *reqRec, m *msgView, e *traces.Event) {
	proc := r.to
	switch r.method {
	case acp.MethodSessionNew, acp.MethodSessionFork:
		if !m.hasErr {
			if id := c.name(m.resultSession()); id != "" {
				c.sess(id).sawHad(proc, e, "created it")
				if r.method == acp.MethodSessionNew && !l.observer && !c.createdSet[id] {
					if c.createdSet == nil {
						c.createdSet = map[string]bool{}
					}
					c.createdSet[id] = true
					c.created = append(c.created, id)
				}
			}
		}
	case acp.MethodSessionResume:
		s := c.sessOf(r.sessionH, r.session)
		switch {
		case !m.hasErr:
			s.sawHad(proc, e, "resumed it")
		case m.errCode == acp.CodeResourceNotFound:
			s.saw(&s.unknown, proc, e, fmt.Sprintf("answered session/resume of it -32002 (request %s on %s at %s)", r.id, l.name, ms(e.T)))
		}
	case acp.MethodSessionPrompt:
		if !m.hasErr {
			s := c.sessOf(r.sessionH, r.session)
			s.sawHad(proc, e, "answered a prompt in it")
			s.prompted = true
			s.lastAns, s.lastAnsReq = sessSeen{proc: proc, seq: e.Seq, t: e.T}, r
		}
	case acp.MethodSessionList:
		if p := c.procs[proc]; l.observer && p != nil && !m.hasErr {
			var res acp.ListSessionsResult
			if json.Unmarshal([]byte(m.rawResult()), &res) == nil {
				if !p.listed {
					p.listed, p.listedSeq, p.listT = true, e.Seq, e.T
				}
				if p.lists == nil {
					p.lists = map[string]bool{}
				}
				for _, si := range res.Sessions {
					p.lists[si.SessionID] = true
				}
			}
		}
	}
}

// sessionVerdict is the session contract chosen for the run and which
// sessions vanished.
type sessionVerdict struct {
	requested, chosen string
	used, survived    int
	restarts          int
	vanished          map[string]sessSeen // session → the process that did not know it
	// alive are the vanished sessions the very process that had them
	// forgot while it lived: no restart explains them.
	alive []string
}

// readBefore reports whether session S's final transcript, if any, was
// read from a process that started before p: then p's list lacking S says
// S vanished after the reading (a transcript read on a Client's live
// connection, then a fresh process that does not know it). A transcript
// read from p or later leaves p's list to say nothing (an observer cut
// short before it read S).
func (c *checker) readBefore(S string, p *procRec) bool {
	t := c.final[S]
	if t == nil {
		return true
	}
	l := t.lk
	if l == nil {
		return false
	}
	from := c.procs[l.agent]
	return from != nil && from.start < p.start
}

// goneAlive finds a process that had s and later said it did not know it
// (its session/resume answered -32002): s vanished while that process
// lived, which no session contract allows. Only a name the trace shows to
// be one process counts (a1#3, not an endpoint such as a remote a1 whose
// server may have restarted in between).
func (c *checker) goneAlive(s *sessRec) (had, unknown sessSeen, ok bool) {
	for _, u := range s.unknown {
		if c.procs[u.proc] == nil {
			continue
		}
		for _, h := range s.had {
			if h.proc == u.proc && h.seq < u.seq {
				return h, u, true
			}
		}
	}
	return sessSeen{}, sessSeen{}, false
}

// judgeSessions decides the session contract and, under durable, reports
// each session the Agent answered prompts in that a later process did not
// know.
func (c *checker) judgeSessions() {
	v := &c.sessions
	v.requested = c.h.Contract.Sessions
	if v.requested == "" {
		v.requested = traces.SessionsAuto
	}
	for _, p := range c.procOrder {
		if p.restart {
			v.restarts++
		}
	}
	v.vanished = map[string]sessSeen{}
	for _, s := range c.sessRecOrder {
		if !c.sessionUsed[s.id] || len(s.had) == 0 {
			continue // another run's session, or one the Agent never had
		}
		v.used++
		if len(s.had) > 1 {
			v.survived++
		}
		// The observer's process lists the sessions its Agent knows: another
		// Agent's list says nothing of s (its own observer may have been
		// cut short at the cap before it read s).
		for _, p := range c.procOrder {
			if p.listed && !p.lists[s.id] && c.readBefore(s.id, p) && s.hadIn(agentOf(p.name)) {
				s.unknown = append(s.unknown, sessSeen{p.name, p.listedSeq, p.listT, "did not name it in the observer's session/list"})
			}
		}
		if h, u, ok := c.goneAlive(s); ok {
			v.vanished[s.id] = u
			v.alive = append(v.alive, s.id)
			ev := &evs{}
			ev.add(h.seq, u.seq)
			c.add(SessionLost, nil, s.id, ev, "session %s vanished while its Agent process lived: %s %s at %s, then %s; no contract lets a living process forget a session (ACP v2: session/close frees a session's resources, and a later session/resume restores it).",
				short(s.id), h.proc, h.how, ms(h.t), u.how)
		} else if u, ok := c.gone(s); ok {
			v.vanished[s.id] = u
		}
	}
	switch {
	case v.requested != traces.SessionsAuto:
		v.chosen = v.requested
	case v.survived > 0:
		v.chosen = traces.SessionsDurable
	default:
		v.chosen = traces.SessionsProcess
	}
	if v.chosen != traces.SessionsDurable {
		return
	}
	for _, s := range c.sessRecOrder {
		u, ok := v.vanished[s.id]
		if !ok || !s.prompted || slices.Contains(v.alive, s.id) {
			continue
		}
		last := s.lastAns
		if r := s.lastAnsReq; r != nil {
			last.how = fmt.Sprintf("request %s on %s", r.id, r.link.name)
		}
		ev := &evs{}
		ev.add(last.seq, u.seq)
		p := c.procs[u.proc]
		started := ""
		if p != nil {
			ev.add(p.start)
			started = fmt.Sprintf(", started at %s,", ms(p.startT))
		}
		why := "sessions must survive restarts (--session-contract durable)"
		if v.requested == traces.SessionsAuto {
			why = fmt.Sprintf("%s survived a restart, so sessions are stored", plural(v.survived, "other session"))
		}
		c.add(SessionLost, nil, s.id, ev, "session %s vanished after the restart of %s: its last prompt was answered by %s (%s at %s), then %s%s %s; %s.",
			short(s.id), u.proc, last.proc, last.how, ms(last.t), u.proc, started, u.how, why)
	}
}

// gone returns the process after whose start s was unknown: one started
// after every process that had s, which answered its resume -32002 or
// whose observer's list lacked it.
func (c *checker) gone(s *sessRec) (sessSeen, bool) {
	lastStart := int64(-1)
	for _, h := range s.had {
		if p := c.procs[h.proc]; p != nil && p.start > lastStart {
			lastStart = p.start
		}
	}
	for _, u := range s.unknown {
		if p := c.procs[u.proc]; p != nil && p.start > lastStart {
			return u, true
		}
	}
	return sessSeen{}, false
}

// sessionGone reports whether session S's final transcript is missing
// because the session vanished, which the process contract allows and the
// durable contract reports once as session-lost: either way its messages
// are not lost one by one.
func (c *checker) sessionGone(S string) bool {
	if c.final[S] != nil {
		return false
	}
	if _, ok := c.sessions.vanished[S]; !ok {
		return false
	}
	return c.sessions.chosen == traces.SessionsProcess || c.sessRecs[S].prompted
}

// allGone reports whether every one of sessions vanished (and there is one).
func (c *checker) allGone(sessions []string) bool {
	for _, S := range sessions {
		if !c.sessionGone(S) {
			return false
		}
	}
	return len(sessions) > 0
}

// report fills the report's session contract.
func (v *sessionVerdict) report() SessionContract {
	sc := SessionContract{Requested: v.requested, Chosen: v.chosen, Sessions: v.used, Survived: v.survived, Restarts: v.restarts, Vanished: len(v.vanished) - len(v.alive), VanishedAlive: len(v.alive)}
	what := "sessions live with their process"
	if v.chosen == traces.SessionsDurable {
		what = "sessions outlive their process"
	}
	survived := fmt.Sprintf("%d of %d sessions survived %s", v.survived, v.used, plural(v.restarts, "restart"))
	switch v.requested {
	case traces.SessionsAuto:
		sc.Why = survived + ": " + what
	case traces.SessionsDurable:
		sc.Why = "sessions must survive restarts (as asked); " + survived
	default:
		sc.Why = "sessions live with their process (as asked); " + survived
	}
	if len(v.alive) > 0 {
		sc.Why += fmt.Sprintf("; %s vanished while the process that had it lived, which no contract explains", plural(len(v.alive), "session"))
	}
	return sc
}
