package properties

import (
	"reflect"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// A cancelled prompt's anomaly names the cancel, the request and what the
// Agent did instead of -32800; a missing answer says which cancel it owed.
func TestCancelExplanations(t *testing.T) {
	tests := []struct {
		name  string
		b     *tb
		prose []string
	}{
		{"inserted after session/cancel", heldCancel("cancel", "insert"), []string{
			"session/cancel for session 9a3f0c1e… was delivered on c1>a1#1 at 1.1ms while s1's session/prompt request 2 on c1>a1#1 (delivered at 0.8ms) was pending",
			"yet the Agent inserted it afterwards: it answered messageId M1 at 1.3ms instead of error -32800",
			"a prompt cancelled before it was inserted must not be inserted afterwards",
		}},
		{"inserted after session/close", heldCancel("close", "insert"), []string{
			"session/close request 3 for session 9a3f0c1e… was delivered on c1>a1#1 at 1.1ms while s1's session/prompt request 2",
			"it answered messageId M1 at 1.3ms instead of error -32800",
		}},
		{"inserted after $/cancel_request", heldCancel("request", "insert"), []string{
			"$/cancel_request naming request 2 was delivered on c1>a1#1 at 1.1ms while s1's session/prompt request 2 on c1>a1#1",
		}},
		{"sent at the same time, after the cancel", heldCancel("request", "raced-bad"), []string{
			"was delivered on c1>a1#1 at 1.1ms while", "it answered messageId M1 at 1.1ms instead of error -32800",
		}},
		{"another error than -32800", heldCancel("cancel", "wrong-code"), []string{
			"yet the Agent answered it with error -32603 at 1.2ms instead of error -32800: a prompt withdrawn before insertion is answered -32800",
		}},
		{"never answered after session/close", heldCancel("close", "silent"), []string{
			"s1's session/prompt request 2 on c1>a1#1 delivered at 0.8ms was never answered: the link lived until the simulator closed it at",
			"; it was pending when session/close request 3 for session 9a3f0c1e… was delivered on c1>a1#1 at 1.1ms, so the Agent owed it error -32800.",
		}},
		{"never answered after session/cancel", heldCancel("cancel", "silent"), []string{
			"it was pending when session/cancel for session 9a3f0c1e… was delivered on c1>a1#1 at 1.1ms, so the Agent owed it error -32800",
		}},
		{"the original inserted after the key was withdrawn on another link", keyedCancel("insert", false), []string{
			"$/cancel_request naming s1's session/prompt request 3 on c1>a2#1, still pending with key 1f0c9e2a… in session 9a3f0c1e…, was delivered at 2.4ms and withdrew every pending request of that key, while s1's session/prompt request 2 on c1>a1#1 (delivered at 0.8ms) was pending",
			"yet the Agent inserted it afterwards: it answered messageId M1 at 2.8ms instead of error -32800",
		}},
		{"the original never answered after the key was withdrawn", keyedCancel("silent", false), []string{
			"s1's session/prompt request 2 on c1>a1#1 delivered at 0.8ms was never answered",
			"it was pending when $/cancel_request naming s1's session/prompt request 3 on c1>a2#1, still pending with key 1f0c9e2a…",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.b.check()
			if got := kindsOf(r); !reflect.DeepEqual(got, []string{BadReply}) {
				t.Fatalf("got %v\n%s", got, dump(r))
			}
			checkWellFormed(t, tt.b, r)
			a := r.Anomalies[0]
			for _, want := range tt.prose {
				if !strings.Contains(a.Explanation, want) {
					t.Errorf("explanation lacks %q:\n%s", want, a.Explanation)
				}
			}
			if a.Sub != "s1" || a.Session != S1 {
				t.Errorf("sub %q session %q, want s1 %s", a.Sub, a.Session, S1)
			}
		})
	}
}

// A withdrawn prompt inserted without a response is told from the transcript,
// only when no request that nobody withdrew can have inserted the message.
func TestCancelHiddenInsertion(t *testing.T) {
	r := heldCancel("cancel", "hidden").check()
	if got := kindsOf(r); !reflect.DeepEqual(got, []string{Phantom, BadReply}) {
		t.Fatalf("got %v\n%s", got, dump(r))
	}
	for _, want := range []string{
		`s1 ("fix the tests", key 1f0c9e2a…) was inserted after the Client had cancelled it: the final transcript of session 9a3f0c1e… (read on observer>a1#1 at`,
		"holds 1 message with its text that no response named (M1), and only requests of s1 can have inserted it",
		"but each of its requests that could have inserted one was withdrawn before insertion: request 2 on c1>a1#1 delivered at 0.8ms, Agent answered error -32800 at 1.2ms, pending when session/cancel for session 9a3f0c1e… was delivered on c1>a1#1 at 1.1ms",
	} {
		if !strings.Contains(r.Anomalies[1].Explanation, want) {
			t.Errorf("explanation lacks %q:\n%s", want, r.Anomalies[1].Explanation)
		}
	}
	r = killedThenCancelled().check()
	if got := kindsOf(r); !reflect.DeepEqual(got, []string{Phantom}) {
		t.Fatalf("killed, then the resend cancelled: got %v\n%s", got, dump(r))
	}
}

// What a cancel does not cover stays healthy.
func TestCancelHealthy(t *testing.T) {
	tests := []struct {
		name string
		b    *tb
	}{
		{"session/close read after the response was sent", heldCancel("close", "raced")},
		{"session/cancel read after the response was sent", heldCancel("cancel", "raced")},
		{"the key resent after its withdrawal is a new prompt", keyedCancel("resend", false)},
		{"$/cancel_request names an id of another link", keyedCancel("insert", true)},
		{"withdrawn on both links", keyedCancel("withdraw", false)},
		{"session/cancel after the prompt was inserted: its retry answered M1", retryOfInsertedCancelled("cancel")},
		{"$/cancel_request naming the retry of an inserted prompt", retryOfInsertedCancelled("request")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := tt.b.check(); !r.OK() || r.Inconclusive {
				t.Fatalf("got %v (inconclusive %v)\n%s", kindsOf(r), r.Inconclusive, dump(r))
			}
		})
	}
}

