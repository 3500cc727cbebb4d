// Package clientcheck judges a real ACP Client from outside it, as acpsim
// check-client sees it: what the user submitted and was told (through the
// Client's adapter), the frames the Client sent and received (recorded by a
// tap in front of the Agent), and the Agent's final transcript. The
// simulator's checker (package properties) judges model Clients whose
// every step it knows; a real Client is a black box, so this judge asks
// only what its wire and its user can show.
package clientcheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/properties"
)

// Submission is one thing the user typed, in the order acpsim fed them. Two
// submissions may share a text: the user sent it again on purpose. The JSON
// names are those of check-client's record of a kept seed (NAME.client.json).
type Submission struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Outcomes the adapter tells its user.
const (
	Inserted = "inserted"
	Failed   = "failed"
	Unknown  = "unknown"
)

// Told is one outcome line of the adapter; the last one for a submission is
// what the user was left with.
type Told struct {
	ID        string `json:"id"`
	Outcome   string `json:"outcome"`
	MessageID string `json:"messageId,omitempty"`
	Error     string `json:"error,omitempty"`
	Line      int    `json:"line"` // the adapter's stdout line
}

// Frame is one frame on the wire between the Client and the Agent. Conn
// numbers the Agent processes (each one connection on stdio) from 1, in
// the order they started; Seq is its event in the trace.
type Frame struct {
	Conn  int
	Dir   string // "c2a" or "a2c", as traces.ClientToAgent/AgentToClient
	Bytes []byte
	Seq   int64
}

// Message is a user message of the Agent's final transcript.
type Message struct {
	Session string `json:"session"`
	ID      string `json:"id"`
	Text    string `json:"text"`
}

// History is everything one seed shows.
type History struct {
	Subs       []Submission
	Told       []Told
	Frames     []Frame
	Transcript []Message
	// Cancelled names the submissions the user cancelled.
	Cancelled []string
}

// Key discipline kinds, beyond the outcome kinds the simulator's checker
// shares (properties.Duplicate, Lost, Phantom, Unresolved, WrongID).
const (
	KeyChanged         = "key-changed"
	KeyReused          = "key-reused"
	KeyMalformed       = "key-malformed"
	UnkeyedResend      = "unkeyed-resend"
	ResendBeforeResume = "resend-before-resume"
)

// Rules cites the RFD (rfd-prompt-idempotency) for each kind this judge
// reports: a report names the rule a Client broke, not only the symptom.
var Rules = map[string]string{
	properties.Duplicate:  "The Agent inserts the user message at most once for that key (a submission's text is in the transcript more often than the user sent it)",
	properties.Lost:       "never silently lost: the user was told inserted, or nothing, and the message is not in the transcript",
	properties.Phantom:    "An error response to session/prompt already means the message was not inserted (the user was told failed, yet it is in the transcript)",
	properties.Unresolved: "The Client stores a key with each pending prompt. After a dropped connection or a crash, it resumes the session and sends the pending prompts again (the user was never told an outcome)",
	properties.WrongID:    "answers retries with the messageId of the original (the user was told a messageId that is not this submission's message)",
	KeyChanged:            "It sends the same key on every attempt, including after reconnecting or restarting",
	KeyReused:             "It uses a new key for a new submission, including when the user sends the same text again on purpose",
	KeyMalformed:          "When present, it is an opaque, case-sensitive string of 1 to 255 characters",
	UnkeyedResend:         "session/prompt is the keyed method: safe to send again with a key; sent again without one it may be inserted twice",
	ResendBeforeResume:    "initialize and session/resume, then sends the prompt again (a prompt on a new connection before its session was set up on it)",
}

// Kinds lists the kinds this judge reports, in report order.
var Kinds = []string{properties.Duplicate, properties.Lost, properties.Phantom, properties.Unresolved, properties.WrongID,
	KeyChanged, KeyReused, KeyMalformed, UnkeyedResend, ResendBeforeResume}

// Anomaly is one broken rule.
type Anomaly struct {
	Kind        string
	Sub         string // the submission, "" when it concerns several
	Explanation string
	// Cite is the RFD sentence when the wire shows a sharper one than the
	// kind's (Rules): an error answer the Client misread, or what caused a
	// duplicate (its attempts went out without a key, or under new keys).
	Cite string
}

// Rule is the RFD sentence the anomaly breaks.
func (a Anomaly) Rule() string {
	if a.Cite != "" {
		return a.Cite
	}
	return Rules[a.Kind]
}

