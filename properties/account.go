package properties

import (
	"fmt"
	"sort"
	"strings"
)

// A verdict is an account: for each property the headline names, how many
// submissions it could be judged for, and why not the rest. A report with
// no anomaly is a pass only for what was judged: a run where never silently
// lost could be judged for none of the submissions it applies to (an Agent
// whose sessions died with their processes, none read before) is
// inconclusive, not a pass (Report.Verdict).

// lossJudgement is whether the lost rule applied to a submission and,
// when it did, whether the frames could judge it.
type lossJudgement int8

const (
	// lossNotApplicable: the user was told failed or unknown, or nothing
	// was judged yet.
	lossNotApplicable lossJudgement = iota
	lossJudged
	lossSessionGone
	lossSetupFailed
	lossStopped
	lossNoLoad
)

// lossWhy tells why a submission's loss could not be judged.
var lossWhy = map[lossJudgement]string{
	lossSessionGone: "their session ended with its Agent process (the process contract) and no transcript of it was read while the process lived",
	lossSetupFailed: "their session could not be set up again (setup-failed), so its transcript could not be read",
	lossStopped:     "the run stopped before their session's transcript was read",
	lossNoLoad:      "the Agent has no session/load (optional in ACP v1), so their session's transcript could not be read",
}

// tapWhy is why a tap's trace judges no outcome and no transcript.
const tapWhy = "a tap sees the frames only: no user's outcome and no final transcript"

// Account is how much of the run one property was judged for.
type Account struct {
	// Property is an anomaly kind (Duplicate, Lost, Phantom, Unresolved).
	Property string
	// Of counts the submissions the property applies to; Judged those it
	// was judged for in full; Partly those judged on part of the evidence
	// (a duplicate from the Agent's answers, without a transcript).
	Of, Judged, Partly int
	// NotJudged are the rest, grouped by why, the largest group first.
	NotJudged []NotJudged `json:",omitempty"`
}

// NotJudged is a group of submissions a property could not be judged for.
type NotJudged struct {
	N   int
	Why string
}

// Line is the account for people, e.g. "lost: judged for 6 of 10
// submissions; 4 not judged: their session ended with …".
func (a Account) Line() string {
	if a.Of == 0 {
		return fmt.Sprintf("%s: not applicable (%s)", a.Property, notApplicable[a.Property])
	}
	s := fmt.Sprintf("%s: judged for %d of %s", a.Property, a.Judged, plural(a.Of, "submission"))
	if a.Partly > 0 {
		s += fmt.Sprintf("; %d from the Agent's answers only (no transcript of their session was read)", a.Partly)
	}
	for _, n := range a.NotJudged {
		s += fmt.Sprintf("; %d not judged: %s", n.N, n.Why)
	}
	return s
}

// Complete reports whether a was judged for every submission it applies to.
func (a Account) Complete() bool { return a.Judged == a.Of }

// notApplicable says why a property applied to no submission.
var notApplicable = map[string]string{
	Duplicate:  "no submission",
	Lost:       "no user was told inserted, or nothing",
	Phantom:    "no user was told failed",
	Unresolved: "no submission",
}

// Account returns the report's account of property kind (zero when the
// report has none).
func (r *Report) Account(kind string) Account {
	for _, a := range r.Accounts {
		if a.Property == kind {
			return a
		}
	}
	return Account{Property: kind}
}

// Stopped says how the run of an inconclusive report stopped before it was
// done: at its cap, or cut short (a trace without its end event, as a
// recording stopped midway leaves it).
func (r *Report) Stopped() string {
	if r.End == "" {
		return "the trace has no end event: the run was cut short before it was done"
	}
	return "the run stopped at its cap before it was done"
}

// Verdict values (Report.Verdict).
const (
	VerdictPass         = "pass"
	VerdictFail         = "fail"
	VerdictInconclusive = "inconclusive"
)