// A malformed key owes -32602; withdrawn before the Agent answered, -32800
// is right too, and success is wrong on both counts.
func TestCancelMalformedKey(t *testing.T) {
	build := func(replay []msg, resp func(b *tb, id acp.ID)) *tb {
		b := newTB("all")
		b.connect(L1)
		b.submit("c1", "s1", text)
		id := b.prompt(L1, "s1", S1, text, keyOf(256))
		b.timer("c1")
		b.c2a(L1, cancelRequestFrame(id), "")
		resp(b, id)
		b.observe("a1#1", sess{S1, replay})
		b.finish("quiet", L1, Obs1)
		return b
	}
	for _, code := range []int{acp.CodeRequestCancelled, acp.CodeInvalidParams} {
		b := build(nil, func(b *tb, id acp.ID) {
			b.fail(L1, id, code)
			b.outcome("c1", "s1", "failed", "")
		})
		if r := b.check(); !r.OK() {
			t.Errorf("error %d: got %v\n%s", code, kindsOf(r), dump(r))
		}
	}
	b := build([]msg{{id: "M1", text: text}}, func(b *tb, id acp.ID) {
		b.answer(L1, id, "M1")
		b.outcome("c1", "s1", "inserted", "M1")
	})
	r := b.check()
	if got := kindsOf(r); !reflect.DeepEqual(got, []string{BadReply, BadReply}) {
		t.Errorf("success: got %v\n%s", got, dump(r))
	}
}

func TestReadRequestID(t *testing.T) {
	for raw, want := range map[string]acp.ID{
		`{"requestId":7}`:               "7",
		`{"requestId":"a"}`:             `"a"`,
		`{"requestId":"\u0061"}`:        `"\u0061"`,
		`{"requestId":-0}`:              "-0",
		`{"requestId":null}`:            "null",
		`{"requestId":1e2}`:             "1e2",
		`{"requestId":true}`:            "",
		`{"requestId":7,"requestid":8}`: "8",
		`{"RequestId":7}`:               "7",
		`{}`:                            "",
		``:                              "",
		`[7]`:                           "",
	} {
		var p acp.CancelRequestParams
		codec := acp.ID("")
		if acp.DecodeParams([]byte(raw), &p) == nil {
			codec = p.RequestID
		}
		if got := readRequestID(raw); got != want || got != codec {
			t.Errorf("readRequestID(%s) = %q, want %q (codec %q)", raw, got, want, codec)
		}
	}
}

// Seen at a proxy (acpsim check) or a tap (acpsim check-client), a cancel
// reaches a real Agent at an unknown time after it was written to it: a
// success answer stands until the Agent shows it read the cancel by
// answering something written after it; from then on it is the
// simulator's bad-reply.
func TestCancelSeenAtAProxy(t *testing.T) {
	for _, c := range []struct {
		agent    string
		observed string
		want     []string
	}{
		{"insert", "", []string{BadReply}},
		{"insert", traces.ObservedAtProxy, nil},
		{"insert", traces.ObservedAtTap, nil},
		{"insert-after-read", "", []string{BadReply}},
		{"insert-after-read", traces.ObservedAtProxy, []string{BadReply}},
		{"insert-after-read", traces.ObservedAtTap, []string{BadReply}},
		{"insert-before-read", "", []string{BadReply}},
		{"insert-before-read", traces.ObservedAtProxy, nil},
		{"withdraw", traces.ObservedAtProxy, nil},
	} {
		b := heldCancel("request", c.agent)
		b.h.Observed = c.observed
		r := b.check()
		if got := kindsOf(r); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s, observed at %q: got %v, want %v\n%s", c.agent, c.observed, got, c.want, dump(r))
		}
	}
}
