package properties

import (
	"fmt"
	"strings"
)

// The verdicts on each submission once its messages are attributed:
// duplicate, lost, phantom, unresolved, and several messageIds for one
// key.

// judgeSub judges submission s. One duplicate per submission, whichever
// evidence shows it: messages in the transcript, responses naming
// insertions, or both. A message the contract lets the Agent drop
// (live-only, or discarded under "last N") is not lost when it is missing,
// nor one whose every session vanished (allowed by the process contract,
// told once per session as session-lost by the durable one), nor one whose
// transcripts the Agent could not give back (noLoad, a failed set-up) or
// the run stopped before reading (inconclusive, with why). A tap sees no
// outcomes at all, so no submission of it is unresolved.
func (lg *ledger) judgeSub(s int32) {
	x, c := &lg.subs[s], &lg.core.subs[s]
	if n := lg.inserted(s); !c.ambiguous && n >= 2 {
		ev := lg.subEvents(s)
		named := ""
		if c.extra != none {
			named = "; " + lg.namedText(s, ev)
		}
		lg.report(Duplicate, s, lg.firstSession(s), ev, "%s was inserted %s: %s; %s%s; %s.",
			lg.subName(s), times(int(n)), lg.attempts(s, ev), lg.told(s, ev), named, lg.transcripts(s, ev))
	}
	switch x.outcome {
	case wInserted:
		c.loss = lossJudged
		S, ok, cands := lg.outcomeSession(s)
		if ok || lg.mayLack(s, cands...) {
			break
		}
		if c.loss = lg.lossExcuse(s, cands); c.loss == lossJudged {
			ev := lg.subEvents(s)
			lg.report(Lost, s, S, ev, "%s is missing from the final transcript although the user was told it was inserted: %s; %s; yet %s%s.",
				lg.subName(s), lg.attempts(s, ev), lg.told(s, ev), lg.transcriptOf(s, S, x.outcomeMsg, ev), lg.retainedWhy(s, S))
		}
	case wAbandoned:
		c.loss = lossJudged
		if c.ambiguous || c.nMsgs > 0 || !lg.mustRetain(s) {
			break
		}
		sessions := lg.sessionsOf(s)
		if c.loss = lg.lossExcuse(s, sessions); c.loss == lossJudged {
			ev := lg.subEvents(s)
			why := ""
			if len(sessions) == 1 {
				why = lg.retainedWhy(s, sessions[0])
			}
			lg.report(Lost, s, lg.firstSession(s), ev, "%s is missing from the final transcript and its user was told nothing: %s; %s; %s%s.",
				lg.subName(s), lg.attempts(s, ev), lg.told(s, ev), lg.transcripts(s, ev), why)
		}
	}
	if x.outcome == wFailed && !c.ambiguous && c.nMsgs >= 1 {
		ev := lg.subEvents(s)
		lg.report(Phantom, s, lg.core.attrs[c.msgs].session, ev, "%s is in the final transcript although the user was told it failed: %s; %s; yet %s.",
			lg.subName(s), lg.attempts(s, ev), lg.told(s, ev), lg.transcripts(s, ev))
	}
	if x.nOutcomes == 0 && !lg.tap() {
		ev := lg.subEvents(s)
		if why := lg.stoppedWhy(); why != "" {
			lg.unjudged(s, lg.firstSession(s), ev, "%s never got an outcome: %s; %s while it was still pending.", lg.subName(s), lg.attempts(s, ev), why)
		} else {
			lg.report(Unresolved, s, lg.firstSession(s), ev, "%s never got an outcome: %s; the run ended quiet with it still pending, a liveness failure.", lg.subName(s), lg.attempts(s, ev))
		}
	}
	if x.keyed && !x.mixed {
		lg.judgeKeyIDs(s)
	}
}

