package properties

import (
	"fmt"
	"sort"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Explanations must let a reader check an anomaly by hand: these tell what
// became of each request, what the user was told and what transcripts hold.

// evs collects the seqs an explanation cites.
type evs struct{ s []int64 }

func (e *evs) add(seqs ...int64) {
	for _, q := range seqs {
		if q > 0 {
			e.s = append(e.s, q)
		}
	}
}

func (e *evs) sorted() []int64 {
	sort.Slice(e.s, func(i, j int) bool { return e.s[i] < e.s[j] })
	out := e.s[:0]
	for i, q := range e.s {
		if i == 0 || q != e.s[i-1] {
			out = append(out, q)
		}
	}
	return out
}

func (c *checker) subEvents(s *subState) *evs {
	ev := &evs{}
	ev.add(s.submitSeq)
	return ev
}

func (c *checker) subName(s *subState) string {
	if s == nil {
		return "a request with no submission"
	}
	key := "no key"
	switch {
	case s.mixed:
		key = "mixed keys"
	case s.keyed:
		key = "key " + short(s.key)
	}
	return fmt.Sprintf("%s (%q, %s)", s.id, clip(s.text, 40), key)
}

func (c *checker) reqOf(r *reqRec) string {
	what := "request"
	if r.method != "" {
		what = r.method + " request"
	}
	if r.sub != nil && r.method == acp.MethodSessionPrompt {
		return fmt.Sprintf("%s's %s %s on %s", r.sub.id, what, r.id, r.link.name)
	}
	return fmt.Sprintf("%s %s on %s", what, r.id, r.link.name)
}

// bareReq names a request without its submission.
func (c *checker) bareReq(r *reqRec) string {
	if r.method == "" {
		return fmt.Sprintf("request %s on %s", r.id, r.link.name)
	}
	return fmt.Sprintf("%s request %s on %s", r.method, r.id, r.link.name)
}

// attempts tells each prompt request of s and what became of it, in order.
func (c *checker) attempts(s *subState, ev *evs) string {
	if len(s.reqs) == 0 {
		return "no prompt request was ever sent"
	}
	var parts []string
	for _, r := range s.reqs {
		parts = append(parts, c.story(r, ev))
	}
	return strings.Join(parts, "; ")
}

func (c *checker) story(r *reqRec, ev *evs) string {
	ev.add(r.sendSeq, r.delSeq, r.lostSeq)
	var b strings.Builder
	fmt.Fprintf(&b, "request %s on %s", r.id, r.link.name)
	if r.sub != nil && r.sub.keyed && r.sub.mixed {
		switch r.keyState {
		case keyValid:
			fmt.Fprintf(&b, " (key %s)", short(r.key))
		case keyBad:
			b.WriteString(" (malformed key)")
		default:
			b.WriteString(" (no key)")
		}
	}
	if !r.delivered {
		if r.sendSeq > 0 {
			fmt.Fprintf(&b, " sent at %s", ms(r.sendT))
		}
		if r.lost != "" {
			b.WriteString(" " + r.lost)
		} else {
			b.WriteString(" never arrived")
		}
		return b.String()
	}
	fmt.Fprintf(&b, " delivered at %s", ms(r.delT))
	if r.to != "" && r.to != r.link.agent {
		fmt.Fprintf(&b, " to %s", r.to)
	}
	if len(r.resps) == 0 {
		b.WriteString(", never answered")
		if l := r.link; l.ended {
			fmt.Fprintf(&b, " before the link ended (%s) at %s", l.note, ms(l.endT))
			ev.add(l.endSeq)
		}
		return b.String()
	}
	for i, rp := range r.resps {
		ev.add(rp.seq, rp.delSeq, rp.lostSeq)
		if i == 0 {
			b.WriteString(", Agent answered ")
		} else {
			b.WriteString(" and again ")
		}
		fmt.Fprintf(&b, "%s at %s", answerText(rp), ms(rp.t))
		if rp.binding {
			b.WriteString(" from the binding")
		}
		switch {
		case rp.delivered:
		case rp.lost != "":
			b.WriteString(" but the response " + rp.lost)
		default:
			b.WriteString(" but the response never arrived")
		}
	}
	return b.String()
}

func outcomeText(s *subState) string {
	switch s.outcome {
	case "":
		return "no outcome"
	case traces.OutcomeInserted:
		return "inserted " + short(s.outcomeMsg)
	}
	return s.outcome
}

// told says what the Client told its user.
func (c *checker) told(s *subState, ev *evs) string {
	ev.add(s.outcomeSeq)
	who := s.client
	if who == "" {
		who = "the Client"
	}
	switch s.outcome {
	case "":
		return who + " never reported an outcome"
	case traces.OutcomeInserted:
		if s.outcomeMsg == "" { // ACP v1: the turn ended, no message named
			return fmt.Sprintf("%s told the user inserted at %s (its answer names no message)", who, ms(s.outT))
		}
		return fmt.Sprintf("%s told the user inserted(%s) at %s", who, short(s.outcomeMsg), ms(s.outT))
	case traces.OutcomeAbandoned:
		return fmt.Sprintf("%s stopped tracking it at %s without telling the user", who, ms(s.outT))
	}
	return fmt.Sprintf("%s told the user %s at %s", who, s.outcome, ms(s.outT))
}

// transcripts tells what the final transcripts of s's sessions hold of it.
func (c *checker) transcripts(s *subState, ev *evs) string {
	sessions := s.sessions
	for _, m := range s.msgs {
		found := false
		for _, S := range sessions {
			found = found || S == m.session
		}
		if !found {
			sessions = append(sessions[:len(sessions):len(sessions)], m.session)
		}
	}
	if len(sessions) == 0 {
		return "it named no session, so no transcript holds it"
	}
	var parts []string
	for _, S := range sessions {
		parts = append(parts, c.transcriptOf(s, S, "", ev))
	}
	return strings.Join(parts, "; ")
}

// transcriptOf tells what session S's final transcript holds of s; want, when
// set, is a messageId the transcript should hold.
func (c *checker) transcriptOf(s *subState, S, want string, ev *evs) string {
	t := c.final[S]
	if t == nil {
		return fmt.Sprintf("session %s has no final transcript (the observer got no successful session/resume for it)", short(S))
	}
	ev.add(t.seq)
	var ids []string
	for _, m := range s.msgs {
		if m.session != S {
			continue
		}
		ev.add(m.m.seq)
		id := short(m.m.id)
		if m.byText {
			id += " (by text: no response named it)"
		}
		ids = append(ids, id)
	}
	head := fmt.Sprintf("the final transcript of session %s (read on %s at %s)", short(S), t.link, ms(t.t))
	if len(t.msgs) == 0 && c.sessRecs[S] != nil && c.sessRecs[S].prompted {
		head += `, in which the Agent replayed no user message at all although it had answered prompts in the session (does its session/resume replay the history when asked with "replayFrom": {"type": "start"}?),`
	}
	switch {
	case want != "":
		if len(ids) == 0 {
			return fmt.Sprintf("%s holds %s, not %s", head, plural(len(t.msgs), "message"), short(want))
		}
		return fmt.Sprintf("%s holds %s of it, not %s", head, list(ids), short(want))
	case len(ids) == 0:
		return fmt.Sprintf("%s holds none of it (%s in all)", head, plural(len(t.msgs), "message"))
	case len(ids) >= 2:
		return fmt.Sprintf("%s holds all of %s", head, list(ids))
	}
	return fmt.Sprintf("%s holds %s", head, ids[0])
}

// groupEvidence names a group's messages and adds them and the transcript
// that holds them to ev.
func (c *checker) groupEvidence(g *group, ev *evs) (ids []string, t *transcript) {
	for _, m := range g.msgs {
		ids = append(ids, short(m.id))
		ev.add(m.seq)
	}
	t = c.final[g.session]
	ev.add(t.seq)
	return ids, t
}
