package properties

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

// Session set-up that keeps failing: the Agent answers session/resume of a
// session (or session/new of a Client) with errors after healing and never
// with success since. One anomaly names the requests, the error and how
// often; the submissions whose verdict would rest on the transcript the
// Agent cannot give back are not reported lost on top of it, but named in
// it as unchecked (subRow.unchecked, for the verdicts to read). The
// answers are noted as first responses arrive, the groups judged after
// the pass.

// setupKey finds a set-up group: the session resumed, or the Client whose
// session/new it is (a word handle).
type setupKey struct {
	resume bool
	of     int32
}

// setupRow is the set-up requests of one session or Client and their
// answers (setupAnswerRow, threaded from first to last).
type setupRow struct {
	method  word
	session int32 // the session resumed; noID for session/new
	client  word  // the Client creating sessions; wNone for session/resume
	first   int32
	last    int32
	failed  bool
	// unchecked threads (uncheckedRow) the submissions it names as
	// unchecked, in order of first sight.
	unchecked, lastUnchecked int32
}

// setupAnswerRow is an answer the Agent sent to a set-up request.
type setupAnswerRow struct {
	ok     bool
	code   int32
	msg    int32 // the error's message, a text handle
	seq, t int64
	next   int32
}

// uncheckedRow is a submission a failed set-up group names as unchecked.
type uncheckedRow struct{ sub, next int32 }

// setupAnswered notes the first response (x) to request r, when r sets up
// a session.
func (lg *ledger) setupAnswered(r *reqRow, x *fact) {
	var key setupKey
	switch r.method {
	case wSessionResume:
		key = setupKey{resume: true, of: r.session}
	case wSessionNew:
		key = setupKey{of: int32(lg.links[r.link].client)}
	default:
		return
	}
	if lg.v1 && r.method == wSessionResume && x.hasErr && x.errCode == acp.CodeMethodNotFound {
		// A v1 Agent without session/load (v1 makes it optional): no
		// session can be read back, which is no set-up failure.
		lg.noLoad = true
		return
	}
	if x.hasErr && x.errCode == acp.CodeResourceNotFound {
		// The Agent says it does not have the session: the Client makes
		// a new one. Whether that was allowed is the session contract's
		// business, not a set-up that keeps failing.
		return
	}
	gi, ok := lg.setupAt[key]
	if !ok {
		if lg.setupAt == nil {
			lg.setupAt = map[setupKey]int32{}
		}
		g := setupRow{method: r.method, session: noID, first: none, last: none, unchecked: none, lastUnchecked: none}
		if key.resume {
			g.session = r.session
		} else {
			g.client = word(key.of)
		}
		gi = int32(len(lg.setups))
		lg.setups = append(lg.setups, g)
		lg.setupAt[key] = gi
	}
	lg.setupAnswers = append(lg.setupAnswers, setupAnswerRow{ok: !x.hasErr, code: x.errCode, msg: x.errMsg, seq: x.seq, t: x.t, next: none})
	g, ai := &lg.setups[gi], int32(len(lg.setupAnswers)-1)
	if g.last == none {
		g.first = ai
	} else {
		lg.setupAnswers[g.last].next = ai
	}
	g.last = ai
}

// judgeSetups marks the groups whose set-up failed (an error answered
// after healing, none but errors since: a trace without a heal event
// counts every answer as after it), then the submissions left unchecked.
func (lg *ledger) judgeSetups() {
	anyFailed := false
	for i := range lg.setups {
		g := &lg.setups[i]
		after, lastErr, lastOK := 0, int64(-1), int64(-1)
		for j := g.first; j != none; j = lg.setupAnswers[j].next {
			a := &lg.setupAnswers[j]
			if a.ok {
				lastOK = a.seq
				continue
			}
			lastErr = a.seq
			if a.seq > lg.healSeq {
				after++
			}
		}
		g.failed = after > 0 && lastOK < lastErr
		anyFailed = anyFailed || g.failed
	}
	if !anyFailed {
		return // no submission is unchecked: spare the walk over them
	}
	for _, s := range lg.subOrder {
		if sessions, ok := lg.setupUncheckable(s); ok {
			lg.subs[s].unchecked = true
			for _, S := range sessions {
				g := &lg.setups[lg.setupAt[setupKey{resume: true, of: S}]]
				lg.uncheckedIn = append(lg.uncheckedIn, uncheckedRow{sub: s, next: none})
				if g.lastUnchecked == none {
					g.unchecked = int32(len(lg.uncheckedIn) - 1)
				} else {
					lg.uncheckedIn[g.lastUnchecked].next = int32(len(lg.uncheckedIn) - 1)
				}
				g.lastUnchecked = int32(len(lg.uncheckedIn) - 1)
			}
		}
	}
}

