package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// A stand-in for the session contract (sessions.go, the rewrite's step 5,
// which another branch moves to the ledger): only what set-up reads of it,
// whether every session a submission's verdict rests on vanished
// (sessionGone), asked only of sessions without a final transcript. When
// the sessions family is in the ledger, setupAllGone gives way to its
// allGone, and this file and its hooks (goneProc, goneAnswer) go.

// goneProcRow is an Agent process (a name with '#'), by word handle: when
// it started (its restart event or first link), and what the observer's
// session/list on it said (goneTables.lists).
type goneProcRow struct {
	seen, listed     bool
	start, listedSeq int64
}

// goneSessRow is what the frames show of a session, by id handle: the
// processes that had it and those that answered its resume -32002, each
// once with the first event that showed it (goneSeenRow lists), and
// whether the Agent answered a prompt in it.
type goneSessRow struct {
	seen, prompted       bool
	had, lastHad, nHad   int32
	unknown, lastUnknown int32
}

type goneSeenRow struct {
	proc word
	seq  int64
	next int32
}

type goneTables struct {
	procs     []goneProcRow
	procOrder []word
	sess      []goneSessRow
	sessOrder []int32
	seen      []goneSeenRow
	// hadBy holds (session, process) for the processes that had a session
	// once they are more than hadScan; lists (process, session) for every
	// session a session/list on the process named.
	hadBy map[[2]int32]bool
	lists map[[2]int32]bool
	// chosen is the session contract, once decided.
	chosen string
}

// goneProc notes that process name showed at seq (a restart event's
// process, a link's Agent end).
func (lg *ledger) goneProc(name word, seq int64) {
	if !strings.Contains(lg.in.wordName(name), "#") {
		return // a Client's restart, or a name that is no process
	}
	p := byIndex(&lg.gone.procs, int32(name))
	if !p.seen {
		p.seen, p.start = true, seq
		lg.gone.procOrder = append(lg.gone.procOrder, name)
	}
}

// goneSess is the row of session S, made at its first sight.
func (lg *ledger) goneSess(S int32) *goneSessRow {
	s := byIndex(&lg.gone.sess, S)
	if !s.seen {
		*s = goneSessRow{seen: true, had: none, lastHad: none, unknown: none, lastUnknown: none}
		lg.gone.sessOrder = append(lg.gone.sessOrder, S)
	}
	return s
}

// goneAnswer reads what the first response (x) to request r says of the
// session it concerns, as checker.sessionAnswer does.
func (lg *ledger) goneAnswer(r *reqRow, x *fact) {
	g := &lg.gone
	switch r.method {
	case wSessionNew, wSessionFork:
		if !x.hasErr && x.session != noID {
			lg.goneHad(x.session, r.to, x.seq)
		}
	case wSessionResume:
		s := lg.goneSess(r.session)
		switch {
		case !x.hasErr:
			lg.goneHad(r.session, r.to, x.seq)
		case x.errCode == acp.CodeResourceNotFound:
			for j := s.unknown; j != none; j = g.seen[j].next {
				if g.seen[j].proc == r.to {
					return
				}
			}
			g.seen = append(g.seen, goneSeenRow{proc: r.to, seq: x.seq, next: none})
			if s.lastUnknown == none {
				s.unknown = int32(len(g.seen) - 1)
			} else {
				g.seen[s.lastUnknown].next = int32(len(g.seen) - 1)
			}
			s.lastUnknown = int32(len(g.seen) - 1)
		}
	case wSessionPrompt:
		if !x.hasErr {
			lg.goneHad(r.session, r.to, x.seq)
			lg.goneSess(r.session).prompted = true
		}
	case wSessionList:
		p := at(g.procs, int32(r.to))
		if !lg.links[r.link].observer || !p.seen || x.hasErr || !x.listed {
			return
		}
		if !p.listed {
			g.procs[r.to].listed, g.procs[r.to].listedSeq = true, x.seq
		}
		if g.lists == nil {
			g.lists = map[[2]int32]bool{}
		}
		for _, S := range lg.in.list(x) {
			g.lists[[2]int32{int32(r.to), S}] = true
		}
	}
}

