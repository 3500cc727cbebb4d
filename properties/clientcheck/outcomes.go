package clientcheck

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/properties"
)

// toldOf is every outcome told per submission, in the order told: the
// user saw each one, so each is judged, not only the last. Telling the
// same outcome again (an adapter restarted before it forgot the input)
// adds nothing.
func toldOf(h History) map[string][]Told {
	out := map[string][]Told{}
	for _, t := range h.Told {
		seen := false
		for _, u := range out[t.ID] {
			seen = seen || (u.Outcome == t.Outcome && u.MessageID == t.MessageID)
		}
		if !seen {
			out[t.ID] = append(out[t.ID], t)
		}
	}
	return out
}

// firstOf is the first outcome of the kind told, and whether there is one.
func firstOf(ts []Told, outcome string) (Told, bool) {
	for _, t := range ts {
		if t.Outcome == outcome {
			return t, true
		}
	}
	return Told{}, false
}

// judgeOutcomes holds what the user was told against the final transcript,
// text by text: a text submitted n times may be in it at most n times, and
// each submission told inserted(M) must find M holding its text. A
// submission told failed at any point whose message is in the transcript
// is a phantom, whatever it was told after.
func judgeOutcomes(h History, attempts []attempt) []Anomaly {
	told := toldOf(h)
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
				t, times(len(subs)), times(len(msgs)), messages(msgs), toldAll(subs, last)), Cite: duplicateCause(t, len(subs), attempts)})
		}
		matched, unknown, silent := 0, 0, []Submission{}
		var failed []Submission
		for _, s := range subs {
			fail, everFailed := firstOf(told[s.ID], Failed)
			var inserted []Told
			for _, o := range told[s.ID] {
				if o.Outcome == Inserted {
					inserted = append(inserted, o)
				}
			}
			var onError *Anomaly
			if len(inserted) > 0 && len(msgs) == 0 {
				onError = insertedOnError(s, inserted[0], attempts)
			}
			switch {
			case len(told[s.ID]) == 0:
				silent = append(silent, s)
			case onError != nil:
				out = append(out, *onError)
			case len(inserted) > 0 && inserted[0].MessageID == "":
				// ACP v1: the answer names no message, so the text is
				// all there is: each submission of it told inserted
				// takes one of its messages, in order.
				took := matched < len(msgs)
				if took {
					matched++
				} else {
					out = append(out, Anomaly{Kind: properties.Lost, Sub: s.ID, Explanation: fmt.Sprintf(
						"%s (%q) was told inserted (adapter line %d; in ACP v1 its answer names no message), and the final transcript holds %s of its text for %s told so",
						s.ID, t, inserted[0].Line, times(len(msgs)), times(matched+1))})
				}
				if everFailed && took {
					out = append(out, phantom(h, s, attempts, Anomaly{Kind: properties.Phantom, Sub: s.ID, Explanation: fmt.Sprintf(
						"%s (%q) was told failed (%s, adapter line %d) and inserted (adapter line %d): the user saw it fail, yet the final transcript holds it",
						s.ID, t, clip(fail.Error), fail.Line, inserted[0].Line)}))
				}
			case len(inserted) > 0:
				in := false
				for i, o := range inserted {
					ok, a := judgeInserted(s, t, o, i, inserted, byID, msgs, toldID)
					in = in || ok
					if a != nil {
						out = append(out, *a)
					}
				}
				if in {
					matched++
				}
				if in && everFailed {
					out = append(out, phantom(h, s, attempts, Anomaly{Kind: properties.Phantom, Sub: s.ID, Explanation: fmt.Sprintf(
						"%s (%q) was told failed (%s, adapter line %d) and inserted as %s (adapter line %d): the user saw it fail, yet the final transcript holds it",
						s.ID, t, clip(fail.Error), fail.Line, short(inserted[0].MessageID), inserted[0].Line)}))
				}
			case everFailed:
				failed = append(failed, s)
			default:
				unknown++
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
			fail, _ := firstOf(told[s.ID], Failed)
			after := ""
			if l := last[s.ID]; l.Outcome != Failed {
				after = fmt.Sprintf(", then %s (adapter line %d)", l.Outcome, l.Line)
			}
			out = append(out, phantom(h, s, attempts, Anomaly{Kind: properties.Phantom, Sub: s.ID, Explanation: fmt.Sprintf(
				"%s (%q) was told failed (%s, adapter line %d)%s, yet the final transcript holds it: %s", s.ID, t, clip(fail.Error), fail.Line, after, messages(msgs))}))
		}
	}
	return out
}