// lossExcuse says whether the frames can judge s lost for its absence from
// the final transcripts of sessions (lossJudged), or why not: every one of
// them vanished with its process, none could be read (a v1 Agent without
// session/load), their set-up failed, or the run stopped before one was
// read, in which case s is noted unjudged.
func (lg *ledger) lossExcuse(s int32, sessions []int32) lossJudgement {
	switch {
	case lg.allGone(sessions):
		return lossSessionGone
	case lg.noLoad && lg.noneRead(sessions):
		return lossNoLoad
	case lg.subs[s].unchecked:
		return lossSetupFailed
	}
	if U, why := lg.unread(sessions); why != "" {
		lg.unreadLost(s, U, why)
		return lossStopped
	}
	return lossJudged
}

// judgeKeyIDs reports a keyed submission given several messageIds for its
// one key in a session. Each new messageId is expected, and counted as
// such, when the contract let the Agent forget the one before it, and the
// key with it (forgotten).
func (lg *ledger) judgeKeyIDs(s int32) {
	x := &lg.subs[s]
	for j := x.sessions; j != none; j = lg.sessions[j].next {
		S := lg.sessions[j].session
		var as []*answerRow
		var ids []string
		for k := x.answers; k != none; k = lg.answers[k].next {
			if a := &lg.answers[k]; a.session == S {
				as = append(as, a)
				ids = append(ids, lg.in.IDName(a.msg))
			}
		}
		if len(as) < 2 {
			continue
		}
		ev := lg.subEvents(s)
		var whys []string
		wrong := false
		for i := 1; i < len(as); i++ {
			ok, why := lg.forgotten(s, S, as[i-1], as[i], ev)
			if ok {
				lg.core.forgotten++
				continue
			}
			wrong = true
			if why != "" {
				whys = append(whys, fmt.Sprintf("%s after %s: %s", short(ids[i]), short(ids[i-1]), why))
			}
		}
		if !wrong {
			continue
		}
		tail := ""
		if len(whys) > 0 {
			tail = "; the contract does not let the Agent have forgotten the key: " + strings.Join(whys, "; ")
		}
		lg.report(WrongID, s, S, ev, "%s got %d different messageIds (%s) for one key in session %s: %s%s.",
			lg.subName(s), len(ids), list(shortAll(ids)), short(lg.in.IDName(S)), lg.attempts(s, ev), tail)
	}
}

// outcomeSession says in which session the inserted(M) outcome of s
// should be found and whether it is there, and the sessions it may be in
// (outcomeCands). An outcome with no messageId is there when s holds any
// message.
func (lg *ledger) outcomeSession(s int32) (int32, bool, []int32) {
	x := &lg.subs[s]
	cands := lg.outcomeCands(s)
	for _, S := range cands {
		if x.outcomeMsg == noID {
			if lg.core.subs[s].nMsgs > 0 {
				return S, true, cands
			}
		} else if lg.holds(S, x.outcomeMsg) {
			return S, true, cands
		}
	}
	if len(cands) > 0 {
		return cands[0], false, cands
	}
	return noID, false, cands
}

// firstSession is the first session s's prompts named (noID: none).
func (lg *ledger) firstSession(s int32) int32 {
	if j := lg.subs[s].sessions; j != none {
		return lg.sessions[j].session
	}
	return noID
}

// noneRead reports whether no final transcript of sessions was read.
func (lg *ledger) noneRead(sessions []int32) bool {
	for _, S := range sessions {
		if lg.fin(S) != nil {
			return false
		}
	}
	return true
}

// No verdict without its evidence: a run that stopped before it was done
// (its cap, or a trace cut short) leaves some submissions without an
// outcome, and some sessions whose final transcript the observer never
// read. Those submissions are inconclusive, each with why; they are not
// lost, unresolved or anything else a finished run would make them. What
// the frames show whatever the transcript says (a duplicate, a key leak, a
// bad reply) is still judged.