// goneHad notes that process proc had session S at seq, the first time
// it shows.
func (lg *ledger) goneHad(S int32, proc word, seq int64) {
	g := &lg.gone
	s := lg.goneSess(S)
	if s.lastHad != none && g.seen[s.lastHad].proc == proc {
		return
	}
	if s.nHad < hadScan {
		for j := s.had; j != none; j = g.seen[j].next {
			if g.seen[j].proc == proc {
				return
			}
		}
	} else {
		if g.hadBy == nil {
			g.hadBy = map[[2]int32]bool{}
		}
		if s.nHad == hadScan {
			for j := s.had; j != none; j = g.seen[j].next {
				g.hadBy[[2]int32{S, int32(g.seen[j].proc)}] = true
			}
		}
		if g.hadBy[[2]int32{S, int32(proc)}] {
			return
		}
		g.hadBy[[2]int32{S, int32(proc)}] = true
	}
	g.seen = append(g.seen, goneSeenRow{proc: proc, seq: seq, next: none})
	if s.lastHad == none {
		s.had = int32(len(g.seen) - 1)
	} else {
		g.seen[s.lastHad].next = int32(len(g.seen) - 1)
	}
	s.lastHad = int32(len(g.seen) - 1)
	s.nHad++
}

// setupAllGone reports whether every one of sessions (and there is one)
// vanished, as checker.allGone does; each has no final transcript.
func (lg *ledger) setupAllGone(sessions []int32) bool {
	for _, S := range sessions {
		if !lg.setupSessionGone(S) {
			return false
		}
	}
	return len(sessions) > 0
}

// setupSessionGone reports whether session S, which has no final
// transcript, vanished in a way that excuses its messages one by one: the
// process contract allows it, the durable one tells it as session-lost.
func (lg *ledger) setupSessionGone(S int32) bool {
	if !lg.goneVanished(S) {
		return false
	}
	return lg.goneChosen() == traces.SessionsProcess || lg.gone.sess[S].prompted
}

// goneChosen is the session contract: the one asked, else durable when a
// session the Clients used passed through two processes.
func (lg *ledger) goneChosen() string {
	g := &lg.gone
	if g.chosen != "" {
		return g.chosen
	}
	g.chosen = lg.h.Contract.Sessions
	if g.chosen == "" || g.chosen == traces.SessionsAuto {
		g.chosen = traces.SessionsProcess
		for _, S := range g.sessOrder {
			if at(lg.used, S) && g.sess[S].nHad > 1 {
				g.chosen = traces.SessionsDurable
				break
			}
		}
	}
	return g.chosen
}

// goneVanished reports whether session S (used by a Client, had by a
// process, with no final transcript) was unknown to a process that had it
// before, or to one started after every process that had it: unknown as
// its resume answered -32002, or as the observer's list on it lacked S
// while a process of its Agent had S. With no final transcript, any list
// counts (checker.readBefore).
func (lg *ledger) goneVanished(S int32) bool {
	g := &lg.gone
	s := at(g.sess, S)
	if !at(lg.used, S) || s.nHad == 0 {
		return false
	}
	lastStart := int64(-1)
	for j := s.had; j != none; j = g.seen[j].next {
		if p := at(g.procs, int32(g.seen[j].proc)); p.seen && p.start > lastStart {
			lastStart = p.start
		}
	}
	unknownTo := func(proc word, seq int64) bool {
		p := at(g.procs, int32(proc))
		if !p.seen {
			return false
		}
		for j := s.had; j != none; j = g.seen[j].next {
			if g.seen[j].proc == proc && g.seen[j].seq < seq {
				return true
			}
		}
		return p.start > lastStart
	}
	for j := s.unknown; j != none; j = g.seen[j].next {
		if unknownTo(g.seen[j].proc, g.seen[j].seq) {
			return true
		}
	}
	for _, proc := range g.procOrder {
		p := &g.procs[proc]
		if p.listed && !g.lists[[2]int32{int32(proc), S}] && lg.goneHadIn(s, agentOf(lg.in.wordName(proc))) && unknownTo(proc, p.listedSeq) {
			return true
		}
	}
	return false
}