// phantom is a, the phantom of s: a failure the Client told for the user's
// cancel that came too late cites the cancel's rule.
func phantom(h History, s Submission, attempts []attempt, a Anomaly) Anomaly {
	if note := lateCancel(h, s, attempts); note != "" {
		a.Explanation += note
		a.Cite = citeLateCancel
	}
	return a
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
		case t.Outcome == Inserted && t.MessageID == "":
			parts[i] = s.ID + ": inserted" // ACP v1: no message named
		case t.Outcome == Inserted:
			parts[i] = s.ID + ": inserted " + short(t.MessageID)
		default:
			parts[i] = s.ID + ": " + t.Outcome
		}
	}
	return strings.Join(parts, ", ")
}

// judgeInserted judges the i-th distinct inserted(M) told for s, of text
// t: whether it holds (M is s's message), or the anomaly it is.
func judgeInserted(s Submission, t string, o Told, i int, inserted []Told, byID map[string]Message, msgs []Message, toldID map[string]string) (bool, *Anomaly) {
	wrong := func(format string, args ...any) (bool, *Anomaly) {
		return false, &Anomaly{Kind: properties.WrongID, Sub: s.ID, Explanation: fmt.Sprintf(format, args...)}
	}
	if first, dup := toldID[o.MessageID]; dup && first != s.ID {
		return wrong("%s (%q) was told inserted as %s, the messageId %s was told already", s.ID, t, short(o.MessageID), first)
	}
	toldID[o.MessageID] = s.ID
	m, in := byID[o.MessageID]
	switch {
	case in && m.Text == t && i > 0:
		return wrong("%s (%q) was told inserted as %s (adapter line %d), then as %s (adapter line %d): one submission, two messages",
			s.ID, t, short(inserted[0].MessageID), inserted[0].Line, short(o.MessageID), o.Line)
	case in && m.Text == t:
		return true, nil
	case in:
		return wrong("%s (%q) was told inserted as %s, but that message's text is %q", s.ID, t, short(o.MessageID), m.Text)
	case len(msgs) == 0:
		return false, &Anomaly{Kind: properties.Lost, Sub: s.ID, Explanation: fmt.Sprintf(
			"%s (%q) was told inserted as %s (adapter line %d), and no message of the final transcript holds its text", s.ID, t, short(o.MessageID), o.Line)}
	default:
		return wrong("%s (%q) was told inserted as %s, which is not in the final transcript; its text is there as %s", s.ID, t, short(o.MessageID), messages(msgs))
	}
}

// Causes of a duplicate, by the keys its text's attempts carried: the
// Agent behind check-client honours keys, so the cause is most often the
// Client's, and the report names that rule rather than the Agent's.
const (
	duplicateUnkeyed = "The Client retries, and the first message was inserted. The Agent now has two user messages and does the work twice (this text was sent more often than submitted, never with an idempotencyKey)"
	duplicateNewKeys = "It sends the same key on every attempt, including after reconnecting or restarting (the attempts of this text carried more keys than the user submitted it)"
)

// duplicateCause is the RFD sentence a duplicate of text, submitted subs
// times, breaks, read from its attempts that were not refused (counted as
// judgeKeys counts them): none was keyed, and some submission went out more
// than once; they carried more keys than it has submissions; more went out
// without a key than the submissions with none may (each once); else "",
// the kind's own (Rules: the Agent inserted more than it was sent).
func duplicateCause(text string, subs int, attempts []attempt) string {
	keys := map[string]bool{}
	sent, unkeyed := 0, 0
	for _, a := range attempts {
		if a.text != text || a.refused() { // a refused attempt inserted nothing and left its key unused
			continue
		}
		sent++
		if a.keyed() {
			keys[a.keyString()] = true
		} else {
			unkeyed++
		}
	}
	switch {
	case len(keys) == 0 && sent > subs:
		return duplicateUnkeyed
	case len(keys) > subs:
		return duplicateNewKeys
	case len(keys) > 0 && unkeyed > subs-len(keys):
		return Rules[UnkeyedResend]
	}
	return ""
}
