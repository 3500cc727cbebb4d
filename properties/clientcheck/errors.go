// Error answers. The reference Agent behind check-client refuses some new
// prompts before it inserts them, and the RFD says what such an answer
// means: "An error response to session/prompt already means the message
// was not inserted. The Agent records nothing, and the Client can send the
// same prompt with the same key again." A Client misreads one in ways its
// wire and its user show: it tells the user inserted (lost), or gives the
// key it left unused to its next submission, which the Agent then inserts
// under it (key-reused). Sending the refused text again under a new key is
// no anomaly: nothing was recorded under the old one, so no attempt of it
// can be inserted a second time.

package clientcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/properties"
)

// RFD sentences that the judgments of an error answer cite, sharper than
// their kinds' own.
const (
	citeNotInserted = "An error response to session/prompt already means the message was not inserted"
	citeOtherPrompt = "Clients MUST NOT send the same key with a different prompt (errors leave the key unused: the Agent inserts the next prompt under it)"
	citeLateCancel  = "$/cancel_request for any pending request with the key withdraws a prompt that is not inserted yet (the user was told failed, yet it is in the transcript)"
)

// lateCancel is the note a phantom of a submission the user cancelled
// gets: the failure told was the cancel's, but the message had been
// inserted before any cancel could withdraw it. The wire says more when the
// Client's $/cancel_request named an attempt the Agent answered with no
// error; a cancel sent to an Agent that was dying left no frame. "" when the
// user did not cancel it.
func lateCancel(h History, s Submission, attempts []attempt) string {
	if !slices.Contains(h.Cancelled, s.ID) {
		return ""
	}
	for _, a := range withText(attempts, s.Text, "") {
		if a.cancelled && (!a.answered || a.err == nil) {
			return "; the user cancelled it and the Client sent $/cancel_request for an attempt the Agent answered with no error: the cancel came after the insertion and withdrew nothing"
		}
	}
	return "; the user cancelled it, but the message had been inserted before a cancel could withdraw it"
}

// ErrorAnswers counts the Client's prompt attempts that were answered with
// an error.
func ErrorAnswers(frames []Frame) int {
	attempts, _ := readFrames(frames)
	n := 0
	for _, a := range attempts {
		if a.refused() {
			n++
		}
	}
	return n
}

// refused is every attempt in as answered, each with an error: nothing of
// them was inserted and their keys stayed unused. It says which errors, ""
// when some attempt was not refused (or there is none).
func refused(as []attempt) string {
	var codes []string
	for _, a := range as {
		if !a.answered || a.err == nil {
			return ""
		}
		if c := fmt.Sprintf("%d %s", a.err.Code, clip(a.err.Message)); !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	return strings.Join(codes, "; ")
}

// withText is the attempts carrying text, and key when it is not "".
func withText(attempts []attempt, text, key string) []attempt {
	var out []attempt
	for _, a := range attempts {
		if a.text == text && (key == "" || a.keyed() && a.keyString() == key) {
			out = append(out, a)
		}
	}
	return out
}

// insertedOnError is the anomaly of a submission told inserted(o) although
// every attempt of its text was refused, nil when some attempt was not.
func insertedOnError(s Submission, o Told, attempts []attempt) *Anomaly {
	as := withText(attempts, s.Text, "")
	why := refused(as)
	if why == "" {
		return nil
	}
	return &Anomaly{Kind: properties.Lost, Sub: s.ID, Cite: citeNotInserted, Explanation: fmt.Sprintf(
		"%s (%q) was told inserted as %s (adapter line %d), but the Agent answered %s with an error (%s): the message was not inserted, and the final transcript does not hold it",
		s.ID, s.Text, short(o.MessageID), o.Line, eachAttempt(len(as)), why)}
}

// reusedAfterError is the anomaly of key k, first sent with text first and
// refused every time, then sent with a.text: nil when an attempt of first
// under k was not refused.
func reusedAfterError(attempts []attempt, k, first string, a attempt) *Anomaly {
	why := refused(withText(attempts, first, k))
	if why == "" {
		return nil
	}
	return &Anomaly{Kind: KeyReused, Cite: citeOtherPrompt, Explanation: fmt.Sprintf(
		"key %s was sent with %q, which the Agent refused (%s), so the key stayed unused; then the Client sent it with %q (event %d), a new submission under the failed one's key",
		clip(k), first, why, a.text, a.seq)}
}

// spentKeys is the keys of a text's attempts under which the Agent may
// have recorded it: an attempt with the key went unanswered or was
// answered with success. A key refused every time names nothing, so a new
// key after it is no second insertion; unkeyedSpent counts the same way the
// unkeyed attempts that were not refused.
func spentKeys(as []attempt) (keys []string, unkeyedSpent int) {
	for _, a := range as {
		if a.refused() {
			continue
		}
		if !a.keyed() {
			unkeyedSpent++
		} else if k := a.keyString(); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, unkeyedSpent
}

func eachAttempt(n int) string {
	if n == 1 {
		return "its one attempt"
	}
	return fmt.Sprintf("each of its %d attempts", n)
}
