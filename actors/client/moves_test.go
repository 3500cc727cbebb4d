package client_test

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/traces"
)

// The keyed Client's keys cover the legal space: each shape at its exact
// length, in code points, whatever it takes in bytes or UTF-16 units, and
// every one a key the RFD's validation accepts.
func TestKeyShapes(t *testing.T) {
	for _, tc := range []struct {
		draw                   int
		codePoints, bytes, u16 int
	}{
		{0, 1, 0, 0}, // one code point, of whichever width the draw lands on
		{1, 255, 255, 255},
		{2, 255, 510, 255},
		{3, 255, 1020, 510},
		{4, 36, 36, 36}, // the UUID (here the harness's "key-1")
	} {
		h := newHarness(t, policy(t, "keyed"), 1)
		h.keys = 0
		h.draws = map[string]int{"key-form": tc.draw, "key-char": 300}
		h.ready()
		_, _, key, keyed := promptOf(t, onlyPrompt(t, h.submit("a", "text", 0)))
		if !keyed {
			t.Fatalf("draw %d: no key", tc.draw)
		}
		n, b, u := utf8.RuneCountInString(key), len(key), len(utf16.Encode([]rune(key)))
		if tc.draw == 4 {
			if key != "key-1" {
				t.Errorf("draw 4: key %q, want the UUID the host gave", key)
			}
			continue
		}
		if n != tc.codePoints || tc.bytes != 0 && (b != tc.bytes || u != tc.u16) {
			t.Errorf("draw %d: key of %d code points, %d bytes, %d UTF-16 units; want %d, %d, %d", tc.draw, n, b, u, tc.codePoints, tc.bytes, tc.u16)
		}
	}
}

// One-code-point keys come from a small set: the Client never makes one
// twice in a session (a new key for a new submission), and falls back to
// the UUID when the draw lands on used ones only.
func TestOneCodePointKeysStayUniqueInASession(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.draws = map[string]int{"key-form": 0, "key-char": 0}
	h.ready()
	seen := map[string]bool{}
	for i := range 20 {
		p := onlyPrompt(t, h.submit(string(rune('a'+i)), "text", 0))
		_, _, key, _ := promptOf(t, p)
		// Answered, so the next one goes out at once (the Client's window).
		h.receive(acp.Result(p.msg.ID, acp.PromptResult{MessageID: "m-" + string(rune('a'+i))}))
		if seen[key] {
			t.Fatalf("submission %d: key %q made twice in one session", i, key)
		}
		seen[key] = true
	}
	uuids := 0
	for k := range seen {
		if strings.HasPrefix(k, "key-") {
			uuids++
		}
	}
	if uuids != 4 {
		t.Errorf("%d fallbacks to the UUID, want 4 (the draw probes 16 code points)", uuids)
	}
}

// An unkeyed Client sometimes says "idempotencyKey": null, on every attempt
// of the submission and after a restart: omitted and null both mean no key.
func TestUnkeyedSometimesSendsNullKey(t *testing.T) {
	h := newHarness(t, policy(t, "naive"), 1)
	h.draws = map[string]int{"key-form": 0}
	h.ready()
	o := h.submit("a", "text", 0)
	first := onlyPrompt(t, o)
	if p := params[acp.PromptParams](t, first); string(p.IdempotencyKey) != "null" {
		t.Fatalf("key field %q, want null", p.IdempotencyKey)
	}
	h2, _ := h.restart(harnessConfig(h.pol, 1), nil)
	h2.c.Start()
	o = h2.handshake("conn-2")
	o = h2.receive(acp.Result(o.sends[0].msg.ID, nil))
	if p := params[acp.PromptParams](t, onlyPrompt(t, o)); string(p.IdempotencyKey) != "null" {
		t.Errorf("after a restart the key field is %q, want null", p.IdempotencyKey)
	}
	h.draws = nil
	if p := params[acp.PromptParams](t, onlyPrompt(t, h.submit("b", "text", 0))); p.IdempotencyKey != nil {
		t.Errorf("the ordinary draw sends key field %q, want it omitted", p.IdempotencyKey)
	}
}

// twoAttempts submits a prompt and lets it time out once: two attempts of
// one key are unanswered on the connection.
func twoAttempts(t *testing.T, h *harness) (older, newer sent) {
	t.Helper()
	h.ready()
	o := h.submit("sub-1", "hi", 0)
	older = onlyPrompt(t, o)
	newer = onlyPrompt(t, h.fire(h.promptTimer(o)))
	return older, newer
}

func cancelled(id acp.ID) []byte {
	return acp.ErrorResponse(id, acp.Errorf(acp.CodeRequestCancelled, "request cancelled"))
}

