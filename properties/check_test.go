package properties

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim/bench"
	"github.com/acpsim/acpsim/traces"
)

// pairs gives, for every anomaly kind, traces that must show it (bad, with the
// full list of kinds expected) and a close variant that must show nothing. A
// checker that cannot fail is a defect, and one that fails healthy runs is
// useless, so each kind is pinned from both sides.
var pairs = []struct {
	name      string
	kind      string
	bad, good func() *tb
	want      []string // every kind bad reports, in report order
}{
	{"unkeyed resend after a crash inserts twice", Duplicate,
		func() *tb { return crashRetry(false, "reinsert") }, func() *tb { return crashRetry(true, "rebind") },
		[]string{Duplicate}},
	{"two unanswered attempts both in the transcript (by text)", Duplicate,
		naiveTwiceByText, func() *tb {
			return killedBeforeAnswer("all", traces.OutcomeUnknown, []string{text}, []string{text}, false)
		},
		[]string{Duplicate}},
	{"killed before the response, unkeyed resend answered with a new id", Duplicate,
		func() *tb { return killedThenResent(false, false) }, func() *tb { return killedThenResent(true, false) },
		[]string{Duplicate}},
	{"history order pins an unnamed insertion on the earlier submission", Duplicate,
		func() *tb { return orderDecides(true) }, func() *tb { return killedThenResent(true, false) },
		[]string{Duplicate}},
	{"one of two same-text submissions inserted twice, the frames cannot tell which", Duplicate,
		func() *tb { return orderDecides(false) }, func() *tb { return killedThenResent(true, false) },
		[]string{Duplicate}},
	{"told inserted, missing from a retained session", Lost,
		func() *tb { return single{emptyReplay: true}.build() }, func() *tb { return single{emptyReplay: true, liveOnly: []string{"fix "}}.build() },
		[]string{Lost}},
	{"abandoned and never inserted", Lost,
		func() *tb { return abandonedTrace(false) }, func() *tb { return abandonedTrace(true) },
		[]string{Lost}},
	{"failed after the first attempt was inserted", Phantom,
		func() *tb { return crashRetry(true, "fail") },
		func() *tb {
			return single{errCode: acp.CodeInternalError, emptyReplay: true}.build()
		},
		[]string{Phantom}},
	{"a withdrawn key's next attempt answered -32800 with no new cancel", StrayCancel,
		func() *tb { return withdrawnAgain(false) }, func() *tb { return withdrawnAgain(true) },
		[]string{StrayCancel}},
	{"a cancel naming one prompt withdraws another, which is inserted", StrayCancel,
		func() *tb { return strayCancel("misdirected") }, func() *tb { return strayCancel("named") },
		[]string{BadReply, StrayCancel}},
	{"no outcome in a quiet run", Unresolved,
		func() *tb { return single{outcome: "-"}.build() }, func() *tb { return single{}.build() },
		[]string{Unresolved}},
	{"keyed resend after a crash answered with a new id", WrongID,
		func() *tb { return crashRetry(true, "reinsert") }, func() *tb { return crashRetry(true, "rebind") },
		[]string{Duplicate, WrongID}},
	{"a second submission answered with the first one's id", WrongID,
		func() *tb { return sharedID(true) }, func() *tb { return sharedID(false) },
		[]string{WrongID}},
	{"running again after a retry answered from the binding", Rework,
		func() *tb { return retryOnTimeout("rework") }, func() *tb { return retryOnTimeout("none") },
		[]string{Rework}},
	{"running after a resume that followed a binding retry", Rework,
		func() *tb { return retryOnTimeout("after-resume") }, func() *tb { return retryOnTimeout("snapshot") },
		[]string{Rework}},
	{"new submission after a binding retry is a new turn", Rework,
		func() *tb { return retryOnTimeout("rework") }, func() *tb { return retryOnTimeout("new-turn") },
		[]string{Rework}},
	{"key behind a JSON escape in agent output", KeyLeak,
		func() *tb {
			return single{extra: agentSays(agentMessage(`"retrying \u0031f0c9e2a-7b7d-4c1e-9d53-2f5d8c7a4b10"`))}.build()
		},
		func() *tb {
			return single{extra: agentSays(agentMessage(`"retrying ` + strings.ToUpper(K1) + `"`))}.build()
		},
		[]string{KeyLeak}},
	{"field name as an escaped object key in _meta", KeyLeak,
		func() *tb {
			return single{extra: agentSays(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":{"sessionUpdate":"agent_message","messageId":"O9","_meta":{"\u0069dempotencyKey":"k"}}}}`)}.build()
		},
		func() *tb { return single{extra: agentSays(agentMessage(`"idempotencyKey"`))}.build() },
		[]string{KeyLeak}},
	{"key in the observer's session/list", KeyLeak,
		func() *tb {
			return single{extra: func(b *tb) {
				id := b.nextID(L1)
				b.c2a(L1, acp.Request(id, acp.MethodSessionList, acp.ListSessionsParams{}), "")
				b.a2c(L1, acp.Result(id, map[string]any{"sessions": []any{map[string]any{"sessionId": S1, "cwd": "/w", "_meta": map[string]string{"k": "prefix" + K1}}}}))
			}}.build()
		},
		func() *tb {
			return single{extra: func(b *tb) {
				id := b.nextID(L1)
				b.c2a(L1, acp.Request(id, acp.MethodSessionList, acp.ListSessionsParams{}), "")
				b.a2c(L1, acp.Result(id, map[string]any{"sessions": []any{map[string]any{"sessionId": S1, "cwd": "/w"}}}))
			}}.build()
		},
		[]string{KeyLeak}},
	{"request answered twice", BadReply,
		func() *tb { return single{answers: 2}.build() }, func() *tb { return single{}.build() },
		[]string{BadReply}},
	{"request never answered before the orderly close", BadReply,
		func() *tb { return noReply("close", "quiet") }, func() *tb { return noReply("cut", "quiet") },
		[]string{BadReply}},
	{"request never answered on a link that never ended", BadReply,
		func() *tb { return noReply("", "quiet") }, func() *tb { return noReply("cut", "quiet") },
		[]string{BadReply}},
	{"empty key accepted", BadReply,
		func() *tb { return single{key: json.RawMessage(`""`)}.build() },
		func() *tb {
			return single{key: json.RawMessage(`""`), errCode: acp.CodeInvalidParams, emptyReplay: true}.build()
		},
		[]string{BadReply}},
	{"256-code-point key accepted, 255 is fine", BadReply,
		func() *tb { return single{key: keyOf(256)}.build() }, func() *tb { return single{key: keyOf(255)}.build() },
		[]string{BadReply}},
	{"non-string key answered with another error", BadReply,
		func() *tb {
			return single{key: json.RawMessage(`42`), errCode: acp.CodeInternalError, emptyReplay: true}.build()
		},
		func() *tb {
			return single{key: json.RawMessage(`42`), errCode: acp.CodeInvalidParams, emptyReplay: true}.build()
		},
		[]string{BadReply}},
	{"response to an id never delivered", BadReply,
		func() *tb {
			return single{extra: func(b *tb) { b.answer(L1, acp.NumID(99), "M9") }}.build()
		},
		func() *tb { return single{extra: strayNullError(true)}.build() },
		[]string{BadReply}},
	{"null-id error with nothing to answer", BadReply,
		func() *tb { return single{extra: strayNullError(false)}.build() },
		func() *tb { return single{extra: strayNullError(true)}.build() },
		[]string{BadReply}},
	{"held prompt inserted after session/cancel", BadReply,
		func() *tb { return heldCancel("cancel", "insert") }, func() *tb { return heldCancel("cancel", "withdraw") },
		[]string{BadReply}},
	{"held prompt inserted after session/close", BadReply,
		func() *tb { return heldCancel("close", "insert") }, func() *tb { return heldCancel("close", "withdraw") },
		[]string{BadReply}},
	{"held prompt inserted after $/cancel_request named it", BadReply,
		func() *tb { return heldCancel("request", "insert") }, func() *tb { return heldCancel("request", "withdraw") },
		[]string{BadReply}},
	{"response sent just after the cancel arrived; just before, the cancel is ignored", BadReply,
		func() *tb { return heldCancel("request", "raced-bad") }, func() *tb { return heldCancel("request", "raced") },
		[]string{BadReply}},
	{"session/cancel read just before the response, at the same time", BadReply,
		func() *tb { return heldCancel("cancel", "raced-bad") }, func() *tb { return heldCancel("cancel", "raced") },
		[]string{BadReply}},
	{"held prompt answered -32800 after session/close, then inserted without a response", BadReply,
		func() *tb { return heldCancel("close", "hidden") }, func() *tb { return heldCancel("close", "withdraw") },
		[]string{Phantom, BadReply}},
	{"$/cancel_request names the keyed retry on another link, the original is inserted anyway", BadReply,
		func() *tb { return keyedCancel("insert", false) }, func() *tb { return keyedCancel("withdraw", false) },
		[]string{BadReply}},
	{"one message, two candidates, and the split decides lost", Unattributable,
		func() *tb {
			return killedBeforeAnswer("all", traces.OutcomeAbandoned, []string{"hi", "hi"}, []string{"hi"}, false)
		},
		func() *tb {
			return killedBeforeAnswer("all", traces.OutcomeAbandoned, []string{"hi", "hi"}, []string{"hi", "hi"}, false)
		},
		[]string{Unattributable}},
	{"a message nobody submitted", Unattributable,
		func() *tb {
			return single{replay: []msg{{id: "M1", text: text}, {id: "M9", text: "never submitted"}}}.build()
		},
		func() *tb { return single{}.build() },
		[]string{Unattributable}},
	{"session/resume answered -32603 every time after healing", SetupFailed,
		func() *tb { return setupFailing(false) }, func() *tb { return setupFailing(true) },
		[]string{SetupFailed}},
}

func kindsOf(r *Report) []string {
	var ks []string
	for _, a := range r.Anomalies {
		ks = append(ks, a.Kind)
	}
	return ks
}

func dump(r *Report) string {
	var b bytes.Buffer
	r.WriteText(&b)
	return b.String()
}

// checkWellFormed asserts what every anomaly owes a reader: prose, and
// ascending seqs of events that exist in the trace.
func checkWellFormed(t *testing.T, b *tb, r *Report) {
	t.Helper()
	seqs := map[int64]bool{}
	for _, e := range b.evs {
		seqs[e.Seq] = true
	}
	for _, a := range r.Anomalies {
		if a.Explanation == "" || len(a.Events) == 0 {
			t.Errorf("%s anomaly without explanation or events: %+v", a.Kind, a)
		}
		if !slices.IsSorted(a.Events) {
			t.Errorf("%s events not ascending: %v", a.Kind, a.Events)
		}
		for _, q := range a.Events {
			if !seqs[q] {
				t.Errorf("%s cites event %d, not in the trace", a.Kind, q)
			}
			if traces.Bookkeeping[b.evs[q-1].Kind] {
				t.Errorf("%s cites bookkeeping event %d (%s)", a.Kind, q, b.evs[q-1].Kind)
			}
		}
	}
}

func TestAnomalyPairs(t *testing.T) {
	for _, p := range pairs {
		t.Run(p.kind+"/"+p.name, func(t *testing.T) {
			bad := p.bad()
			r := bad.check()
			if got := kindsOf(r); !reflect.DeepEqual(got, p.want) {
				t.Fatalf("bad trace: got %v, want %v\n%s", got, p.want, dump(r))
			}
			checkWellFormed(t, bad, r)
			if r.Inconclusive {
				t.Errorf("bad trace is inconclusive:\n%s", dump(r))
			}
			good := p.good()
			if g := good.check(); !g.OK() || g.Inconclusive {
				t.Fatalf("healthy variant: got %v (inconclusive %v)\n%s", kindsOf(g), g.Inconclusive, dump(g))
			}
		})
	}
}

func TestEveryKindHasAPair(t *testing.T) {
	for _, k := range Kinds {
		found := false
		for _, p := range pairs {
			found = found || p.kind == k
		}
		if !found {
			t.Errorf("no failing/healthy pair for %s", k)
		}
	}
}

// Stripping choose, insert and timer events must not change anything the
// checker says: it reads frames only.
func TestBookkeepingIsIgnored(t *testing.T) {
	var all []*tb
	for _, p := range pairs {
		all = append(all, p.bad(), p.good())
	}
	all = append(all, heldRetry(), single{outcome: "-", end: "cap"}.build())
	for i, b := range all {
		stripped := stripBookkeeping(b.evs)
		if len(stripped) == len(b.evs) {
			t.Fatalf("trace %d has no bookkeeping events to strip", i)
		}
		full, bare := Check(b.h, b.evs), Check(b.h, stripped)
		if !reflect.DeepEqual(full, bare) {
			t.Errorf("trace %d: stripping bookkeeping changed the report:\nfull:\n%s\nstripped:\n%s", i, dump(full), dump(bare))
		}
	}
}

func TestKeyedRetryFromBindingIsHealthy(t *testing.T) {
	r := crashRetry(true, "rebind").check()
	if !r.OK() {
		t.Fatalf("anomalies:\n%s", dump(r))
	}
	want := Stats{RespLostAfterInsert: 1, RetriesFromBinding: 1, RetriesAfterRestart: 1, Submissions: 1, Prompts: 2}
	got := r.Stats
	got.Frames = 0
	if got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
	s := r.Submissions[0]
	if s.Key != K1 || s.Attempts != 2 || s.Delivered != 2 || !reflect.DeepEqual(s.Transcript, []string{"M1"}) || !reflect.DeepEqual(s.Answered, []string{"M1"}) {
		t.Errorf("submission = %+v", s)
	}
}

func TestStats(t *testing.T) {
	tests := []struct {
		name string
		b    *tb
		want Stats
	}{
		{"healthy", single{}.build(), Stats{Submissions: 1, Prompts: 1}},
		{"retry while held", heldRetry(), Stats{Submissions: 1, Prompts: 2, RetriesWhilePending: 1, RetriesFromBinding: 1}},
		{"retry on the same link from the binding", retryOnTimeout("none"), Stats{Submissions: 1, Prompts: 2, RetriesFromBinding: 1}},
		{"unkeyed resend is not counted as keyed", crashRetry(false, "reinsert"), Stats{Submissions: 1, Prompts: 2, RespLostAfterInsert: 1}},
		{"inserted, never answered", killedBeforeAnswer("all", traces.OutcomeAbandoned, []string{text}, []string{text}, false), Stats{Submissions: 1, Prompts: 1, RespLostAfterInsert: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.check().Stats
			if got.Frames == 0 {
				t.Errorf("no frames counted")
			}
			got.Frames = 0
			if got != tt.want {
				t.Errorf("stats = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestTextFallbackAttribution(t *testing.T) {
	tests := []struct {
		name       string
		b          *tb
		transcript map[string][]string // sub → attributed messages
		byText     int
	}{
		{"inserted and never answered", killedBeforeAnswer("all", traces.OutcomeAbandoned, []string{text}, []string{text}, false),
			map[string][]string{"s1": {"M1"}}, 1},
		{"replayed as chunks", killedBeforeAnswer("all", traces.OutcomeAbandoned, []string{text}, []string{text}, true),
			map[string][]string{"s1": {"M1"}}, 1},
		{"two equal texts, both inserted: one each", killedBeforeAnswer("all", traces.OutcomeAbandoned, []string{"hi", "hi"}, []string{"hi", "hi"}, false),
			map[string][]string{"s1": {"M1"}, "s2": {"M2"}}, 2},
		{"split that changes no verdict resolves", killedBeforeAnswer("last 1", traces.OutcomeAbandoned, []string{"hi", "hi"}, []string{"hi"}, false),
			map[string][]string{"s1": {"M1"}, "s2": nil}, 1},
		{"only the text that matches", killedBeforeAnswer("all", traces.OutcomeUnknown, []string{"a", "b"}, []string{"b"}, false),
			map[string][]string{"s1": nil, "s2": {"M1"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.b.check()
			if !r.OK() {
				t.Fatalf("anomalies:\n%s", dump(r))
			}
			n := 0
			for _, s := range r.Submissions {
				if !reflect.DeepEqual(s.Transcript, tt.transcript[s.Sub]) {
					t.Errorf("%s transcript = %v, want %v", s.Sub, s.Transcript, tt.transcript[s.Sub])
				}
				n += s.ByText
			}
			if n != tt.byText {
				t.Errorf("by text = %d, want %d", n, tt.byText)
			}
			if r.Stats.RespLostAfterInsert != tt.byText {
				t.Errorf("RespLostAfterInsert = %d, want %d", r.Stats.RespLostAfterInsert, tt.byText)
			}
		})
	}
}

func TestUnattributable(t *testing.T) {
	tests := []struct {
		name  string
		b     *tb
		subs  []string // submissions whose row shows it
		prose string
	}{
		{"split decides lost", killedBeforeAnswer("all", traces.OutcomeAbandoned, []string{"hi", "hi"}, []string{"hi"}, false),
			[]string{"s1", "s2"}, "it may belong to s1 (abandoned, 1 delivered request without a messageId; could hold 0 to 1 of them) and s2 (abandoned, 1 delivered request without a messageId; could hold 0 to 1 of them), and how they split decides whether s1 is lost and whether s2 is lost"},
		{"split decides phantom", killedBeforeAnswer("all", traces.OutcomeFailed, []string{"hi", "hi"}, []string{"hi"}, false),
			[]string{"s1", "s2"}, "is a phantom"},
		{"more messages than delivered requests", killedBeforeAnswer("all", traces.OutcomeUnknown, []string{"hi"}, []string{"hi", "hi"}, false),
			nil, "s1 (unknown, 1 delivered request without a messageId; could hold 0 to 1 of them) cannot hold them all"},
		{"a duplicate is certain, a loss hangs on the split", threeWay(),
			[]string{"s2", "s3", "s1"}, "how they split decides whether s2 is a duplicate, whether s3 is a duplicate and whether s1 is lost (and some submission was inserted twice either way)"},
		{"alien message", single{replay: []msg{{id: "M1", text: text}, {id: "M9", text: "never submitted"}}}.build(),
			nil, "no submission of that session with that text"},
		{"a second copy of an answered submission", single{replay: []msg{{id: "M1", text: text}, {id: "M7", text: text}}}.build(),
			nil, "it would take a request inserting twice to make it a copy of s1 (which got M1)"},
		{"an answered resend and an unanswered stranger: the split decides a duplicate", killedThenResent(false, true),
			[]string{"s1"}, "s0 (unknown, 1 delivered request without a messageId; could hold 0 to 1 of them) and s1 (inserted M2, already holding 1 message, 1 delivered request without a messageId; could hold 0 to 1 of them), and how they split decides whether s1 is a duplicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.b.check()
			if got := kindsOf(r); !reflect.DeepEqual(got, []string{Unattributable}) {
				t.Fatalf("got %v\n%s", got, dump(r))
			}
			if !strings.Contains(r.Anomalies[0].Explanation, tt.prose) {
				t.Errorf("explanation %q lacks %q", r.Anomalies[0].Explanation, tt.prose)
			}
			var marked []string
			for _, s := range r.Submissions {
				if slices.Contains(s.Anomalies, Unattributable) {
					marked = append(marked, s.Sub)
				}
			}
			if !reflect.DeepEqual(marked, tt.subs) {
				t.Errorf("rows marked %v, want %v", marked, tt.subs)
			}
		})
	}
}

// The duplicate's explanation tells the chain the way a person would check it.
func TestDuplicateExplanation(t *testing.T) {
	r := crashRetry(false, "reinsert").check()
	got := r.Anomalies[0].Explanation
	for _, want := range []string{
		`s1 ("fix the tests", no key) was inserted twice`,
		"request 2 on c1>a1#1 delivered at",
		"Agent answered messageId M1 at",
		"but the response was lost when the link ended (kill)",
		"request 3 on c1>a1#2 delivered at",
		"c1 told the user inserted(M2)",
		"the final transcript of session 9a3f0c1e… (read on observer>a1#2",
		"holds all of M1 and M2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("explanation lacks %q:\n%s", want, got)
		}
	}
}

// A duplicate proven without knowing whose names every candidate and says so.
func TestSomeDuplicate(t *testing.T) {
	r := orderDecides(false).check()
	if got := kindsOf(r); !reflect.DeepEqual(got, []string{Duplicate}) {
		t.Fatalf("got %v\n%s", got, dump(r))
	}
	a := r.Anomalies[0]
	for _, want := range []string{
		`one of s1 and s3 ("fix the tests") was inserted twice, and the frames cannot tell which`,
		"holds 1 message that no response named (M1)",
		"s1's request 2 on c1>a1#1 delivered at",
		"s3's request 3 on c1>a1#2 delivered at",
		"Agent answered error -32603",
		"but s1 holds M2 and s3 holds M3 already",
	} {
		if !strings.Contains(a.Explanation, want) {
			t.Errorf("explanation lacks %q:\n%s", want, a.Explanation)
		}
	}
	if a.Sub != "" || a.Session != S1 {
		t.Errorf("sub %q session %q: a duplicate of no single submission", a.Sub, a.Session)
	}
	for _, s := range r.Submissions {
		if !reflect.DeepEqual(s.Anomalies, []string{Duplicate}) {
			t.Errorf("row %s shows %v", s.Sub, s.Anomalies)
		}
	}
}

func TestOrderAndDeterminism(t *testing.T) {
	b := crashRetry(true, "reinsert")
	want := dump(b.check())
	if want != dump(b.check()) {
		t.Fatal("two checks of one trace print differently")
	}
	rev := slices.Clone(b.evs)
	slices.Reverse(rev)
	if got := dump(Check(b.h, rev)); got != want {
		t.Errorf("events out of seq order give another report:\n%s\nwant:\n%s", got, want)
	}
	for _, s := range []string{"sub  client", "duplicate", "wrong-id", "stats: 1 submissions"} {
		if !strings.Contains(want, s) {
			t.Errorf("text lacks %q:\n%s", s, want)
		}
	}
}

// A submission no submit event names takes its text from its prompts: the
// first prompt that has one (an empty prompt, as a Client may send before
// the user typed, names none).
func TestASubmissionsTextIsItsFirstNonEmptyPrompt(t *testing.T) {
	b := newTB("all")
	b.connect(L1)
	id1 := b.prompt(L1, "s1", S1, "", K1)
	b.fail(L1, id1, acp.CodeInternalError)
	id2 := b.prompt(L1, "s1", S1, "fix the tests", K1)
	b.fail(L1, id2, acp.CodeInternalError)
	id3 := b.prompt(L1, "s1", S1, "something else", K1)
	b.fail(L1, id3, acp.CodeInternalError)
	b.outcome("c1", "s1", traces.OutcomeFailed, "")
	b.observe("a1#1", sess{S1, nil})
	b.finish("quiet", L1, Obs1)
	r := b.check()
	if len(r.Submissions) != 1 || r.Submissions[0].Text != "fix the tests" {
		t.Fatalf("submissions %+v, want s1 with the text of its first prompt that has one", r.Submissions)
	}
}

// A checker that takes its handles from the run's register (UseNames: ids
// and texts found from their address, any other string registered there)
// writes the report one that hashes every string writes, on a history with
// duplicates to explain as on a healthy one.
func TestAReportIsTheSameWithTheRunsRegister(t *testing.T) {
	for _, dups := range []int{0, 3} {
		cfg := bench.Defaults(400)
		cfg.Duplicates = dups
		h := bench.Generate(cfg)
		hashed := Check(h.Header, h.Events)
		c := NewBorrowingChecker(h.Header, len(h.Events))
		c.UseNames(h.Names)
		for i := range h.Events {
			c.Add(&h.Events[i])
		}
		registered := c.Finish()
		if got, want := dump(registered), dump(hashed); got != want {
			t.Fatalf("%d duplicates planted: the report with the register:\n%s\nwithout:\n%s", dups, got, want)
		}
		if dups > 0 && hashed.OK() {
			t.Fatalf("%d duplicates planted and the report passes: the comparison judged nothing", dups)
		}
	}
}
