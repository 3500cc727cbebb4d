// Package users is the scenario of a run: what the model users type, to
// which session, and when they cancel, close or fork. It is drawn up front
// from the run's id stream, so the simulator and acpsim check (against a real
// Agent) play the same users for the same seed.
package users

import (
	"fmt"
	"time"

	"github.com/acpsim/acpsim/sim"
)

// Action is what a user does.
type Action uint8

// Actions.
const (
	Submit Action = iota
	Cancel        // Alt: by $/cancel_request, else session/cancel
	Close
	Fork
)

// Event is one thing one user does at time At.
type Event struct {
	Client int // index of the Client the user works in
	At     time.Duration
	Action Action
	Sub    string // Submit: the submission's id ("s1", …); an action: "c1:cancel#0"
	Text   string // Submit: what the user typed
	Sess   int    // the session (index) it concerns
	Alt    bool
}

// Spec sizes a scenario.
type Spec struct {
	Clients  int
	Prompts  int // submissions per Client
	Sessions int // per Client at the start
	// Forks, Cancels and Closes are how often each user does that;
	// CancelBy, if set, is how every cancel is sent (CancelByRequest or
	// CancelBySession; "": either, drawn per cancel).
	Forks, Cancels, Closes int
	CancelBy               string
	// MaxGap is the longest pause between two submissions of one user.
	MaxGap time.Duration
	// DistinctTexts: a user who sends a text again on purpose adds
	// "(again N)" to it, so that no two submissions of a Client share a
	// text. ACP v1 names no message, so its checker tells submissions
	// apart by text alone; the draws are the same either way.
	DistinctTexts bool
}

// Texts are what the model users type. A user sometimes sends the same text
// again on purpose: that is a new submission and must be inserted again.
var Texts = []string{
	"fix the failing test", "explain this function", "add a unit test", "rename the variable",
	"why does this panic?", "update the changelog", "run the linter", "make it faster",
	"write the docs", "undo that", "continue", "split this file",
	"/status", "/cost", // commands: an Agent with a live-only prefix "/" handles them locally
}

// Draw draws every user's events from ids, Client by Client: first its
// submissions, then its other actions over the time it is typing. The order
// of draws is part of the seed's meaning; change it and old seeds change.
func Draw(ids *sim.IDs, s Spec) []Event {
	var out []Event
	sub := 0
	for c := range s.Clients {
		at := time.Duration(0)
		var mine []string
		var typed typedTexts
		again := 0
		for range s.Prompts {
			at += time.Duration(ids.IntN(int(s.MaxGap/time.Millisecond)+1)) * time.Millisecond
			ti, n := ids.IntN(len(Texts)), 0
			var text string
			if len(mine) > 0 && ids.IntN(5) == 0 {
				text = mine[ids.IntN(len(mine))] // the user sends it again on purpose
				if s.DistinctTexts {
					again++
					text = fmt.Sprintf("%s (again %d)", text, again)
				}
			} else {
				// Otherwise a new text: chance repeats would only make the
				// checker's attribution by text ambiguous, not the test harder.
				for k := 2; typed.has(ti, n); k++ {
					ti, n = ids.IntN(len(Texts)), k
				}
				text = typed.add(ti, n)
			}
			mine = append(mine, text)
			sub++
			out = append(out, Event{Client: c, At: at, Action: Submit, Sub: fmt.Sprintf("s%d", sub), Text: text,
				Sess: ids.IntN(s.Sessions + s.Forks)})
		}
		for _, a := range []struct {
			action Action
			name   string
			count  int
		}{{Cancel, "cancel", s.Cancels}, {Close, "close", s.Closes}, {Fork, "fork", s.Forks}} {
			for i := range a.count {
				when := time.Duration(ids.IntN(int(at/time.Millisecond)+1)) * time.Millisecond
				sess, alt := ids.IntN(s.Sessions+s.Forks), ids.IntN(2) == 0
				if a.action == Cancel && s.CancelBy != "" {
					alt = s.CancelBy == CancelByRequest // drawn all the same: the stream stays as it was
				}
				name := fmt.Sprintf("%s:%s#%d", ClientName(c), a.name, i)
				out = append(out, Event{Client: c, At: when, Action: a.action, Sub: name, Sess: sess, Alt: alt})
			}
		}
	}
	return out
}

// typedTexts are the new texts one user has typed: Texts[i] as it stands
// (n 0) or numbered "Texts[i] (n)". Looking one up costs the same however
// many the user typed; a scan of every earlier text made drawing a
// scenario quadratic in its prompts (issue 18). No numbered text equals
// another Texts entry or another's numbering, as no entry contains " (".
type typedTexts struct {
	numbered [][]bool // [text index][n]
}

func (t *typedTexts) has(i, n int) bool {
	return i < len(t.numbered) && n < len(t.numbered[i]) && t.numbered[i][n]
}

// add marks Texts[i] numbered n as typed and returns it as typed.
func (t *typedTexts) add(i, n int) string {
	for len(t.numbered) <= i {
		t.numbered = append(t.numbered, nil)
	}
	for len(t.numbered[i]) <= n {
		t.numbered[i] = append(t.numbered[i], false)
	}
	t.numbered[i][n] = true
	if n == 0 {
		return Texts[i]
	}
	return fmt.Sprintf("%s (%d)", Texts[i], n)
}

// ClientName is how traces name Client number i (from 0).
func ClientName(i int) string { return fmt.Sprintf("c%d", i+1) }

// Skipped reports whether skip names e: its submission or action, or its
// whole Client.
func Skipped(e Event, skip []string) bool {
	for _, s := range skip {
		if s == e.Sub || s == ClientName(e.Client) {
			return true
		}
	}
	return false
}

// Last is the time of the last submission.
func Last(evs []Event) time.Duration {
	var last time.Duration
	for _, e := range evs {
		if e.Action == Submit {
			last = max(last, e.At)
		}
	}
	return last
}
