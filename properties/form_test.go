package properties

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/acpsim/acpsim/traces"
)

// The facts of hand-written events (testdata/facts.txt): each case's input
// is trace events, one JSON object a line, read in order by one interner;
// its output is the facts they make, spelled out (Interner.factString).
// DigestDiff holds the facts of a digest to those of its bytes on every
// frame of the live runs; these cases hold the bytes' facts to what the
// frames say.
func TestFactsOfEvents(t *testing.T) {
	datadriven.RunTest(t, "testdata/facts.txt", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "facts" {
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
		}
		in := NewInterner(false)
		var b strings.Builder
		for i, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			var e traces.Event
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%s: input line %d: %v", d.Pos, i+1, err)
			}
			e.Seq = int64(i + 1)
			st := in.Step(&e)
			for _, x := range in.facts(&st, nil) {
				b.WriteString(in.factString(&x) + "\n")
			}
		}
		return b.String()
	})
}

// Every word a rule tests has a handle of its own: a word seeded twice, or
// left out of seededWords, would make two tests one.
func TestSeededWordsHaveTheirConstants(t *testing.T) {
	in := NewInterner(false)
	for w := wNone; w < wordsSeeded; w++ {
		if w != wNone && seededWords[w] == "" {
			t.Errorf("word %d has no string in seededWords", w)
		}
		if got := in.word(seededWords[w]); got != w {
			t.Errorf("%q has handle %d, want %d", seededWords[w], got, w)
		}
	}
}

// The switch that finds a seeded word without a hash knows every seeded
// word, and nothing else.
func TestSeededWordKnowsTheSeededWords(t *testing.T) {
	for w := wNone + 1; w < wordsSeeded; w++ {
		if got := seededWord(seededWords[w]); got != w {
			t.Errorf("%q reads as word %d, want %d", seededWords[w], got, w)
		}
	}
	for _, s := range []string{"", "agent_message_chunk", "session/prompt ", "Idle", "c1", "a1"} {
		if got := seededWord(s); got != wNone {
			t.Errorf("%q reads as seeded word %d, want none", s, got)
		}
	}
}

// Every event kind the checker reads has its seeded word, and no other
// kind does.
func TestKindWordsAreTheSeededKinds(t *testing.T) {
	for w := wSubmit; w <= wKill; w++ {
		if got := kindWord(seededWords[w]); got != w {
			t.Errorf("kind %q reads as word %d, want %d", seededWords[w], got, w)
		}
	}
	for _, k := range []string{traces.KindChoose, traces.KindInsert, traces.KindTimer, "", "send "} {
		if got := kindWord(k); got != wNone {
			t.Errorf("kind %q reads as word %d, want none", k, got)
		}
	}
}
