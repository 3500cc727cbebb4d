package properties

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Scenarios and tests for the Agent's declared contract (traces.Contract):
// what it may forget, so that the checker tells "expected" from "anomaly".

const status = "/status"

// liveSlash declares prompts starting with "/" live-only, retaining all else.
var liveSlash = traces.Contract{Retention: "all", LiveOnly: []string{"/"}}

func lastN(n string) traces.Contract { return traces.Contract{Retention: n} }

// resent: s1 sends txt; the Agent inserts M1 and writes its response and
// user message. With sameLink the Client times out and resends on the same
// link, which stays up, and both responses arrive; otherwise the Agent is
// killed before they arrive and the Client resends on the restarted Agent's
// new link. Either way the Agent answers the resend with a new message M2.
// The observer reads replay under contract.
func resent(contract traces.Contract, txt string, keyed, sameLink bool, replay ...msg) *tb {
	return resentPushed(contract, txt, keyed, sameLink, "", replay...)
}

// resentPushed is resent; with push (its text), another submission s9 is
// inserted (M9) before the resend arrives: under "last 1" it pushes M1
// out, so the key was forgotten by then, unless its text is live-only.
func resentPushed(contract traces.Contract, txt string, keyed, sameLink bool, push string, replay ...msg) *tb {
	b := newTB("")
	b.h.Contract = contract
	var key any
	if keyed {
		key = K1
	}
	b.connect(L1)
	b.submit("c1", "s1", txt)
	id := b.prompt(L1, "s1", S1, txt, key)
	b.insert(S1, "M1", txt)
	inFlight := [][]byte{msgResult(id, "M1"), updFrame(S1, acp.MessageUpdate(acp.UpdateUserMessage, "M1", txt))}
	for _, f := range inFlight {
		b.send(L1, traces.AgentToClient, f, "")
	}
	link, proc, obs := L1, "a1#1", Obs1
	if sameLink {
		b.timer("c1")
	} else {
		b.choose("kill a1#1 after insert")
		b.disconnect(L1, "kill")
		b.kill("a1#1")
		b.restart("a1#2")
		b.timer("c1")
		link, proc, obs = L2, "a1#2", Obs2
		b.connect(L2)
		b.resume(L2, S1)
	}
	if push != "" {
		b.submit("c1", "s9", push)
		id9 := b.prompt(link, "s9", S1, push, "k9")
		b.insert(S1, "M9", push)
		b.answer(link, id9, "M9")
		b.outcome("c1", "s9", traces.OutcomeInserted, "M9")
	}
	id2 := b.prompt(link, "s1", S1, txt, key)
	b.insert(S1, "M2", txt)
	b.send(link, traces.AgentToClient, msgResult(id2, "M2"), "")
	outcome := "M2"
	if sameLink {
		for _, f := range inFlight {
			b.deliver(L1, traces.AgentToClient, f, "")
		}
		outcome = "M1"
	}
	b.deliver(link, traces.AgentToClient, msgResult(id2, "M2"), "")
	b.userMsg(link, S1, "M2", txt)
	b.turn(link, S1, "O2")
	b.outcome("c1", "s1", traces.OutcomeInserted, outcome)
	b.observe(proc, sess{S1, replay})
	b.finish("quiet", link, obs)
	return b
}

// retainedLast: s1, then s2 ("now the docs", answered M2) in one session; the
// observer reads only M2. mode is what became of s1: "inserted" (keyed,
// answered M1, told inserted), "abandoned" (unkeyed, inserted M1, the Agent
// died before its response arrived, the Client gave up silently) or
// "undelivered" (its prompt was dropped, the Client gave up silently). Under
// "last 1" the Agent may have dropped M1; under "last 2" it kept everything.
func retainedLast(retention, mode string) *tb {
	b := newTB(retention)
	b.connect(L1)
	b.submit("c1", "s1", text)
	switch mode {
	case "inserted":
		id := b.prompt(L1, "s1", S1, text, K1)
		b.insert(S1, "M1", text)
		b.answer(L1, id, "M1")
		b.userMsg(L1, S1, "M1", text)
		b.turn(L1, S1, "O1")
		b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	case "abandoned":
		id := b.prompt(L1, "s1", S1, text, nil)
		b.insert(S1, "M1", text)
		b.send(L1, traces.AgentToClient, msgResult(id, "M1"), "")
	case "undelivered":
		f := promptFrame(b.nextID(L1), S1, text, nil)
		b.send(L1, traces.ClientToAgent, f, "s1")
		b.choose("drop c1>a1#1")
		b.frameEvent(traces.KindDrop, L1, traces.ClientToAgent, string(f), "s1", "chaos")
	}
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	if mode != "inserted" {
		b.outcome("c1", "s1", traces.OutcomeAbandoned, "")
	}
	b.restart("a1#2")
	b.connect(L2)
	b.resume(L2, S1)
	b.submit("c1", "s2", "now the docs")
	id := b.prompt(L2, "s2", S1, "now the docs", K2)
	b.insert(S1, "M2", "now the docs")
	b.answer(L2, id, "M2")
	b.userMsg(L2, S1, "M2", "now the docs")
	b.turn(L2, S1, "O2")
	b.outcome("c1", "s2", traces.OutcomeInserted, "M2")
	b.observe("a1#2", sess{S1, []msg{{id: "M2", text: "now the docs"}}})
	b.finish("quiet", L2, Obs2)
	return b
}

