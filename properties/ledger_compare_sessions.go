package properties

import (
	"fmt"
	"slices"
	"strings"
)

// The harness's spelling of the session contract (ledger_sessions.go,
// sessions.go): the processes and what each session's frames show, alike
// from the checker's records and the ledger's rows, after the pass; then,
// after the judgement, the sessions again (the observer's lists add to what
// did not know them), which vanished, and what sessionGone and allGone say
// of each session and each submission's sessions, and whether the Agent
// answered prompts in each session with a final transcript, which later
// rules read.

func spellProc(name string, start, startT int64, ended bool, open int, restart, listed bool, listedSeq, listT int64, lists []string) string {
	slices.Sort(lists)
	return fmt.Sprintf("proc %s: start=%d/%d ended=%t open=%d restart=%t listed=%t@%d/%d lists=%q", name, start, startT, ended, open, restart, listed, listedSeq, listT, lists)
}

func spellSeen(proc string, seq, t int64, how string) string {
	return fmt.Sprintf(" [%s %d/%d %s]", proc, seq, t, how)
}

func (c *checker) spellSessions() []string {
	var out []string
	for _, p := range c.procOrder {
		var lists []string
		for S := range p.lists {
			lists = append(lists, S)
		}
		out = append(out, spellProc(p.name, p.start, p.startT, p.ended, p.open, p.restart, p.listed, p.listedSeq, p.listT, lists))
	}
	for _, s := range c.sessRecOrder {
		var b strings.Builder
		req := "-"
		if r := s.lastAnsReq; r != nil {
			req = fmt.Sprintf("request %s on %s", r.id, r.link.name)
		}
		fmt.Fprintf(&b, "session %s: prompted=%t last=%s %d/%d %s had=", s.id, s.prompted, s.lastAns.proc, s.lastAns.seq, s.lastAns.t, req)
		for _, h := range s.had {
			b.WriteString(spellSeen(h.proc, h.seq, h.t, h.how))
		}
		b.WriteString(" unknown=")
		for _, u := range s.unknown {
			b.WriteString(spellSeen(u.proc, u.seq, u.t, u.how))
		}
		out = append(out, b.String())
	}
	return out
}

func (lg *ledger) spellSessions() []string {
	in := lg.in
	var out []string
	for i := range lg.procs {
		p := &lg.procs[i]
		var lists []string
		for k := range lg.listedBy {
			if k.proc == int32(i) {
				lists = append(lists, in.IDName(k.session))
			}
		}
		out = append(out, spellProc(in.wordName(p.name), p.start, p.startT, p.ended, int(p.open), p.restart, p.listed, p.listedSeq, p.listT, lists))
	}
	for i := range lg.sessRows {
		s := &lg.sessRows[i]
		h := s.id
		var b strings.Builder
		req := "-"
		if s.prompted {
			req = fmt.Sprintf("request %s on %s", in.rpcIDName(s.lastID), in.Link(s.lastLink))
		}
		fmt.Fprintf(&b, "session %s: prompted=%t last=%s %d/%d %s had=", in.IDName(h), s.prompted, in.wordName(s.lastProc), s.lastSeq, s.lastT, req)
		for j := s.had; j != none; j = lg.seens[j].next {
			x := &lg.seens[j]
			b.WriteString(spellSeen(in.wordName(x.proc), x.seq, x.t, lg.seenHow(x)))
		}
		b.WriteString(" unknown=")
		for j := s.unknown; j != none; j = lg.seens[j].next {
			x := &lg.seens[j]
			b.WriteString(spellSeen(in.wordName(x.proc), x.seq, x.t, lg.seenHow(x)))
		}
		out = append(out, b.String())
	}
	return out
}

// spellSessionVerdict spells, after Finish, the sessions as judged.
func (c *checker) spellSessionVerdict() []string {
	out := c.spellSessions()
	for _, s := range c.sessRecOrder {
		line := fmt.Sprintf("session %s: gone=%t vanished=", s.id, c.sessionGone(s.id))
		if u, ok := c.sessions.vanished[s.id]; ok {
			line += spellSeen(u.proc, u.seq, u.t, u.how) + fmt.Sprintf(" alive=%t", slices.Contains(c.sessions.alive, s.id))
		}
		out = append(out, line)
	}
	for _, s := range c.order {
		out = append(out, fmt.Sprintf("sub %s: all gone=%t", s.id, c.allGone(s.sessions)))
	}
	for _, S := range c.sessOrder {
		out = append(out, fmt.Sprintf("transcript of %s: prompted=%t", S, c.sessRecs[S] != nil && c.sessRecs[S].prompted))
	}
	return out
}

// spellSessionVerdict spells the sessions as decided.
func (lg *ledger) spellSessionVerdict() []string {
	in := lg.in
	lg.decideSessions()
	out := lg.spellSessions()
	for i := range lg.sessRows {
		s := &lg.sessRows[i]
		h := s.id
		line := fmt.Sprintf("session %s: gone=%t vanished=", in.IDName(h), lg.sessionGone(h))
		if s.vanished != 0 {
			u := &lg.seens[s.vanished-1]
			line += spellSeen(in.wordName(u.proc), u.seq, u.t, lg.seenHow(u)) + fmt.Sprintf(" alive=%t", s.forgotBy != 0)
		}
		out = append(out, line)
	}
	for _, h := range lg.subOrder {
		var sessions []int32
		for j := lg.subs[h].sessions; j != none; j = lg.sessions[j].next {
			sessions = append(sessions, lg.sessions[j].session)
		}
		out = append(out, fmt.Sprintf("sub %s: all gone=%t", in.Sub(h), lg.allGone(sessions)))
	}
	for _, S := range lg.sessOrder {
		out = append(out, fmt.Sprintf("transcript of %s: prompted=%t", in.IDName(S), lg.sessionPrompted(S)))
	}
	return out
}
