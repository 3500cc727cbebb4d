package properties

import (
	"slices"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// misrouted: behind a hop that routes answers first in, first out instead of
// by id, two submissions of one text (s1, s2) and one of another (s3) are
// each inserted once (M1, M2, M3), but the answers cross: s1 gets M1, then
// for its retry M2, which is s2's; s2 gets M3, which is s3's; s3 gets
// nothing and is told unknown. The Agent inserted nothing twice: the fault
// is the wrong ids, not a duplicate of s1 and a loss of s2.
func misrouted() *tb {
	const other = "rename the parser"
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	b.submit("c1", "s2", text)
	b.submit("c1", "s3", other)
	id1 := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	b.answer(L1, id1, "M1")
	id2 := b.prompt(L1, "s2", S1, text, K2)
	b.insert(S1, "M2", text)
	id3 := b.prompt(L1, "s3", S1, other, "k3-77b0d3e4-1a2b")
	b.insert(S1, "M3", other)
	b.timer("c1")
	retry := b.prompt(L1, "s1", S1, text, K1)
	b.answer(L1, retry, "M2") // s2's answer, routed to the oldest waiting
	b.answer(L1, id2, "M3")   // s3's answer, routed to s2
	_ = id3
	b.outcome("c1", "s1", traces.OutcomeInserted, "M2")
	b.outcome("c1", "s2", traces.OutcomeInserted, "M3")
	b.outcome("c1", "s3", traces.OutcomeUnknown, "")
	b.observe("a1#1", sess{S1, []msg{{id: "M1", text: text}, {id: "M2", text: text}, {id: "M3", text: other}}})
	b.finish("quiet", L1, Obs1)
	return b
}

func TestMisroutedAnswersAreWrongIDNotDuplicate(t *testing.T) {
	r := misrouted().check()
	if got, want := slices.Compact(kindsOf(r)), []string{WrongID, BadReply}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v (s3 is never answered: bad-reply)\n%s", got, want, dump(r))
	}
}

// Without crossed answers the same two messages of s1 are a duplicate: s2,
// never answered, holds none, and nothing shows a misrouted answer.
func TestTwoMessagesOfOneSubmissionWithoutCrossedAnswersAreADuplicate(t *testing.T) {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	b.submit("c1", "s2", text)
	id1 := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	b.answer(L1, id1, "M1")
	b.prompt(L1, "s2", S1, text, K2)
	b.timer("c1")
	retry := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M2", text)
	b.answer(L1, retry, "M2")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M2")
	b.outcome("c1", "s2", traces.OutcomeUnknown, "")
	b.observe("a1#1", sess{S1, []msg{{id: "M1", text: text}, {id: "M2", text: text}}})
	b.finish("quiet", L1, Obs1)
	r := b.check()
	if !slices.Contains(kindsOf(r), Duplicate) {
		t.Fatalf("got %v, want a duplicate of s1\n%s", kindsOf(r), dump(r))
	}
}