// goneHadIn reports whether a process of Agent installation agent had s.
func (lg *ledger) goneHadIn(s goneSessRow, agent string) bool {
	for j := s.had; j != none; j = lg.gone.seen[j].next {
		if agentOf(lg.in.wordName(lg.gone.seen[j].proc)) == agent {
			return true
		}
	}
	return false
}

// spellGone spells the stand-in's processes and sessions, sorted, as
// (*checker).spellGone does.
func (lg *ledger) spellGone() []string {
	in, g := lg.in, &lg.gone
	var out []string
	for _, proc := range g.procOrder {
		p := &g.procs[proc]
		var listed []string
		for k := range g.lists {
			if k[0] == int32(proc) {
				listed = append(listed, in.IDName(k[1]))
			}
		}
		out = append(out, spellGoneProc(in.wordName(proc), p.start, p.listed, p.listedSeq, listed))
	}
	for _, S := range g.sessOrder {
		s := &g.sess[S]
		var had, unknown []string
		for j := s.had; j != none; j = g.seen[j].next {
			had = append(had, fmt.Sprintf("%s@%d", in.wordName(g.seen[j].proc), g.seen[j].seq))
		}
		for j := s.unknown; j != none; j = g.seen[j].next {
			unknown = append(unknown, fmt.Sprintf("%s@%d", in.wordName(g.seen[j].proc), g.seen[j].seq))
		}
		if line, ok := spellGoneSess(in.IDName(S), had, unknown, s.prompted); ok {
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}

func (c *checker) spellGone() []string {
	var out []string
	for _, p := range c.procOrder {
		var listed []string
		for S := range p.lists {
			listed = append(listed, S)
		}
		out = append(out, spellGoneProc(p.name, p.start, p.listed, p.listedSeq, listed))
	}
	for _, s := range c.sessRecOrder {
		var had, unknown []string
		for _, h := range s.had {
			had = append(had, fmt.Sprintf("%s@%d", h.proc, h.seq))
		}
		for _, u := range s.unknown {
			unknown = append(unknown, fmt.Sprintf("%s@%d", u.proc, u.seq))
		}
		if line, ok := spellGoneSess(s.id, had, unknown, s.prompted); ok {
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}

func spellGoneProc(name string, start int64, listed bool, listedSeq int64, sessions []string) string {
	slices.Sort(sessions)
	return fmt.Sprintf("proc %s: start=%d listed=%t@%d lists=%q", name, start, listed, listedSeq, sessions)
}

// spellGoneSess spells a session's row; a session nothing showed of (a
// resume answered with another error) is a row the checker makes and the
// stand-in need not: not spelled.
func spellGoneSess(id string, had, unknown []string, prompted bool) (string, bool) {
	if len(had) == 0 && len(unknown) == 0 && !prompted {
		return "", false
	}
	return fmt.Sprintf("session %q: had=%v unknown=%v prompted=%t", id, had, unknown, prompted), true
}

// diffGone holds the stand-in's verdict to the checker's, once Finish has
// judged the sessions: whether each session without a final transcript
// vanished in a way that excuses its messages.
func (lg *ledger) diffGone(c *checker) string {
	var out []string
	for _, s := range c.sessRecOrder {
		S, ok := lg.in.lookup(s.id)
		if !ok || at(lg.final, S) != 0 {
			continue
		}
		if got, want := lg.setupSessionGone(S), c.sessionGone(s.id); got != want {
			out = append(out, fmt.Sprintf("session %s gone: ledger %t, checker %t", s.id, got, want))
		}
	}
	return strings.Join(out, "\n")
}