// Verdict is the report's verdict and its one line: FAIL when an anomaly
// was found; INCONCLUSIVE when nothing was judged, the run stopped before
// it was done, or never silently lost could be judged for none of the
// submissions it applies to; otherwise PASS, naming only what was judged.
func (r *Report) Verdict() (verdict, line string) {
	if !r.OK() {
		return VerdictFail, "FAIL"
	}
	if r.NothingJudged != "" {
		return VerdictInconclusive, "INCONCLUSIVE: nothing judged: " + r.NothingJudged + "; no verdict is a pass without a submission"
	}
	if r.Inconclusive {
		return VerdictInconclusive, "INCONCLUSIVE: " + r.Stopped() + ": no anomaly in what it did, and what it could not finish has no verdict"
	}
	tap := len(r.NotJudged) > 0
	lost, dup := r.Account(Lost), r.Account(Duplicate)
	if !tap && lost.Of > 0 && lost.Judged == 0 {
		why := "no transcript was read"
		if len(lost.NotJudged) > 0 {
			why = lost.NotJudged[0].Why
		}
		return VerdictInconclusive, fmt.Sprintf("INCONCLUSIVE: never silently lost could be judged for none of the %s it applies to: %s", plural(lost.Of, "submission"), why)
	}
	if tap {
		return VerdictPass, fmt.Sprintf("PASS on the frames only: no submission answered as two insertions, no wrong id, key leak or bad reply (not judged on a tap's trace: %s)", strings.Join(r.NotJudged, ", "))
	}
	if lost.Complete() && dup.Complete() {
		return VerdictPass, "PASS: every submission inserted at most once and never silently lost"
	}
	var parts []string
	if !dup.Complete() {
		parts = append(parts, fmt.Sprintf("at most once judged against a transcript for %d of %d submissions, from the Agent's answers for %d", dup.Judged, dup.Of, dup.Partly))
	}
	if !lost.Complete() {
		parts = append(parts, fmt.Sprintf("never silently lost judged for %d of %d", lost.Judged, lost.Of))
	}
	return VerdictPass, "PASS on what was judged: no submission inserted twice or silently lost (" + strings.Join(parts, "; ") + ")"
}

// The accounts, made once every submission is judged: for each property,
// how many submissions it was judged for, and why not the rest.

// accounts are the report's accounts, once every submission is judged.
func (lg *ledger) accounts() []Account {
	tap := lg.tap()
	dup := Account{Property: Duplicate}
	lost := Account{Property: Lost}
	phantom := Account{Property: Phantom}
	unresolved := Account{Property: Unresolved}
	not := map[*Account]map[string]int{}
	skip := func(a *Account, why string) {
		if not[a] == nil {
			not[a] = map[string]int{}
		}
		not[a][why]++
	}
	for _, s := range lg.subOrder {
		x, c := &lg.subs[s], &lg.core.subs[s]
		read := lg.transcriptRead(s)
		dup.Of++
		switch {
		case read || !lg.anyDelivered(s):
			dup.Judged++
		case lg.v1:
			skip(&dup, "no transcript of their session was read, and ACP v1's answers name no message")
		default:
			dup.Partly++
		}
		switch {
		case tap:
			lost.Of++
			skip(&lost, tapWhy)
		case c.loss == lossJudged:
			lost.Of++
			lost.Judged++
		case c.loss != lossNotApplicable:
			lost.Of++
			skip(&lost, lossWhy[c.loss])
		case c.unjudged && x.nOutcomes == 0:
			lost.Of++
			skip(&lost, "they had no outcome when the run stopped")
		}
		if x.outcome == wFailed || tap {
			phantom.Of++
			switch {
			case tap:
				skip(&phantom, tapWhy)
			case read:
				phantom.Judged++
			default:
				skip(&phantom, "no transcript of their session was read")
			}
		}
		unresolved.Of++
		switch {
		case tap:
			skip(&unresolved, tapWhy)
		case c.unjudged && x.nOutcomes == 0:
			skip(&unresolved, "the run stopped while they were pending")
		default:
			unresolved.Judged++
		}
	}
	var out []Account
	for _, a := range []*Account{&dup, &lost, &phantom, &unresolved} {
		for why, n := range not[a] {
			a.NotJudged = append(a.NotJudged, NotJudged{N: n, Why: why})
		}
		sort.Slice(a.NotJudged, func(i, j int) bool {
			x, y := a.NotJudged[i], a.NotJudged[j]
			return x.N > y.N || x.N == y.N && x.Why < y.Why
		})
		out = append(out, *a)
	}
	return out
}

// transcriptRead reports whether the final transcript of a session s was
// sent in was read.
func (lg *ledger) transcriptRead(s int32) bool {
	for j := lg.subs[s].sessions; j != none; j = lg.sessions[j].next {
		if lg.fin(lg.sessions[j].session) != nil {
			return true
		}
	}
	return false
}

// anyDelivered reports whether a prompt request of s reached the Agent.
func (lg *ledger) anyDelivered(s int32) bool {
	for ri := lg.subs[s].firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
		if lg.reqs[ri].delivered {
			return true
		}
	}
	return false
}