// attempt is one session/prompt request the Client sent, and the answer it
// got, if any reached it.
type attempt struct {
	conn    int
	id      acp.ID
	seq     int64
	session string
	text    string
	key     json.RawMessage // as sent; nil when absent
	// answered is set once a response reached the Client; err is its
	// error (nil: a success). cancelled is set when the Client sent
	// $/cancel_request for it.
	answered, cancelled bool
	err                 *acp.Error
}

// refused reports whether the Agent answered the attempt with an error:
// it inserted nothing.
func (a attempt) refused() bool { return a.answered && a.err != nil }

func (a attempt) keyed() bool { return len(a.key) > 0 && string(a.key) != "null" }

// keyString is the key as the Agent compares it: the string it decodes to,
// or the raw JSON of a non-string.
func (a attempt) keyString() string {
	var s string
	if json.Unmarshal(a.key, &s) == nil {
		return s
	}
	return string(a.key)
}

// Check judges a history: the anomalies in Kinds order, then by submission.
func Check(h History) []Anomaly {
	attempts, setupGaps := readFrames(h.Frames)
	var out []Anomaly
	out = append(out, judgeOutcomes(h, attempts)...)
	if !ReadSetup(h.Frames).Peer.V1 { // v1 has no key to judge
		out = append(out, judgeKeys(h.Subs, attempts)...)
	}
	out = append(out, setupGaps...)
	slices.SortStableFunc(out, func(a, b Anomaly) int {
		return slices.Index(Kinds, a.Kind) - slices.Index(Kinds, b.Kind)
	})
	return out
}

// readFrames collects the prompts the Client sent and reports each prompt
// on a connection where its session was not set up first: by session/new
// (its response names the session), session/resume or session/load.
func readFrames(frames []Frame) ([]attempt, []Anomaly) {
	var out []attempt
	var gaps []Anomaly
	ready := map[int]map[string]bool{}   // conn → sessions set up on it
	newReqs := map[int]map[acp.ID]bool{} // conn → ids of its session/new requests
	asked := map[int]map[acp.ID]int{}    // conn → prompt request id → its attempt, until answered
	prompts := map[int]map[acp.ID]int{}  // conn → prompt request id → its last attempt
	for _, f := range frames {
		if ready[f.Conn] == nil {
			ready[f.Conn], newReqs[f.Conn], asked[f.Conn], prompts[f.Conn] = map[string]bool{}, map[acp.ID]bool{}, map[acp.ID]int{}, map[acp.ID]int{}
		}
		for _, e := range acp.ParseLine(f.Bytes).Entries {
			if e.Err != nil {
				continue
			}
			m := e.Msg
			if i, ok := asked[f.Conn][m.ID]; ok && f.Dir == "a2c" && m.Kind() == acp.KindResponse {
				delete(asked[f.Conn], m.ID)
				out[i].answered, out[i].err = true, m.Error
			}
			switch {
			case f.Dir == "a2c" && m.Kind() == acp.KindResponse && newReqs[f.Conn][m.ID]:
				var r struct {
					SessionID string `json:"sessionId"`
				}
				if json.Unmarshal(m.Result, &r) == nil {
					ready[f.Conn][r.SessionID] = true
				}
			case f.Dir == "c2a" && m.Method == acp.MethodCancelRequest:
				var p acp.CancelRequestParams
				if json.Unmarshal(m.Params, &p) == nil {
					// Answered or not: a cancel that crossed the answer is
					// still the Client's.
					if i, ok := prompts[f.Conn][p.RequestID]; ok {
						out[i].cancelled = true
					}
				}
			case f.Dir != "c2a" || m.Kind() != acp.KindRequest:
			case m.Method == acp.MethodSessionNew:
				newReqs[f.Conn][m.ID] = true
			case m.Method == acp.MethodSessionResume || m.Method == "session/load":
				var p struct {
					SessionID string `json:"sessionId"`
				}
				if json.Unmarshal(m.Params, &p) == nil {
					ready[f.Conn][p.SessionID] = true
				}
			case m.Method == acp.MethodSessionPrompt:
				var p acp.PromptParams
				if acp.DecodeParams(m.Params, &p) != nil {
					continue
				}
				a := attempt{conn: f.Conn, id: m.ID, seq: f.Seq, session: p.SessionID, text: promptText(p.Prompt), key: p.IdempotencyKey}
				asked[f.Conn][m.ID], prompts[f.Conn][m.ID] = len(out), len(out)
				out = append(out, a)
				if !ready[f.Conn][a.session] {
					gaps = append(gaps, Anomaly{Kind: ResendBeforeResume, Explanation: fmt.Sprintf(
						"connection %d (Agent process %d) got session/prompt %q for session %s (event %d) before any session/resume, session/load or session/new of it on that connection",
						f.Conn, f.Conn, a.text, short(a.session), f.Seq)})
					ready[f.Conn][a.session] = true // once per connection and session
				}
			}
		}
	}
	return out, gaps
}

