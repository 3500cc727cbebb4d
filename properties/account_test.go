package properties

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// inMemory is a run of an Agent that keeps its sessions in memory: a1#1
// creates S1 and inserts s1 (M1), told inserted; then, as the Clients
// stop, read says what the observer reads on c1's live connection before
// it closes ("": nothing; "replay": S1 with M1; "empty": S1 resumed with no
// replay; "forgot": session/close, then a resume answered -32002, both by
// a1#1). The observer's own process a1#2 knows no session.
func inMemory(read string) *tb {
	b := newTB("all")
	l := "c1>a1#1"
	b.restart("a1#1")
	b.connect(l)
	b.newSession(l, S1)
	b.submit("c1", "s1", "task s1")
	id := b.prompt(l, "s1", S1, "task s1", "K-s1")
	b.insert(S1, "M1", "task s1")
	b.userMsg(l, S1, "M1", "task s1")
	b.answer(l, id, "M1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.turn(l, S1, "OM1")
	b.add(traces.Event{Kind: traces.KindHeal})
	switch read {
	case "replay", "empty":
		id := b.nextID(l)
		frame := acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}})
		b.frameEvent(traces.KindSend, l, traces.ClientToAgent, string(frame), "", traces.NoteObserve)
		b.deliver(l, traces.ClientToAgent, frame, "")
		if read == "replay" {
			b.userMsg(l, S1, "M1", "task s1")
		}
		b.state(l, S1, acp.StateIdle)
		b.a2c(l, acp.Result(id, nil))
	case "forgot":
		close, frame := b.closeFrame(l, S1)
		b.c2a(l, frame, "")
		b.a2c(l, acp.Result(close, nil))
		id := b.nextID(l)
		b.c2a(l, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w"}), "")
		b.fail(l, id, acp.CodeResourceNotFound)
	}
	b.disconnect(l, "close")
	b.restart("a1#2")
	b.observe("a1#2")
	b.finish("quiet", traces.Observer+">a1#2")
	return b
}

func TestAccountOfAnInMemoryAgent(t *testing.T) {
	for _, tc := range []struct {
		read    string
		verdict string
		judged  int // lost judged for, of 1
		kinds   []string
		prose   string // in the verdict line or an explanation
	}{
		{"", VerdictInconclusive, 0, nil, "never silently lost could be judged for none of the 1 submission it applies to: their session ended with its Agent process"},
		{"replay", VerdictPass, 1, nil, "PASS: every submission inserted at most once and never silently lost"},
		{"empty", VerdictFail, 1, []string{Lost}, "the Agent replayed no user message at all although it had answered prompts in the session"},
		{"forgot", VerdictFail, 0, []string{SessionLost}, "vanished while its Agent process lived: a1#1 created it"},
	} {
		t.Run("read "+tc.read, func(t *testing.T) {
			r := inMemory(tc.read).check()
			v, line := r.Verdict()
			var kinds, prose []string
			for _, a := range r.Anomalies {
				kinds = append(kinds, a.Kind)
				prose = append(prose, a.Explanation)
			}
			if v != tc.verdict || strings.Join(kinds, ",") != strings.Join(tc.kinds, ",") {
				t.Fatalf("verdict %s (%s), anomalies %v; want %s, %v\n%s", v, line, kinds, tc.verdict, tc.kinds, strings.Join(prose, "\n"))
			}
			if lost := r.Account(Lost); lost.Of != 1 || lost.Judged != tc.judged {
				t.Errorf("lost: %s; want judged for %d of 1", lost.Line(), tc.judged)
			}
			if all := line + "\n" + strings.Join(prose, "\n"); !strings.Contains(all, tc.prose) {
				t.Errorf("want %q in:\n%s", tc.prose, all)
			}
		})
	}
}

// A tap's trace names no outcome and no transcript: its PASS line says it
// judged the frames only, never "never silently lost".
func TestTapVerdictNamesOnlyWhatItJudged(t *testing.T) {
	b := inMemory("replay")
	b.h.Observed = traces.ObservedAtTap
	r := b.check()
	v, line := r.Verdict()
	if v != VerdictPass || strings.Contains(line, "never silently lost") || !strings.Contains(line, "not judged on a tap's trace: lost") {
		t.Fatalf("tap verdict %s: %q", v, line)
	}
	if lost := r.Account(Lost); lost.Judged != 0 || len(lost.NotJudged) != 1 {
		t.Errorf("lost on a tap's trace: %s", lost.Line())
	}
}