// setupUncheckable says whether submission s's verdict rests only on final
// transcripts the observer could not read because their sessions' set-up
// failed, and those sessions. judgeSub reads it (subRow.unchecked) as the
// last excuse before lost, for a submission told inserted or nothing; it
// is decided before judgeSub runs, from what judgeSub tests before it, so
// that the failed group can name s. The sessions have no final
// transcript, so none of s's messages was attributed (each comes from a
// final transcript of one of s's sessions) and the contract's retention
// cannot excuse s: only live-only can, where a prompt of s reached the
// Agent in one of them; every final transcript unread, noLoad excuses s;
// every session vanished excuses it too.
func (lg *ledger) setupUncheckable(s int32) ([]int32, bool) {
	x := &lg.subs[s]
	var sessions []int32
	switch x.outcome {
	case wInserted:
		sessions = lg.outcomeCands(s)
	case wAbandoned:
		for j := x.sessions; j != none; j = lg.sessions[j].next {
			sessions = append(sessions, lg.sessions[j].session)
		}
	default:
		return nil, false
	}
	if len(sessions) == 0 || lg.noLoad {
		return nil, false
	}
	for _, S := range sessions {
		if valueAt(lg.final, S) != 0 || !lg.setupFailedFor(S) {
			return nil, false
		}
	}
	if lg.h.Contract.IsLiveOnly(lg.in.textName(x.text)) {
		for _, S := range sessions {
			if lg.deliveredIn(s, S) {
				return nil, false
			}
		}
	}
	if lg.allGone(sessions) {
		return nil, false
	}
	return sessions, true
}

// outcomeCands are the sessions an inserted(M) outcome of s may be found
// in: the session of s's answer naming M, else every session of s.
func (lg *ledger) outcomeCands(s int32) []int32 {
	x := &lg.subs[s]
	for j := x.answers; j != none; j = lg.answers[j].next {
		if a := &lg.answers[j]; a.msg == x.outcomeMsg {
			return []int32{a.session}
		}
	}
	var out []int32
	for j := x.sessions; j != none; j = lg.sessions[j].next {
		out = append(out, lg.sessions[j].session)
	}
	return out
}

// deliveredIn reports whether a prompt request of s reached an Agent in
// session S: only then may the Agent have had a message of s to drop.
func (lg *ledger) deliveredIn(s, S int32) bool {
	for i := lg.subs[s].firstReq; i != none; i = lg.reqs[i].nextOfSub {
		if r := &lg.reqs[i]; r.delivered && r.session == S {
			return true
		}
	}
	return false
}

// setupFailedFor reports whether session S's set-up failed.
func (lg *ledger) setupFailedFor(S int32) bool {
	gi, ok := lg.setupAt[setupKey{resume: true, of: S}]
	return ok && lg.setups[gi].failed
}

// reportSetups adds one setup-failed anomaly per failed group.
func (lg *ledger) reportSetups() {
	for i := range lg.setups {
		g := &lg.setups[i]
		if !g.failed {
			continue
		}
		ev := &evs{}
		after, errs := 0, 0
		var kinds []string
		counts := map[string]int{}
		var last setupAnswerRow
		for j := g.first; j != none; j = lg.setupAnswers[j].next {
			a := lg.setupAnswers[j]
			if a.ok {
				continue
			}
			errs++
			if a.seq <= lg.healSeq {
				continue
			}
			after++
			last = a
			if after <= 10 {
				ev.add(a.seq)
			}
			k := strconv.Itoa(int(a.code))
			if msg := lg.in.textName(a.msg); msg != "" {
				k += " '" + clip(msg, 60) + "'"
			}
			if counts[k] == 0 {
				kinds = append(kinds, k)
			}
			counts[k]++
		}
		ev.add(last.seq)
		var said []string
		for _, k := range kinds {
			said = append(said, k+" "+times(counts[k]))
		}
		method := lg.in.wordName(g.method)
		// A resume naming no session reads "session/resume of " (its
		// group has no client either).
		what := method + " of " + lg.in.wordName(g.client)
		if g.session != noID {
			what = method + " of session " + short(lg.in.IDName(g.session))
		}
		since := "healing"
		if lg.healSeq == 0 {
			since = "the start (the trace has no heal event)"
		}
		tail := ""
		if errs > after {
			tail = fmt.Sprintf(" (%d times in all)", errs)
		}
		var subs []int32
		var names []string
		for j := g.unchecked; j != none; j = lg.uncheckedIn[j].next {
			subs = append(subs, lg.uncheckedIn[j].sub)
			names = append(names, lg.in.Sub(lg.uncheckedIn[j].sub))
		}
		unchecked := ""
		if len(names) > 0 {
			unchecked = fmt.Sprintf("; its final transcript could not be read, so %s cannot be checked", list(names))
		}
		// Not through report, which takes one submission: it names every
		// unchecked submission (subs) and none as its Sub. Like report, it
		// keeps it at a tap (setup-failed needs no whole history).
		lg.out = append(lg.out, ledgerAnomaly{Anomaly: Anomaly{Kind: SetupFailed, Session: lg.in.IDName(g.session), Events: ev.sorted(),
			Explanation: fmt.Sprintf("%s answered %s after %s%s, the last at %s, and never succeeded since%s.",
				what, strings.Join(said, ", "), since, tail, ms(last.t), unchecked)}, subs: subs})
	}
}
