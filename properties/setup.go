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
// it as unchecked.

// setupGroup is the set-up requests of one session (session/resume, the
// observer's included) or of one Client (session/new) and their answers.
type setupGroup struct {
	method, of string // of: the session resumed, or the Client creating sessions
	session    string
	answers    []setupAnswer
	failed     bool
	// unchecked are the submissions told inserted (or nothing) in the
	// session whose final transcript the observer could not read.
	unchecked []*subState
}

type setupAnswer struct {
	ok     bool
	code   int
	msg    string
	seq, t int64
}

// setupAnswered notes an answer the Agent sent to a set-up request.
func (c *checker) setupAnswered(l *linkState, r *reqRec, rp *respRec, msg string) {
	var key, of string
	switch r.method {
	case acp.MethodSessionResume:
		key, of = "resume\x00"+r.session, r.session
	case acp.MethodSessionNew:
		key, of = "new\x00"+l.client, l.client
	default:
		return
	}
	if c.v1 && r.method == acp.MethodSessionResume && !rp.ok && rp.code == acp.CodeMethodNotFound {
		// A v1 Agent without session/load (v1 makes it optional): no
		// session can be read back, which is no set-up failure.
		c.noLoad = true
		return
	}
	if !rp.ok && rp.code == acp.CodeResourceNotFound {
		// The Agent says it does not have the session: the Client makes a
		// new one. Whether that was allowed is the session contract's
		// business, not a set-up that keeps failing.
		return
	}
	g := c.setups[key]
	if g == nil {
		if c.setups == nil {
			c.setups = map[string]*setupGroup{}
		}
		g = &setupGroup{method: r.method, of: of}
		if r.method == acp.MethodSessionResume {
			g.session = r.session
		}
		c.setups[key] = g
		c.setupOrder = append(c.setupOrder, g)
	}
	g.answers = append(g.answers, setupAnswer{ok: rp.ok, code: rp.code, msg: c.own(msg), seq: rp.seq, t: rp.t})
}

// judgeSetups marks the groups whose set-up failed: an error answered after
// healing and no success after the last error. A trace without a heal
// event counts every answer as after it.
func (c *checker) judgeSetups() {
	for _, g := range c.setupOrder {
		after, lastErr, lastOK := 0, int64(-1), int64(-1)
		for _, a := range g.answers {
			if a.ok {
				lastOK = a.seq
				continue
			}
			lastErr = a.seq
			if a.seq > c.healSeq {
				after++
			}
		}
		g.failed = after > 0 && lastOK < lastErr
	}
}

// setupFailedFor is the failed set-up group of session S, if any.
func (c *checker) setupFailedFor(S string) *setupGroup {
	if g := c.setups["resume\x00"+S]; g != nil && g.failed {
		return g
	}
	return nil
}

// uncheckable reports whether s's verdict rests only on final transcripts
// the observer could not read because their sessions' set-up failed; if so
// s is noted as unchecked in those groups.
func (c *checker) uncheckable(s *subState, sessions []string) bool {
	if len(sessions) == 0 {
		return false
	}
	var gs []*setupGroup
	for _, S := range sessions {
		g := c.setupFailedFor(S)
		if g == nil || c.final[S] != nil {
			return false
		}
		gs = append(gs, g)
	}
	for _, g := range gs {
		g.unchecked = append(g.unchecked, s)
	}
	return true
}

// reportSetups adds one setup-failed anomaly per failed group.
func (c *checker) reportSetups() {
	for _, g := range c.setupOrder {
		if !g.failed {
			continue
		}
		ev := &evs{}
		after, errs := 0, 0
		var kinds []string
		counts := map[string]int{}
		var last setupAnswer
		for _, a := range g.answers {
			if a.ok {
				continue
			}
			errs++
			if a.seq <= c.healSeq {
				continue
			}
			after++
			last = a
			if after <= 10 {
				ev.add(a.seq)
			}
			k := strconv.Itoa(a.code)
			if a.msg != "" {
				k += " '" + clip(a.msg, 60) + "'"
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
		what := g.method + " of " + g.of
		if g.session != "" {
			what = g.method + " of session " + short(g.of)
		}
		since := "healing"
		if c.healSeq == 0 {
			since = "the start (the trace has no heal event)"
		}
		tail := ""
		if errs > after {
			tail = fmt.Sprintf(" (%d times in all)", errs)
		}
		var subs []string
		for _, s := range g.unchecked {
			subs = append(subs, s.id)
		}
		unchecked := ""
		if len(subs) > 0 {
			unchecked = fmt.Sprintf("; its final transcript could not be read, so %s cannot be checked", list(subs))
		}
		a := anomaly{Anomaly: Anomaly{Kind: SetupFailed, Session: g.session, Events: ev.sorted(),
			Explanation: fmt.Sprintf("%s answered %s after %s%s, the last at %s, and never succeeded since%s.",
				what, strings.Join(said, ", "), since, tail, ms(last.t), unchecked)}, subs: g.unchecked}
		c.emit(a)
	}
}
