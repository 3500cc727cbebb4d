package properties

import (
	"fmt"
	"slices"
	"sort"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// After the pass: run every judgement, then order the anomalies and fill the
// report, so equal traces give equal reports.

// anomaly is an Anomaly plus every submission it concerns (an unattributable
// group concerns several), for the table's anomalies column.
type anomaly struct {
	Anomaly
	subs []*subState
	// by is the judgement that found it (checker.judging): the rewrite's
	// harness compares a kind that several judgements report one
	// judgement at a time (ledger_compare.go).
	by string
}

// The judgements that share the bad-reply kind, as anomaly.by names them.
const (
	byMissingReplies = "missing replies"
	byCancelled      = "cancelled"
	byRefusedKeys    = "refused keys"
	byReplies        = "replies"
)

// NeedWholeHistory are the kinds a trace recorded by acpsim tap cannot show:
// they need what the users were told, an observer's final transcript, or
// the run's end, and a tap sees only the frames that passed it.
var NeedWholeHistory = []string{Lost, SessionLost, Phantom, Unresolved, Unattributable}

func (c *checker) add(kind string, s *subState, session string, ev *evs, format string, args ...any) {
	if c.h.Observed == traces.ObservedAtTap && slices.Contains(NeedWholeHistory, kind) {
		return
	}
	a := anomaly{Anomaly: Anomaly{Kind: kind, Session: session, Explanation: fmt.Sprintf(format, args...), Events: ev.sorted()}, by: c.judging}
	if s != nil {
		a.Sub, a.subs = s.id, []*subState{s}
	}
	c.emit(a)
}

// emit records anomaly a, and indexes it for reported when it concerns one
// submission.
func (c *checker) emit(a anomaly) {
	c.out = append(c.out, a)
	if len(a.subs) == 1 {
		if c.byReport == nil {
			c.byReport = map[reportKey]bool{}
		}
		c.byReport[reportKey{a.Kind, a.Session, a.subs[0]}] = true
	}
}

// reportKey is an anomaly of one submission, as reported looks it up.
type reportKey struct {
	kind, session string
	s             *subState
}

func (c *checker) finish() *Report {
	c.rep.Stats.Submissions = len(c.order)
	if c.rep.Protocol == 0 {
		c.rep.Protocol = acp.ProtocolVersion
	}
	c.rep.Stats.Sessions = len(c.created)
	for _, id := range c.created {
		if !c.sessionUsed[id] {
			c.rep.Stats.UnusedSessions++
		}
	}
	// A run cut at its cap did not do all it was asked: what it did is
	// judged, but no verdict of it is a pass.
	c.rep.Inconclusive = c.rep.End == traces.EndCap
	if len(c.order) == 0 {
		// Nothing submitted is nothing shown: a run whose users never got
		// to type (an Agent never reached, --prompts 0, a trace holding
		// only its header) must not read as a pass.
		c.rep.Inconclusive = true
		c.rep.NothingJudged = "the trace holds no submission"
		if why := c.stoppedWhy(); why != "" {
			c.rep.NothingJudged += " (" + why + ")"
		}
	}
	if c.h.Observed == traces.ObservedAtTap {
		c.rep.NotJudged = NeedWholeHistory
	}
	c.missingReplies()
	for _, s := range c.order {
		c.nameInsertions(s)
	}
	c.attribute()
	for _, s := range c.order {
		if s.byText > 0 {
			// Tell them in transcript order, whichever way they were attributed.
			sort.SliceStable(s.msgs, func(i, j int) bool { return s.msgs[i].m.seq < s.msgs[j].m.seq })
		}
	}
	c.judgeSessions()
	c.rep.Sessions = c.sessions.report()
	c.judgeSetups()
	for _, s := range c.order {
		c.judgeSub(s)
	}
	c.reportSetups()
	c.judgeShared()
	c.judgeAnswers() // after judgeSub and judgeShared, which may have told it already
	c.judgeLiveIDs()
	c.judgeRework()
	c.judgeLeaks()
	c.judgeReplies()
	c.accounts()

	for _, s := range c.order {
		for _, r := range s.reqs {
			if lostAfterInsert(r) {
				c.rep.Stats.RespLostAfterInsert++
			}
		}
		if s.byText > 0 {
			c.rep.Stats.RespLostAfterInsert++
		}
	}

	rank := map[string]int{}
	for i, k := range Kinds {
		rank[k] = i
	}
	sort.SliceStable(c.out, func(i, j int) bool {
		a, b := c.out[i], c.out[j]
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] < rank[b.Kind]
		}
		return firstOf(a.Events) < firstOf(b.Events)
	})
	for _, a := range c.out {
		c.rep.Anomalies = append(c.rep.Anomalies, a.Anomaly)
		for _, s := range a.subs {
			if n := len(s.kinds); n == 0 || s.kinds[n-1] != a.Kind {
				s.kinds = append(s.kinds, a.Kind)
			}
		}
	}
	if len(c.order) > 0 {
		c.rep.Submissions = make([]SubmissionResult, 0, len(c.order))
	}
	for _, s := range c.order {
		c.rep.Submissions = append(c.rep.Submissions, s.result())
	}
	c.rep.cutIDs()
	return &c.rep
}

func firstOf(seqs []int64) int64 {
	if len(seqs) == 0 {
		return 1<<63 - 1
	}
	return seqs[0]
}

func lostAfterInsert(r *reqRec) bool {
	sent := false
	for _, rp := range r.resps {
		if rp.ok {
			if rp.delivered {
				return false
			}
			sent = true
		}
	}
	return sent
}

func (s *subState) result() SubmissionResult {
	r := SubmissionResult{
		// Sessions is a copy: s.sessions may lie in s's record, and the
		// report must not keep the checker's tables alive.
		Sub: s.id, Client: s.client, Text: s.text, Sessions: slices.Clone(s.sessions),
		Attempts: len(s.reqs), Outcome: s.outcome, MessageID: s.outcomeMsg,
		ByText: s.byText, Anomalies: s.kinds, Mixed: s.mixed, Inconclusive: s.unjudged,
	}
	if s.keyed && !s.mixed {
		r.Key = s.key
	}
	for _, q := range s.reqs {
		if q.delivered {
			r.Delivered++
		}
	}
	if n := len(s.answers) + len(s.msgs); n > 0 {
		ids := make([]string, 0, n) // one allocation for both lists
		for _, a := range s.answers {
			ids = append(ids, a.id)
		}
		for _, m := range s.msgs {
			ids = append(ids, m.m.id)
		}
		if len(s.answers) > 0 {
			r.Answered = ids[:len(s.answers):len(s.answers)]
		}
		if len(s.msgs) > 0 {
			r.Transcript = ids[len(s.answers):]
		}
	}
	return r
}