// forgottenByRetention: keyed s1 is inserted (M1) and the Agent dies before
// its response arrives; on the restarted Agent s2 is inserted (M2), which
// under "last 1" discards M1 and its key; then s1's resend arrives and is a
// new submission (M3), which discards M2. The observer reads replay.
func forgottenByRetention(retention string, replay ...msg) *tb {
	b := newTB(retention)
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	b.send(L1, traces.AgentToClient, msgResult(id, "M1"), "")
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	b.restart("a1#2")
	b.connect(L2)
	b.resume(L2, S1)
	b.submit("c1", "s2", "now the docs")
	id2 := b.prompt(L2, "s2", S1, "now the docs", K2)
	b.insert(S1, "M2", "now the docs")
	b.answer(L2, id2, "M2")
	b.userMsg(L2, S1, "M2", "now the docs")
	b.turn(L2, S1, "O2")
	b.outcome("c1", "s2", traces.OutcomeInserted, "M2")
	b.timer("c1")
	id3 := b.prompt(L2, "s1", S1, text, K1)
	b.insert(S1, "M3", text)
	b.answer(L2, id3, "M3")
	b.userMsg(L2, S1, "M3", text)
	b.turn(L2, S1, "O3")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M3")
	b.observe("a1#2", sess{S1, replay})
	b.finish("quiet", L2, Obs2)
	return b
}

// unnamedThenNamed: unkeyed s1 is inserted (M1) and the Agent dies before
// naming it; the resend on the restarted Agent is answered M2. With other, an
// unkeyed s0 of the same text was delivered first and died unanswered too.
// The observer reads replay (an Agent that lost M2 replays only M1).
func unnamedThenNamed(other bool, replay ...msg) *tb {
	b := newTB("all")
	b.connect(L1)
	if other {
		b.submit("c1", "s0", text)
		b.prompt(L1, "s0", S1, text, nil)
	}
	b.submit("c1", "s1", text)
	b.prompt(L1, "s1", S1, text, nil)
	b.insert(S1, "M1", text)
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	if other {
		b.outcome("c1", "s0", traces.OutcomeUnknown, "")
	}
	b.restart("a1#2")
	b.connect(L2)
	b.resume(L2, S1)
	id := b.prompt(L2, "s1", S1, text, nil)
	b.insert(S1, "M2", text)
	b.answer(L2, id, "M2")
	b.userMsg(L2, S1, "M2", text)
	b.turn(L2, S1, "O2")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M2")
	b.observe("a1#2", sess{S1, replay})
	b.finish("quiet", L2, Obs2)
	return b
}

