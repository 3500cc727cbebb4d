package properties

import (
	"fmt"
	"strings"

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
//
// The pass follows the Agent processes (restart, kill, connect and
// disconnect events) and what each request's first answer shows of which
// processes had a session (answered its session/new, resume, fork or a
// prompt in it) and which did not know it; the contract is chosen after.

// procRow is one Agent process as the trace shows it.
type procRow struct {
	name           word
	ended, restart bool // ended: killed, or every link to it ended
	listed         bool // the observer's session/list on it succeeded
	open           int32
	// start is its restart event, or its first link.
	start, startT    int64
	listedSeq, listT int64
}

// sessRow is what the frames show of one session (id): the processes that
// had it and those that did not know it (threaded through the ledger's
// seens), and the last prompt answered in it.
type sessRow struct {
	id                   int32
	prompted             bool
	had, hadLast, nHad   int32
	unknown, unknownLast int32
	lastProc             word
	lastID               rpcID
	lastLink             int32
	lastSeq, lastT       int64
	// vanished is 1 + the seen of the process that showed it gone (0:
	// not gone); forgotBy, 1 + the seen of the process that had it and
	// forgot it while it lived.
	vanished, forgotBy int32
}

// seenRow is a process and the event that showed what it knew of a
// session.
type seenRow struct {
	proc word
	how  uint8
	// id and link name the session/resume answered -32002 (sawResumeUnknown).
	id     rpcID
	link   int32
	seq, t int64
	next   int32
}

// What a seenRow saw.
const (
	sawCreated       uint8 = iota + 1 // "created it"
	sawResumed                        // "resumed it"
	sawPrompted                       // "answered a prompt in it"
	sawResumeUnknown                  // "answered session/resume of it -32002 (...)"
	sawNotListed                      // "did not name it in the observer's session/list"
)

// procSess is a process and a session: a session's row and a process's
// word for the sessions' processes past hadScan, a process's index and a
// session's id handle for the processes' lists.
type procSess struct{ proc, session int32 }

// sessVerdict is the session contract chosen for the run and which
// sessions vanished, decided once after the pass (decideSessions).
type sessVerdict struct {
	decided                  bool
	requested, chosen        string
	used, survived, restarts int
	vanished                 int
	// alive are the vanished sessions (their rows) the very process that
	// had them forgot while it lived, in order.
	alive []int32
}

// procOf is the process named w; none when it is none.
func (lg *ledger) procOf(w word) int32 { return valueAt(lg.procAt, int32(w)) - 1 }

// proc is the process named w, made at its first sight (seq, t); none for
// a name that is no process (a Client's restart, an endpoint).
func (lg *ledger) proc(w word, seq, t int64) int32 {
	if p := lg.procOf(w); p != none {
		return p
	}
	name := lg.in.wordName(w)
	if !strings.Contains(name, "#") {
		return none
	}
	p := procRow{name: w, start: seq, startT: t}
	agent := agentOf(name)
	for i := range lg.procs {
		if q := &lg.procs[i]; q.ended && agentOf(lg.in.wordName(q.name)) == agent {
			p.restart = true
			break
		}
	}
	i := int32(len(lg.procs))
	lg.procs = append(lg.procs, p)
	*byIndex(&lg.procAt, int32(w)) = i + 1
	return i
}

// procEvent follows the Agent processes: started (restart, or a first
// link), ended (kill, or its last link gone).
func (lg *ledger) procEvent(x *fact) {
	switch x.ev {
	case wRestart:
		lg.proc(x.from, x.seq, x.t)
	case wKill:
		if p := lg.procOf(x.from); p != none {
			lg.procs[p].ended = true
		}
	case wConnect:
		if p := lg.proc(x.to, x.seq, x.t); p != none {
			lg.procs[p].open++
		}
	case wDisconnect:
		if p := lg.procOf(lg.link(x.link).agent); p != none && lg.procs[p].open > 0 {
			q := &lg.procs[p]
			q.open--
			q.ended = q.ended || q.open == 0
		}
	}
}

// sessOf is the row of session h; none when it has none.
func (lg *ledger) sessOf(h int32) int32 { return valueAt(lg.sessAt, h) - 1 }

// sess is the row of session h, made at its first sight: the rows are in
// that order, and sessAt finds them by id handle.
func (lg *ledger) sess(h int32) int32 {
	at := byIndex(&lg.sessAt, h)
	if *at == 0 {
		lg.sessRows = append(lg.sessRows, sessRow{id: h, had: none, hadLast: none, unknown: none, unknownLast: none})
		*at = int32(len(lg.sessRows))
	}
	return *at - 1
}

// sawHad notes that proc had session h, the first time it shows.
func (lg *ledger) sawHad(h int32, proc word, x *fact, how uint8) {
	si := lg.sess(h)
	s := &lg.sessRows[si]
	if s.hadLast != none && lg.seens[s.hadLast].proc == proc || lg.hadProc(si, proc) {
		return
	}
	if s.nHad >= hadScan {
		if lg.hadBy == nil {
			lg.hadBy = map[procSess]bool{}
		}
		if s.nHad == hadScan {
			for j := s.had; j != none; j = lg.seens[j].next {
				lg.hadBy[procSess{int32(lg.seens[j].proc), si}] = true
			}
		}
		lg.hadBy[procSess{int32(proc), si}] = true
	}
	lg.addSeen(&s.had, &s.hadLast, seenRow{proc: proc, how: how, seq: x.seq, t: x.t})
	s.nHad++
}

// addSeen threads seen onto the list of head and last; its index.
func (lg *ledger) addSeen(head, last *int32, seen seenRow) int32 {
	i := int32(len(lg.seens))
	seen.next = none
	lg.seens = append(lg.seens, seen)
	if *last == none {
		*head = i
	} else {
		lg.seens[*last].next = i
	}
	*last = i
	return i
}

// hadProc reports whether proc had the session of row si: the session's
// list while it is short, the ledger's map past hadScan.
func (lg *ledger) hadProc(si int32, proc word) bool {
	s := &lg.sessRows[si]
	if s.nHad > hadScan {
		return lg.hadBy[procSess{int32(proc), si}]
	}
	for j := s.had; j != none; j = lg.seens[j].next {
		if lg.seens[j].proc == proc {
			return true
		}
	}
	return false
}

// hadIn reports whether a process of Agent installation agent had the
// session of row si.
func (lg *ledger) hadIn(si int32, agent string) bool {
	for j := lg.sessRows[si].had; j != none; j = lg.seens[j].next {
		if agentOf(lg.in.wordName(lg.seens[j].proc)) == agent {
			return true
		}
	}
	return false
}

// sessionAnswer notes what the Agent's first response (x) to request r says
// about the session r concerns (or, for session/new and session/fork,
// creates).
func (lg *ledger) sessionAnswer(r *reqRow, x *fact) {
	// The process is whatever the delivery named, a name with no "#" (an
	// endpoint) too: it counts among those that had a session (and so
	// towards one that survived), though it is no process of procs.
	proc := r.to
	switch r.method {
	case wSessionNew, wSessionFork:
		if !x.hasErr && x.session != noID {
			lg.sawHad(x.session, proc, x, sawCreated)
		}
	case wSessionResume:
		// The row is made whatever the answer (a prompt's only on
		// success): the rows' order is the order sessions are judged in.
		s := &lg.sessRows[lg.sess(r.session)]
		switch {
		case !x.hasErr:
			lg.sawHad(r.session, proc, x, sawResumed)
		case x.errCode == acp.CodeResourceNotFound:
			for j := s.unknown; j != none; j = lg.seens[j].next {
				if lg.seens[j].proc == proc {
					return
				}
			}
			lg.addSeen(&s.unknown, &s.unknownLast, seenRow{proc: proc, how: sawResumeUnknown, id: r.id, link: r.link, seq: x.seq, t: x.t})
		}
	case wSessionPrompt:
		if !x.hasErr {
			lg.sawHad(r.session, proc, x, sawPrompted)
			s := &lg.sessRows[lg.sessOf(r.session)]
			s.prompted = true
			s.lastProc, s.lastID, s.lastLink, s.lastSeq, s.lastT = proc, r.id, r.link, x.seq, x.t
		}
	case wSessionList:
		// A list that does not decode says nothing: the form reads none.
		if p := lg.procOf(proc); lg.link(r.link).observer && p != none && !x.hasErr && x.listed {
			q := &lg.procs[p]
			if !q.listed {
				q.listed, q.listedSeq, q.listT = true, x.seq, x.t
			}
			if lg.listedBy == nil {
				lg.listedBy = map[procSess]bool{}
			}
			for _, S := range lg.in.list(x) {
				lg.listedBy[procSess{p, S}] = true
			}
		}
	}
}

// seenHow is what seen says its process did with the session.
func (lg *ledger) seenHow(seen *seenRow) string {
	switch seen.how {
	case sawCreated:
		return "created it"
	case sawResumed:
		return "resumed it"
	case sawPrompted:
		return "answered a prompt in it"
	case sawResumeUnknown:
		return fmt.Sprintf("answered session/resume of it -32002 (request %s on %s at %s)", lg.in.rpcIDName(seen.id), lg.in.Link(seen.link), ms(seen.t))
	case sawNotListed:
		return "did not name it in the observer's session/list"
	}
	return ""
}

// readBefore reports whether session S's final transcript, if any, was
// read from a process that started before process p: then p's list lacking
// S says S vanished after the reading (a transcript read on a Client's
// live connection, then a fresh process that does not know it). A
// transcript read from p or later leaves p's list to say nothing (an
// observer cut short before it read S).
func (lg *ledger) readBefore(S, p int32) bool {
	t := valueAt(lg.final, S)
	if t == 0 {
		return true
	}
	from := lg.procOf(lg.links[lg.trans[t-1].link].agent)
	return from != none && lg.procs[from].start < lg.procs[p].start
}

// goneAlive finds a process that had the session of row si and later said
// it did not know it (its session/resume answered -32002): the session
// vanished while that process lived, which no session contract allows.
// Only a name the trace shows to be one process counts (a1#3, not an
// endpoint such as a remote a1 whose server may have restarted in
// between). It returns the seens of both.
func (lg *ledger) goneAlive(si int32) (had, unknown int32, ok bool) {
	s := &lg.sessRows[si]
	for u := s.unknown; u != none; u = lg.seens[u].next {
		if lg.procOf(lg.seens[u].proc) == none {
			continue
		}
		for j := s.had; j != none; j = lg.seens[j].next {
			if lg.seens[j].proc == lg.seens[u].proc && lg.seens[j].seq < lg.seens[u].seq {
				return j, u, true
			}
		}
	}
	return none, none, false
}

// gone is the seen of the process after whose start the session of row si
// was unknown: one started after every process that had it, which answered
// its resume -32002 or whose observer's list lacked it.
func (lg *ledger) gone(si int32) (int32, bool) {
	s := &lg.sessRows[si]
	lastStart := int64(-1)
	for j := s.had; j != none; j = lg.seens[j].next {
		if p := lg.procOf(lg.seens[j].proc); p != none && lg.procs[p].start > lastStart {
			lastStart = lg.procs[p].start
		}
	}
	for u := s.unknown; u != none; u = lg.seens[u].next {
		if p := lg.procOf(lg.seens[u].proc); p != none && lg.procs[p].start > lastStart {
			return u, true
		}
	}
	return none, false
}

// decideSessions decides the session contract and which sessions vanished,
// once: the report's contract and the rules that excuse a vanished
// session's messages read it as judgeSessions does.
func (lg *ledger) decideSessions() *sessVerdict {
	v := &lg.sessV
	if v.decided {
		return v
	}
	v.decided = true
	v.requested = lg.h.Contract.Sessions
	if v.requested == "" {
		v.requested = traces.SessionsAuto
	}
	for i := range lg.procs {
		if lg.procs[i].restart {
			v.restarts++
		}
	}
	for si := range lg.sessRows {
		s := &lg.sessRows[si]
		h := s.id
		if !valueAt(lg.used, h) || s.nHad == 0 {
			continue // another run's session, or one the Agent never had
		}
		v.used++
		if s.nHad > 1 {
			v.survived++
		}
		// The observer's process lists the sessions its Agent knows:
		// another Agent's list says nothing of the session (its own
		// observer may have been cut short at the cap before it read it).
		for p := range lg.procs {
			q := &lg.procs[p]
			// Not checked against the unknown already noted, unlike a
			// resume's -32002: a process may be noted twice, and gone and
			// goneAlive take the first note that fits.
			if q.listed && !lg.listedBy[procSess{int32(p), h}] && lg.readBefore(h, int32(p)) && lg.hadIn(int32(si), agentOf(lg.in.wordName(q.name))) {
				lg.addSeen(&s.unknown, &s.unknownLast, seenRow{proc: q.name, how: sawNotListed, seq: q.listedSeq, t: q.listT})
			}
		}
		if had, u, ok := lg.goneAlive(int32(si)); ok {
			s.vanished, s.forgotBy = u+1, had+1
			v.alive = append(v.alive, int32(si))
			v.vanished++
		} else if u, ok := lg.gone(int32(si)); ok {
			s.vanished = u + 1
			v.vanished++
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
	return v
}

// judgeSessions reports each session a living process forgot, and, under
// the durable contract, each session the Agent answered prompts in that a
// later process did not know.
func (lg *ledger) judgeSessions() {
	v := lg.decideSessions()
	for _, si := range v.alive {
		s := &lg.sessRows[si]
		h := s.id
		had, u := &lg.seens[s.forgotBy-1], &lg.seens[s.vanished-1]
		ev := &evs{}
		ev.add(had.seq, u.seq)
		lg.report(SessionLost, none, h, ev, "session %s vanished while its Agent process lived: %s %s at %s, then %s; no contract lets a living process forget a session (ACP v2: session/close frees a session's resources, and a later session/resume restores it).",
			short(lg.in.IDName(h)), lg.in.wordName(had.proc), lg.seenHow(had), ms(had.t), lg.seenHow(u))
	}
	if v.chosen != traces.SessionsDurable {
		return
	}
	for si := range lg.sessRows {
		s := &lg.sessRows[si]
		h := s.id
		if s.vanished == 0 || !s.prompted || s.forgotBy != 0 {
			continue
		}
		u := &lg.seens[s.vanished-1]
		ev := &evs{}
		ev.add(s.lastSeq, u.seq)
		started := ""
		if p := lg.procOf(u.proc); p != none {
			ev.add(lg.procs[p].start)
			started = fmt.Sprintf(", started at %s,", ms(lg.procs[p].startT))
		}
		why := "sessions must survive restarts (--session-contract durable)"
		if v.requested == traces.SessionsAuto {
			why = fmt.Sprintf("%s survived a restart, so sessions are stored", plural(v.survived, "other session"))
		}
		last := fmt.Sprintf("request %s on %s", lg.in.rpcIDName(s.lastID), lg.in.Link(s.lastLink))
		lg.report(SessionLost, none, h, ev, "session %s vanished after the restart of %s: its last prompt was answered by %s (%s at %s), then %s%s %s; %s.",
			short(lg.in.IDName(h)), lg.in.wordName(u.proc), lg.in.wordName(s.lastProc), last, ms(s.lastT), lg.in.wordName(u.proc), started, lg.seenHow(u), why)
	}
}

// sessionGone reports whether session S's final transcript is missing
// because the session vanished, which the process contract allows and the
// durable contract reports once as session-lost: either way its messages
// are not lost one by one.
func (lg *ledger) sessionGone(S int32) bool {
	if valueAt(lg.final, S) != 0 {
		return false
	}
	v := lg.decideSessions()
	si := lg.sessOf(S)
	if si == none || lg.sessRows[si].vanished == 0 {
		return false
	}
	return v.chosen == traces.SessionsProcess || lg.sessRows[si].prompted
}

// allGone reports whether every one of sessions vanished (and there is one).
func (lg *ledger) allGone(sessions []int32) bool {
	for _, S := range sessions {
		if !lg.sessionGone(S) {
			return false
		}
	}
	return len(sessions) > 0
}

// sessionPrompted reports whether the Agent answered a prompt in session S.
func (lg *ledger) sessionPrompted(S int32) bool {
	si := lg.sessOf(S)
	return si != none && lg.sessRows[si].prompted
}

// sessionContract is the report's session contract.
func (lg *ledger) sessionContract() SessionContract {
	v := lg.decideSessions()
	sc := SessionContract{Requested: v.requested, Chosen: v.chosen, Sessions: v.used, Survived: v.survived, Restarts: v.restarts, Vanished: v.vanished - len(v.alive), VanishedAlive: len(v.alive)}
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

// hadScan is how many processes of a session are searched in had before
// hadBy holds them: most sessions pass through one or two.
const hadScan = 8