func promptText(blocks []acp.ContentBlock) string {
	var b strings.Builder
	for _, c := range blocks {
		b.WriteString(c.Text)
	}
	return b.String()
}

// judgeKeys checks the Client's key discipline, submission by text: the
// attempts carrying a text belong to the submissions of that text.
func judgeKeys(subs []Submission, attempts []attempt) []Anomaly {
	var out []Anomaly
	perText := map[string]int{}
	var texts []string
	for _, s := range subs {
		if perText[s.Text] == 0 {
			texts = append(texts, s.Text)
		}
		perText[s.Text]++
	}
	keyText := map[string]string{} // key → the first text it carried
	keyReusedReported := map[string]bool{}
	malformed := map[string]bool{}
	for _, a := range attempts {
		if !a.keyed() {
			continue
		}
		k := a.keyString()
		if !wellFormed(a.key) && !malformed[k] {
			malformed[k] = true
			out = append(out, Anomaly{Kind: KeyMalformed, Explanation: fmt.Sprintf("prompt %q (event %d) carries idempotencyKey %s", a.text, a.seq, clip(string(a.key)))})
		}
		if t, seen := keyText[k]; seen && t != a.text && !keyReusedReported[k] {
			keyReusedReported[k] = true
			if an := reusedAfterError(attempts, k, t, a); an != nil {
				out = append(out, *an)
				continue
			}
			out = append(out, Anomaly{Kind: KeyReused, Explanation: fmt.Sprintf("key %s was sent with %q and then with %q (event %d)", clip(k), t, a.text, a.seq)})
		} else if !seen {
			keyText[k] = a.text
		}
	}
	for _, t := range texts {
		n := perText[t]
		as := withText(attempts, t, "")
		var keys []string
		unkeyed := 0
		for _, a := range as {
			if !a.keyed() {
				unkeyed++
			} else if k := a.keyString(); !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		// Only keys the Agent may have recorded the text under count: a key
		// every attempt of which was refused names nothing.
		spent, unkeyedSpent := spentKeys(as)
		sub := subOf(subs, t)
		switch {
		case len(spent) > n:
			out = append(out, Anomaly{Kind: KeyChanged, Sub: sub, Explanation: fmt.Sprintf(
				"%q was submitted %s and sent with %d different keys (%s)", t, times(n), len(keys), clipAll(keys))})
		case n > 1 && len(keys) == 1 && unkeyed == 0 && len(as) > 1: // one attempt is one submission's
			out = append(out, Anomaly{Kind: KeyReused, Sub: "", Explanation: fmt.Sprintf(
				"%q was submitted %s, every attempt with key %s", t, times(n), clip(keys[0]))})
		}
		// Each submission of the text sent with a key leaves one fewer
		// that may go out unkeyed, once: a keyed submission resent without
		// its key is reported at that resend, whether or not its keyed
		// attempt reached the Agent. Attempts refused with an error count
		// for neither: they inserted nothing.
		if allowed := n - min(len(spent), n); unkeyedSpent > allowed {
			why := fmt.Sprintf("%q was submitted %s and sent %d times without a key", t, times(n), unkeyedSpent)
			if len(spent) > 0 {
				why = fmt.Sprintf("%q was submitted %s, sent with key %s and then again without a key (event %d): a resend of a keyed submission without its key",
					t, times(n), clipAll(spent), nthUnkeyedSpent(as, allowed))
			}
			out = append(out, Anomaly{Kind: UnkeyedResend, Sub: sub, Explanation: why})
		}
	}
	return out
}

// nthUnkeyedSpent is the event of the n-th (from 0) attempt of as sent
// without a key and not refused.
func nthUnkeyedSpent(as []attempt, n int) int64 {
	for _, a := range as {
		if a.keyed() || a.refused() {
			continue
		}
		if n == 0 {
			return a.seq
		}
		n--
	}
	return 0
}

// subOf names the submission of a text when it is the only one.
func subOf(subs []Submission, text string) string {
	id := ""
	for _, s := range subs {
		if s.Text == text {
			if id != "" {
				return ""
			}
			id = s.ID
		}
	}
	return id
}

// wellFormed is the RFD's key: a JSON string of 1 to 255 characters,
// counted as Unicode code points (acp.KeyLengthUnit).
func wellFormed(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	n := utf8.RuneCountInString(s)
	return n >= 1 && n <= 255
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

func short(s string) string {
	if len(s) > 8 {
		return s[:8] + "…"
	}
	return s
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func clipAll(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = clip(k)
	}
	return strings.Join(out, ", ")
}
