package clientcheck

import (
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/properties"
)

// What a Client does with an error answer, judged from its wire and its
// user: the RFD's "errors leave the key unused".
func TestCheckJudgesWhatAClientDoesWithAnErrorAnswer(t *testing.T) {
	two := []Submission{{"s1", "hello"}, {"s2", "bye"}}
	cases := []struct {
		name string
		h    History
		want []string
		cite string // the RFD sentence the first anomaly cites
	}{
		{"told failed for an error answer", History{Subs: two[:1],
			Told:   []Told{{ID: "s1", Outcome: Failed, Error: "-32603"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32603).frames}, nil, ""},
		{"told inserted for an error answer", History{Subs: two[:1],
			Told:   []Told{{ID: "s1", Outcome: Inserted, MessageID: "local-1"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32800).frames},
			[]string{properties.Lost}, citeNotInserted},
		{"told inserted after a refusal and a lost answer: plain lost", History{Subs: two[:1],
			Told:   []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32603).prompt(1, "hello", `"k1"`).frames},
			[]string{properties.Lost}, Rules[properties.Lost]},
		{"the failed submission's key given to the next one", History{Subs: two,
			Told: []Told{{ID: "s1", Outcome: Failed, Error: "-32603"}, {ID: "s2", Outcome: Inserted, MessageID: "m1"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32603).
				prompt(1, "bye", `"k1"`).answer(1, "m1", 0).frames,
			Transcript: []Message{msg("m1", "bye")}}, []string{KeyReused}, citeOtherPrompt},
		{"a refused text sent again under a new key: nothing was recorded under the first", History{Subs: two[:1],
			Told: []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32603).
				prompt(1, "hello", `"k2"`).answer(1, "m1", 0).frames,
			Transcript: []Message{msg("m1", "hello")}}, nil, ""},
		{"an unkeyed text sent again after a refusal", History{Subs: two[:1],
			Told: []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames: new(wire).open(1).prompt(1, "hello", "").answer(1, "", -32603).
				prompt(1, "hello", "").answer(1, "m1", 0).frames,
			Transcript: []Message{msg("m1", "hello")}}, nil, ""},
		{"a new key after an unanswered attempt is still a change", History{Subs: two[:1],
			Told: []Told{{ID: "s1", Outcome: Inserted, MessageID: "m2"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32603).prompt(1, "hello", `"k2"`).
				open(2).prompt(2, "hello", `"k3"`).answer(2, "m2", 0).frames,
			Transcript: []Message{msg("m1", "hello"), msg("m2", "hello")}}, []string{properties.Duplicate, KeyChanged}, duplicateNewKeys},
		{"told failed for an error answer, then resent and inserted", History{Subs: two[:1],
			Told: []Told{{ID: "s1", Outcome: Failed, Error: "-32603"}, {ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32603).
				prompt(1, "hello", `"k1"`).answer(1, "m1", 0).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{properties.Phantom}, Rules[properties.Phantom]},
		{"a cancel that withdrew the prompt, told failed", History{Subs: two[:1],
			Told:   []Told{{ID: "s1", Outcome: Failed, Error: "-32800"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).cancel(1).answer(1, "", -32800).frames}, nil, ""},
		{"a cancel after the insertion, told failed without waiting", History{Subs: two[:1], Cancelled: []string{"s1"},
			Told:       []Told{{ID: "s1", Outcome: Failed, Error: "-32800 Request cancelled"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).cancel(1).answer(1, "m1", 0).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{properties.Phantom}, citeLateCancel},
		{"a cancel sent to a dying Agent, told failed without waiting", History{Subs: two[:1], Cancelled: []string{"s1"},
			Told:       []Told{{ID: "s1", Outcome: Failed, Error: "-32800 Request cancelled"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{properties.Phantom}, citeLateCancel},
		{"told failed, inserted, not cancelled: the plain phantom", History{Subs: two[:1],
			Told:       []Told{{ID: "s1", Outcome: Failed, Error: "-32800 Request cancelled"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).cancel(1).answer(1, "m1", 0).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{properties.Phantom}, Rules[properties.Phantom]},
	}
	for _, c := range cases {
		got := Check(c.h)
		if !slices.Equal(kinds(got), c.want) {
			t.Errorf("%s: anomalies %q, want %q:\n%v", c.name, kinds(got), c.want, got)
			continue
		}
		if len(got) > 0 && got[0].Rule() != c.cite {
			t.Errorf("%s: cites %q, want %q", c.name, got[0].Rule(), c.cite)
		}
		for _, a := range got {
			if a.Cite != "" && a.Kind != properties.Duplicate && !strings.Contains(a.Explanation, "refused") && !strings.Contains(a.Explanation, "with an error") && !strings.Contains(a.Explanation, "cancel") {
				t.Errorf("%s: %s cites the error rule but does not say the Agent refused: %s", c.name, a.Kind, a.Explanation)
			}
		}
	}
}

func TestErrorAnswersCountsRefusedAttempts(t *testing.T) {
	w := new(wire).open(1).prompt(1, "a", `"k1"`).answer(1, "", -32603).prompt(1, "a", `"k1"`).answer(1, "m1", 0).
		prompt(1, "b", `"k2"`).answer(1, "", 429).prompt(1, "c", `"k3"`)
	if n := ErrorAnswers(w.frames); n != 2 {
		t.Fatalf("ErrorAnswers = %d, want 2", n)
	}
}