// unread is the first of sessions whose final transcript the observer
// never read because the run stopped first (a session that vanished is
// not unread: the Agent said it no longer had it), and why; "" when there
// is none.
func (lg *ledger) unread(sessions []int32) (int32, string) {
	why := lg.stoppedWhy()
	if why == "" {
		return noID, ""
	}
	for _, S := range sessions {
		if lg.fin(S) == nil && !lg.sessionGone(S) {
			return S, why
		}
	}
	return noID, ""
}

// unjudged notes s as inconclusive: the run stopped before its verdict
// could be given, for the reason the explanation tells.
func (lg *ledger) unjudged(s, session int32, ev *evs, format string, args ...any) {
	lg.inconclusive = true
	lg.core.subs[s].unjudged = true
	lg.core.unjudged = append(lg.core.unjudged, Unjudged{Sub: lg.in.Sub(s), Session: lg.in.IDName(session), Why: fmt.Sprintf(format, args...), Events: ev.sorted()})
}

// unreadLost is the inconclusive verdict on a submission that would be
// lost if session S's transcript, which the observer never read, lacked it.
func (lg *ledger) unreadLost(s, S int32, why string) {
	ev := lg.subEvents(s)
	lg.unjudged(s, S, ev, "%s cannot be checked: the observer could not read session %s's transcript: %s; %s; %s.",
		lg.subName(s), short(lg.in.IDName(S)), why, lg.attempts(s, ev), lg.told(s, ev))
}

// transcripts tells what the final transcripts of s's sessions hold of it.
func (lg *ledger) transcripts(s int32, ev *evs) string {
	sessions := lg.sessionsOf(s)
	for j := lg.core.subs[s].msgs; j != none; j = lg.core.attrs[j].next {
		S := lg.core.attrs[j].session
		found := false
		for _, x := range sessions {
			found = found || x == S
		}
		if !found {
			sessions = append(sessions, S)
		}
	}
	if len(sessions) == 0 {
		return "it named no session, so no transcript holds it"
	}
	var parts []string
	for _, S := range sessions {
		parts = append(parts, lg.transcriptOf(s, S, noID, ev))
	}
	return strings.Join(parts, "; ")
}

// transcriptOf tells what session S's final transcript holds of s; want,
// when not noID, is a messageId the transcript should hold.
func (lg *ledger) transcriptOf(s, S, want int32, ev *evs) string {
	f := lg.fin(S)
	if f == nil {
		return fmt.Sprintf("session %s has no final transcript (the observer got no successful session/resume for it)", short(lg.in.IDName(S)))
	}
	ev.add(lg.finSeq(f))
	var ids []string
	for j := lg.core.subs[s].msgs; j != none; j = lg.core.attrs[j].next {
		a := &lg.core.attrs[j]
		if a.session != S {
			continue
		}
		m := &lg.fmsgs[a.m]
		ev.add(m.seq)
		id := short(lg.in.IDName(m.id))
		if a.byText {
			id += " (by text: no response named it)"
		}
		ids = append(ids, id)
	}
	head := fmt.Sprintf("the final transcript of session %s (read on %s at %s)", short(lg.in.IDName(S)), lg.finLink(f), ms(lg.finT(f)))
	if f.n == 0 && lg.sessionPrompted(S) {
		head += `, in which the Agent replayed no user message at all although it had answered prompts in the session (does its session/resume replay the history when asked with "replayFrom": {"type": "start"}?),`
	}
	switch {
	case want != noID:
		if len(ids) == 0 {
			return fmt.Sprintf("%s holds %s, not %s", head, plural(int(f.n), "message"), short(lg.in.IDName(want)))
		}
		return fmt.Sprintf("%s holds %s of it, not %s", head, list(ids), short(lg.in.IDName(want)))
	case len(ids) == 0:
		return fmt.Sprintf("%s holds none of it (%s in all)", head, plural(int(f.n), "message"))
	case len(ids) >= 2:
		return fmt.Sprintf("%s holds all of %s", head, list(ids))
	}
	return fmt.Sprintf("%s holds %s", head, ids[0])
}
