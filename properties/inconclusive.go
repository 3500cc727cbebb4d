package properties

import (
	"fmt"

	"github.com/acpsim/acpsim/traces"
)

// No verdict without its evidence: a run that stopped before it was done
// (its cap, or a trace cut short) leaves some submissions without an
// outcome, and some sessions whose final transcript the observer never
// read. Those submissions are inconclusive, each with why; they are not
// lost, unresolved or anything else a finished run would make them. What
// the frames show whatever the transcript says (a duplicate, a key leak, a
// bad reply) is still judged.

// stoppedWhy says how the run stopped before it was done, "" when it
// ended quiet: then nothing was left to read, and a transcript the
// observer lacks is the Agent's to answer for.
func (c *checker) stoppedWhy() string {
	switch c.rep.End {
	case traces.EndCap:
		return "the run hit its cap"
	case "":
		return "the trace has no end event"
	}
	return ""
}

// unread is the first of sessions whose final transcript the observer
// never read because the run stopped first (a session that vanished is
// not unread: the Agent said it no longer had it), and why; "" when there
// is none.
func (c *checker) unread(sessions []string) (string, string) {
	why := c.stoppedWhy()
	if why == "" {
		return "", ""
	}
	for _, S := range sessions {
		if c.final[S] == nil && !c.sessionGone(S) {
			return S, why
		}
	}
	return "", ""
}

// unjudged notes s as inconclusive: the run stopped before its verdict
// could be given, for the reason the explanation tells.
func (c *checker) unjudged(s *subState, session string, ev *evs, format string, args ...any) {
	c.rep.Inconclusive = true
	s.unjudged = true
	c.rep.Unjudged = append(c.rep.Unjudged, Unjudged{Sub: s.id, Session: session, Why: fmt.Sprintf(format, args...), Events: ev.sorted()})
}

// unreadLost is the inconclusive verdict on a submission that would be
// lost if session S's transcript, which the observer never read, lacked
// it.
func (c *checker) unreadLost(s *subState, S, why string) {
	ev := c.subEvents(s)
	c.unjudged(s, S, ev, "%s cannot be checked: the observer could not read session %s's transcript: %s; %s; %s.",
		c.subName(s), short(S), why, c.attempts(s, ev), c.told(s, ev))
}
