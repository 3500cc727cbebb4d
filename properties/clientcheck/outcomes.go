package clientcheck

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/properties"
)

// judgeOutcomes holds what the user was told against the final transcript,
// text by text: a text submitted n times may be in it at most n times, and
// each submission told inserted(M) must find M holding its text.
func judgeOutcomes(h History) []Anomaly {
	last := map[string]Told{}
	for _, t := range h.Told {
		last[t.ID] = t
	}
	byID := map[string]Message{}
	perText := map[string][]Message{}
	for _, m := range h.Transcript {
		byID[m.ID] = m
		perText[m.Text] = append(perText[m.Text], m)
	}
	var texts []string
	subsOf := map[string][]Submission{}
	for _, s := range h.Subs {
		if subsOf[s.Text] == nil {
			texts = append(texts, s.Text)
		}
		subsOf[s.Text] = append(subsOf[s.Text], s)
	}
	var out []Anomaly
	toldID := map[string]string{} // messageId → the first submission told it
	for _, t := range texts {
		subs, msgs := subsOf[t], perText[t]
		if len(msgs) > len(subs) {
			out = append(out, Anomaly{Kind: properties.Duplicate, Sub: subOf(h.Subs, t), Explanation: fmt.Sprintf(
				"%q was submitted %s and is in the final transcript %s: %s; the user was told %s",
				t, times(len(subs)), times(len(msgs)), messages(msgs), toldAll(subs, last))})
		}
		matched, unknown, silent := 0, 0, []Submission{}
		var failed []Submission
		for _, s := range subs {
			told, ok := last[s.ID]
			switch {
			case !ok:
				silent = append(silent, s)
			case told.Outcome == Unknown:
				unknown++
			case told.Outcome == Failed:
				failed = append(failed, s)
			case told.Outcome == Inserted:
				m, in := byID[told.MessageID]
				if first, dup := toldID[told.MessageID]; dup && told.MessageID != "" {
					out = append(out, Anomaly{Kind: properties.WrongID, Sub: s.ID, Explanation: fmt.Sprintf(
						"%s (%q) was told inserted as %s, the messageId %s was told already", s.ID, t, short(told.MessageID), first)})
					continue
				}
				toldID[told.MessageID] = s.ID
				switch {
				case in && m.Text == t:
					matched++
				case in:
					out = append(out, Anomaly{Kind: properties.WrongID, Sub: s.ID, Explanation: fmt.Sprintf(
						"%s (%q) was told inserted as %s, but that message's text is %q", s.ID, t, short(told.MessageID), m.Text)})
				case len(msgs) == 0:
					out = append(out, Anomaly{Kind: properties.Lost, Sub: s.ID, Explanation: fmt.Sprintf(
						"%s (%q) was told inserted as %s (adapter line %d), and no message of the final transcript holds its text", s.ID, t, short(told.MessageID), told.Line)})
				default:
					out = append(out, Anomaly{Kind: properties.WrongID, Sub: s.ID, Explanation: fmt.Sprintf(
						"%s (%q) was told inserted as %s, which is not in the final transcript; its text is there as %s", s.ID, t, short(told.MessageID), messages(msgs))})
				}
			}
		}
		// Messages of the text no inserted outcome accounts for: the
		// submissions told unknown may own them, then the silent ones.
		spare := len(msgs) - matched - unknown
		for _, s := range silent {
			if spare > 0 {
				spare--
				out = append(out, Anomaly{Kind: properties.Unresolved, Sub: s.ID, Explanation: fmt.Sprintf(
					"%s (%q) is in the final transcript, but the user was never told an outcome", s.ID, t)})
				continue
			}
			out = append(out, Anomaly{Kind: properties.Lost, Sub: s.ID, Explanation: fmt.Sprintf(
				"%s (%q) is not in the final transcript and the user was never told an outcome: silently lost", s.ID, t)})
		}
		for _, s := range failed {
			if spare <= 0 {
				break
			}
			spare--
			told := last[s.ID]
			out = append(out, Anomaly{Kind: properties.Phantom, Sub: s.ID, Explanation: fmt.Sprintf(
				"%s (%q) was told failed (%s, adapter line %d), yet the final transcript holds it: %s", s.ID, t, clip(told.Error), told.Line, messages(msgs))})
		}
	}
	return out
}

func messages(ms []Message) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%s in session %s", short(m.ID), short(m.Session))
	}
	return strings.Join(parts, ", ")
}

func toldAll(subs []Submission, last map[string]Told) string {
	parts := make([]string, len(subs))
	for i, s := range subs {
		t, ok := last[s.ID]
		switch {
		case !ok:
			parts[i] = s.ID + ": nothing"
		case t.Outcome == Inserted:
			parts[i] = s.ID + ": inserted " + short(t.MessageID)
		default:
			parts[i] = s.ID + ": " + t.Outcome
		}
	}
	return strings.Join(parts, ", ")
}