// contractPairs pin each contract rule from both sides, in the style of
// pairs (and run with them).
var contractPairs = []struct {
	name      string
	kind      string
	bad, good func() *tb
	want      []string
}{
	// Rule: an unkeyed submission's success responses each name an insertion.
	{"unkeyed live-only command run twice, no transcript holds either", Duplicate,
		func() *tb { return resent(liveSlash, status, false, false) },
		func() *tb { return resent(liveSlash, status, true, false) },
		[]string{Duplicate}},
	{"unkeyed resend whose first insertion retention discarded", Duplicate,
		func() *tb { return resent(lastN("last 1"), text, false, false, msg{id: "M2", text: text}) },
		func() *tb {
			return resentPushed(lastN("last 1"), text, true, false, "something else", msg{id: "M2", text: text})
		},
		[]string{Duplicate}},
	{"unkeyed live-only retry on the same link", Duplicate,
		func() *tb { return resent(liveSlash, status, false, true) },
		func() *tb {
			return single{text: status, liveOnly: []string{"/"}, key: noKey, emptyReplay: true}.build()
		},
		[]string{Duplicate}},
	// Rule: lost only for what the contract promised to retain.
	{"a live-only prefix excuses only the texts it matches", Lost,
		func() *tb { return single{text: status, liveOnly: []string{"!"}, emptyReplay: true}.build() },
		func() *tb { return single{text: status, liveOnly: []string{"/"}, emptyReplay: true}.build() },
		[]string{Lost}},
	{"told inserted: a transcript short of N discarded nothing", Lost,
		func() *tb { return retainedLast("last 2", "inserted") },
		func() *tb { return retainedLast("last 1", "inserted") },
		[]string{Lost}},
	{"abandoned after the Agent had it: a transcript short of N discarded nothing", Lost,
		func() *tb { return retainedLast("last 2", "abandoned") },
		func() *tb { return retainedLast("last 1", "abandoned") },
		[]string{Lost}},
	{"retention does not excuse a prompt that never reached the Agent", Lost,
		func() *tb { return retainedLast("last 1", "undelivered") },
		func() *tb { return retainedLast("last 1", "abandoned") },
		[]string{Lost}},
	// Rule: a new messageId for a forgotten key is a new submission.
	{"live-only key forgotten only once the session left its link", WrongID,
		func() *tb { return resent(liveSlash, status, true, true) },
		func() *tb { return resent(liveSlash, status, true, false) },
		[]string{WrongID}},
	{"retention forgot the key only if its message is gone", WrongID,
		func() *tb { return forgottenByRetention("last 1", msg{id: "M1", text: text}) },
		func() *tb { return forgottenByRetention("last 1", msg{id: "M3", text: text}) },
		[]string{WrongID}},
	{"under retention all, a key answered anew is wrong-id", WrongID,
		func() *tb { return resent(lastN("all"), text, true, false, msg{id: "M2", text: text}) },
		func() *tb {
			return resentPushed(lastN("last 1"), text, true, false, "something else", msg{id: "M2", text: text})
		},
		[]string{WrongID}},
	{"retention forgot the key only once newer messages had pushed it out", WrongID,
		func() *tb { return resent(lastN("last 1"), text, true, false, msg{id: "M2", text: text}) },
		func() *tb {
			return resentPushed(lastN("last 1"), text, true, false, "something else", msg{id: "M2", text: text})
		},
		[]string{WrongID}},
}

func init() {
	pairs = append(pairs, contractPairs...)
}

func TestContract(t *testing.T) {
	tests := []struct {
		name      string
		b         *tb
		kinds     []string
		forgotten int
		prose     []string // in some anomaly's explanation
	}{
		{"live-only key forgotten after the link died", resent(liveSlash, status, true, false), nil, 1, nil},
		{"retention forgot the key", forgottenByRetention("last 1", msg{id: "M3", text: text}), nil, 1, nil},
		{"retention discarded the first insertion of a keyed resend", resentPushed(lastN("last 1"), text, true, false, "something else", msg{id: "M2", text: text}), nil, 1, nil},
		{"a live-only message pushes nothing out", resentPushed(traces.Contract{Retention: "last 1", LiveOnly: []string{"/"}}, text, true, false, status, msg{id: "M2", text: text}), []string{WrongID}, 0, []string{
			"only 0 user messages newer than M1 had been inserted in session 9a3f0c1e… when request 4 arrived",
		}},
		{"live-only retry on the live link", resent(liveSlash, status, true, true), []string{WrongID}, 0, []string{
			`s1 ("/status", key 1f0c9e2a…) got 2 different messageIds (M1 and M2) for one key in session 9a3f0c1e…`,
			"the contract does not let the Agent have forgotten the key: M2 after M1: its text is live-only, but request 3 was delivered at 1.4ms on c1>a1#1, the link M1 had been answered on, while that link was still up",
		}},
		{"declared last 2, holds 1", forgottenByRetention("last 2", msg{id: "M3", text: text}), []string{Lost, WrongID}, 0, []string{
			`s2 ("now the docs", key 77b0d3e4…) is missing from the final transcript although the user was told it was inserted`,
			"holds 1 message, not M2; the Agent keeps the last 2 user messages of a session and this transcript holds only 1, so it discarded none.",
		}},
		{"a kept message with a forgotten key", forgottenByRetention("last 1", msg{id: "M1", text: text}), []string{WrongID}, 0, []string{
			"M3 after M1: M1 is still in the final transcript of session 9a3f0c1e…",
		}},
		{"never delivered: nothing for retention to drop", retainedLast("last 1", "undelivered"), []string{Lost}, 0, []string{
			"holds none of it (1 message in all); no request of it reached the Agent in that session, so the Agent had nothing the contract lets it drop.",
		}},
		{"one request answered twice names one insertion", single{key: noKey, extra: func(b *tb) { b.answer(L1, acp.NumID(2), "M9") }}.build(), []string{BadReply}, 0, []string{
			"got 2 responses: messageId M1",
		}},
		{"one insertion only the text shows, one only a response names", unnamedThenNamed(false, msg{id: "M1", text: text}), []string{Duplicate, Lost}, 0, []string{
			`s1 ("fix the tests", no key) was inserted twice`,
			"M2 (to request 3 on c1>a1#2 at",
			"M2 is not in the final transcript;",
			"holds M1 (by text: no response named it)",
		}},
		{"an insertion only a response names counts in a text split", unnamedThenNamed(true, msg{id: "M1", text: text}), []string{Lost, Unattributable}, 0, []string{
			"s1 (inserted M2, already answered M2 (not in the transcript), 1 delivered request without a messageId; could hold 0 to 1 of them), and how they split decides whether s1 is a duplicate",
		}},
		{"invalid retention counts as all", single{retention: "last 0", emptyReplay: true}.build(), []string{Lost}, 0, nil},
		{"unknown retention counts as all", single{retention: "newest", emptyReplay: true}.build(), []string{Lost}, 0, nil},
		{"no retention counts as all", single{retention: " ", emptyReplay: true}.build(), []string{Lost}, 0, nil},
		{"an empty live-only prefix matches nothing", single{liveOnly: []string{""}, emptyReplay: true}.build(), []string{Lost}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.b.check()
			if got := kindsOf(r); !reflect.DeepEqual(got, tt.kinds) {
				t.Fatalf("got %v, want %v\n%s", got, tt.kinds, dump(r))
			}
			checkWellFormed(t, tt.b, r)
			if r.Stats.ExpectedForgotten != tt.forgotten {
				t.Errorf("ExpectedForgotten = %d, want %d\n%s", r.Stats.ExpectedForgotten, tt.forgotten, dump(r))
			}
			var all []string
			for _, a := range r.Anomalies {
				all = append(all, a.Explanation)
			}
			for _, want := range tt.prose {
				if !strings.Contains(strings.Join(all, "\n"), want) {
					t.Errorf("explanations lack %q:\n%s", want, strings.Join(all, "\n"))
				}
			}
			if want := "keys forgotten by contract " + strconv.Itoa(tt.forgotten) + ";"; !strings.Contains(dump(r), want) {
				t.Errorf("stats line lacks %q:\n%s", want, dump(r))
			}
		})
	}
}