func onlyCancel(t *testing.T, o outs) acp.ID {
	t.Helper()
	if len(o.notes) != 1 || o.notes[0].Method != acp.MethodCancelRequest {
		t.Fatalf("want one $/cancel_request, got %+v", o.all)
	}
	var p acp.CancelRequestParams
	if err := acp.DecodeParams(o.notes[0].Params, &p); err != nil {
		t.Fatal(err)
	}
	return p.RequestID
}

// The user cancels one of two pending attempts of a key. A Client that
// relies on the RFD ("the Agent then answers every pending request for that
// key with -32800") sends no second cancel and waits for the other
// attempt's answer; the ordinary Client cancels that one too.
func TestCancelOfOneAttemptReliesOnTheAgent(t *testing.T) {
	for _, rely := range []bool{true, false} {
		h := newHarness(t, policy(t, "keyed"), 1)
		h.draws = map[string]int{}
		if rely {
			h.draws["cancel-each-attempt"] = 0
		}
		older, newer := twoAttempts(t, h)
		if got := onlyCancel(t, h.take(h.c.Cancel(0, true))); got != newer.msg.ID {
			t.Fatalf("the cancel names %s, want the newest attempt %s", got, newer.msg.ID)
		}
		o := h.receive(cancelled(newer.msg.ID))
		if len(o.outcomes) != 0 {
			t.Fatalf("rely=%v: outcome before the other attempt's answer: %+v", rely, o.all)
		}
		switch {
		case rely && len(o.notes) != 0:
			t.Fatalf("a Client relying on the Agent cancelled again: %+v", o.notes)
		case !rely && onlyCancel(t, o) != older.msg.ID:
			t.Fatalf("the ordinary Client's second cancel names %v, want %s", o.notes, older.msg.ID)
		}
		o = h.receive(cancelled(older.msg.ID))
		if len(o.outcomes) != 1 || o.outcomes[0].Outcome != traces.OutcomeFailed {
			t.Errorf("rely=%v: after both -32800: %+v, want failed", rely, o.all)
		}
	}
}

// A user who waits for a stalled prompt cancels it as the Client sends it
// again, naming the new attempt while the older is still held; a wait that
// meets no stall ends in the ordinary cancel of the oldest pending prompt.
func TestCancelWaitsForAStalledPrompt(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.draws = map[string]int{"cancel-when-stalled": 0}
	h.ready()
	o := h.submit("sub-1", "hi", 0)
	onlyPrompt(t, o)
	w := h.take(h.c.Cancel(0, true))
	if len(w.notes) != 0 || len(w.timers) != 1 {
		t.Fatalf("a waiting user's cancel: %+v, want only a timer", w.all)
	}
	o = h.fire(h.promptTimer(o))
	retry := onlyPrompt(t, o)
	if got := onlyCancel(t, o); got != retry.msg.ID {
		t.Errorf("the stall's cancel names %s, want the new attempt %s", got, retry.msg.ID)
	}
	if o := h.fire(w.timers[0].ID); len(o.all) != 0 {
		t.Errorf("the wait's end after a stall took the cancel: %+v", o.all)
	}

	h = newHarness(t, policy(t, "keyed"), 1)
	h.draws = map[string]int{"cancel-when-stalled": 0}
	h.ready()
	first := onlyPrompt(t, h.submit("sub-1", "hi", 0))
	w = h.take(h.c.Cancel(0, true))
	if got := onlyCancel(t, h.fire(w.timers[0].ID)); got != first.msg.ID {
		t.Errorf("the wait's end cancels %s, want the oldest pending prompt's %s", got, first.msg.ID)
	}
}

// After its cancel's -32800 the user sends the input again: the same
// submission, the same key ("Errors leave the key unused ... the Client can
// send the same prompt with the same key again"), and one outcome at the end.
func TestSendsACancelledPromptAgainWithItsKey(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.draws = map[string]int{"send-again": 0}
	h.ready()
	o := h.submit("sub-1", "hi", 0)
	first := onlyPrompt(t, o)
	_, _, key, _ := promptOf(t, first)
	o = h.receive(cancelled(first.msg.ID))
	if len(o.outcomes) != 0 || len(o.timers) != 1 || o.timers[0].After != backoff {
		t.Fatalf("after -32800: %+v, want only a timer of %v", o.all, backoff)
	}
	again := onlyPrompt(t, h.fire(o.timers[0].ID))
	if _, text, k, _ := promptOf(t, again); k != key || text != "hi" {
		t.Errorf("sent again with key %q, text %q; want %q, \"hi\"", k, text, key)
	}
	o = h.receive(acp.Result(again.msg.ID, acp.PromptResult{MessageID: "m"}))
	want := []client.Output{{Kind: client.OutOutcome, Sub: "sub-1", Outcome: traces.OutcomeInserted, MessageID: "m"}}
	if !reflect.DeepEqual(o.outcomes, want) {
		t.Errorf("answer: %+v, want %+v", o.all, want)
	}
}
