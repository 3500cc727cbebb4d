package client_test

import (
	"fmt"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/traces"
)

// promptTimer is the timer the Client set to wait for the answer to the
// prompt o sent: Timeout, doubled for each earlier attempt of it that timed
// out, up to eight times Timeout.
func (h *harness) promptTimer(o outs) int {
	h.t.Helper()
	for _, tm := range o.timers {
		for d := timeout; d <= 8*timeout; d *= 2 {
			if tm.After == d {
				return tm.ID
			}
		}
	}
	h.t.Fatalf("no prompt timeout among %+v", o.timers)
	return 0
}

// A session's oldest Window pending prompts go out; what the user types
// beyond them waits in the Client and goes out, oldest first, as answers
// make room, and after a reconnect only the window is written again.
func TestWindowHoldsBackWhatTheUserTypesBeyondIt(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.ready()
	var sent []sent
	for i := range client.DefaultWindow + 2 {
		o := h.submit(fmt.Sprintf("s%d", i+1), fmt.Sprintf("text %d", i+1), 0)
		if i < client.DefaultWindow {
			sent = append(sent, onlyPrompt(t, o))
		} else if len(o.sends) != 0 {
			t.Fatalf("submission %d beyond the window of %d sent %v", i+1, client.DefaultWindow, o.methods())
		}
	}
	// The second answer makes room for one: the first of those held back.
	o := h.receive(acp.Result(sent[1].msg.ID, acp.PromptResult{MessageID: "m2"}))
	if _, text, _, _ := promptOf(t, onlyPrompt(t, o)); text != fmt.Sprintf("text %d", client.DefaultWindow+1) {
		t.Fatalf("after an answer the Client sent %q, want the oldest held back", text)
	}
	// A reconnect writes the window again, not every pending prompt.
	h.take(h.c.Disconnected(h.conn))
	o = h.handshake("conn-2")
	o = h.receive(acp.Result(o.sends[0].msg.ID, struct{}{}))
	if n := len(o.sends); n != client.DefaultWindow {
		t.Fatalf("after resuming the Client sent %d prompts (%v), want its window of %d", n, o.methods(), client.DefaultWindow)
	}
	for i, s := range o.sends {
		want := []int{1, 3, 4, 5}[i]
		if _, text, _, _ := promptOf(t, s); text != fmt.Sprintf("text %d", want) {
			t.Errorf("resent prompt %d is %q, want text %d", i, text, want)
		}
	}
}

// A prompt that is never answered on a live connection is resent with the
// wait doubling up to eight timeouts, and after PromptTimeouts of them the
// user is told the outcome is unknown: a bounded number of attempts, and the
// truth (the Agent may hold it still).
func TestKeyedClientGivesUpOnAPromptNeverAnswered(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.ready()
	o := h.submit("s1", "hi", 0)
	onlyPrompt(t, o)
	var waits []string
	for range client.DefaultPromptTimeouts {
		if len(o.timers) != 1 {
			t.Fatalf("after %d timeouts: timers %+v, want one", len(waits), o.timers)
		}
		waits = append(waits, o.timers[0].After.String())
		o = h.fire(o.timers[0].ID)
		if len(o.outcomes) != 0 {
			break
		}
		onlyPrompt(t, o)
	}
	if len(waits) != client.DefaultPromptTimeouts {
		t.Fatalf("gave up after %d timeouts, want %d", len(waits), client.DefaultPromptTimeouts)
	}
	if got := fmt.Sprint(waits[:6]); got != "[250ms 500ms 1s 2s 2s 2s]" {
		t.Errorf("waits %s, want doubling from the timeout up to 8 × it", got)
	}
	if len(o.sends) != 0 || len(o.outcomes) != 1 || o.outcomes[0].Outcome != traces.OutcomeUnknown {
		t.Fatalf("after %d timeouts: sends %v, outcomes %+v; want no resend and the user told unknown", client.DefaultPromptTimeouts, o.methods(), o.outcomes)
	}
}