// A duplicate the responses show is one anomaly that names them, however
// much of it the transcript also shows.
func TestDuplicateFromResponses(t *testing.T) {
	tests := []struct {
		name     string
		b        *tb
		answered []string // the submission's row
		inTransc []string
		prose    []string
		without  []string // must not be said
	}{
		{"live-only, neither in a transcript", resent(liveSlash, status, false, false), []string{"M1", "M2"}, nil, []string{
			`s1 ("/status", no key) was inserted twice`,
			"no key ties its requests together, so each messageId the Agent answered them with is an insertion: M1 (to request 2 on c1>a1#1 at 1ms) and M2 (to request 3 on c1>a1#2 at 3.1ms)",
			"M1 and M2 are not in the final transcript (its text is live-only: the Agent never retains it)",
		}, nil},
		{"one in the transcript, one discarded", resent(lastN("last 1"), text, false, false, msg{id: "M2", text: text}), []string{"M1", "M2"}, []string{"M2"}, []string{
			`s1 ("fix the tests", no key) was inserted twice`,
			"M1 is not in the final transcript (the Agent keeps only the last 1 user message of a session)",
			"holds M2",
		}, nil},
		{"both in the transcript: told once, as before", crashRetry(false, "reinsert"), []string{"M1", "M2"}, []string{"M1", "M2"}, []string{
			"holds all of M1 and M2",
		}, []string{"no key ties"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.b.check()
			if got := kindsOf(r); !reflect.DeepEqual(got, []string{Duplicate}) {
				t.Fatalf("got %v\n%s", got, dump(r))
			}
			a := r.Anomalies[0]
			for _, want := range tt.prose {
				if !strings.Contains(a.Explanation, want) {
					t.Errorf("explanation lacks %q:\n%s", want, a.Explanation)
				}
			}
			for _, not := range tt.without {
				if strings.Contains(a.Explanation, not) {
					t.Errorf("explanation says %q:\n%s", not, a.Explanation)
				}
			}
			s := r.Submissions[0]
			if !reflect.DeepEqual(s.Answered, tt.answered) || !reflect.DeepEqual(s.Transcript, tt.inTransc) || !reflect.DeepEqual(s.Anomalies, []string{Duplicate}) {
				t.Errorf("row = %+v", s)
			}
		})
	}
}

func TestStatsAddExpectedForgotten(t *testing.T) {
	s := Stats{ExpectedForgotten: 2, Prompts: 1}
	s.Add(Stats{ExpectedForgotten: 3, Prompts: 4})
	if s.ExpectedForgotten != 5 || s.Prompts != 5 {
		t.Errorf("sum = %+v", s)
	}
}
