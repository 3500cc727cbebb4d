package properties

import (
	"fmt"
	"slices"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Edges of the session contract no pinned trace reaches; each is judged
// through Check.

// promptIn has the Client's sub answered with message m in session S on link.
func (b *tb) promptIn(link, sub, S, m string) {
	b.submit("c1", sub, "task "+sub)
	id := b.prompt(link, sub, S, "task "+sub, "K-"+sub)
	b.insert(S, m, "task "+sub)
	b.userMsg(link, S, m, "task "+sub)
	b.answer(link, id, m)
	b.outcome("c1", sub, traces.OutcomeInserted, m)
}

// A session held by more processes than a session lists before its map
// (hadScan) counts each once, one that shows it again included.
func TestASessionManyProcessesHadSurvivesOnce(t *testing.T) {
	b := newTB("all")
	link := func(i int) string { return fmt.Sprintf("c1>a1#%d", i) }
	var links []string
	for i := 1; i <= hadScan+2; i++ {
		b.restart(fmt.Sprint("a1#", i))
		b.connect(link(i))
		links = append(links, link(i))
		if i == 1 {
			b.newSession(link(i), S1)
		} else {
			b.resume(link(i), S1)
		}
		if i == hadScan || i == hadScan+2 {
			// An early process, still up, answers in it again: with
			// exactly hadScan processes had, and past them.
			b.promptIn(link(2), fmt.Sprint("s", i), S1, fmt.Sprint("M", i))
		}
	}
	b.listAndRead(fmt.Sprint("a1#", hadScan+2), []string{S1}, sess{S1, []msg{{id: fmt.Sprint("M", hadScan), text: fmt.Sprintf("task s%d", hadScan)}, {id: fmt.Sprint("M", hadScan+2), text: fmt.Sprintf("task s%d", hadScan+2)}}})
	b.finish("quiet", append(links, traces.Observer+">a1#"+fmt.Sprint(hadScan+2))...)
	r := b.check()
	if got := r.Sessions; got.Sessions != 1 || got.Survived != 1 || got.Vanished != 0 || got.VanishedAlive != 0 || slices.Contains(kindsOf(r), SessionLost) {
		t.Errorf("contract %+v, kinds %v; want one session that survived and none vanished\n%s", got, kindsOf(r), dump(r))
	}
}

// A process that answered a resume of a session -32002 and then had it
// (resumed it after all) shows no process started after it lost the
// session: under durable it did not vanish.
func TestASessionUnknownThenHadBySameProcessDidNotVanish(t *testing.T) {
	b := newTB("all")
	b.h.Contract.Sessions = traces.SessionsDurable
	l1, l2 := "c1>a1#1", "c1>a1#2"
	b.restart("a1#1")
	b.connect(l1)
	b.newSession(l1, S1)
	b.promptIn(l1, "s1", S1, "M1")
	b.kill("a1#1")
	b.disconnect(l1, "kill")
	b.restart("a1#2")
	b.connect(l2)
	id := b.nextID(l2)
	b.c2a(l2, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w"}), "")
	b.fail(l2, id, acp.CodeResourceNotFound)
	b.resume(l2, S1)
	b.promptIn(l2, "s2", S1, "M2")
	b.listAndRead("a1#2", []string{S1}, sess{S1, []msg{{id: "M1", text: "task s1"}, {id: "M2", text: "task s2"}}})
	b.finish("quiet", l2, traces.Observer+">a1#2")
	r := b.check()
	if got := r.Sessions; got.Vanished != 0 || got.VanishedAlive != 0 || got.Survived != 1 {
		t.Errorf("contract %+v; want S1 survived, none vanished\n%s", got, dump(r))
	}
}

// The observer's list on the very process it then reads a session from says
// nothing of that session: it lacks S1, yet S1's replay comes from it.
func TestAListLackingASessionReadFromTheSameProcessSaysNothing(t *testing.T) {
	b := newTB("all")
	l1 := "c1>a1#1"
	b.restart("a1#1")
	b.connect(l1)
	b.newSession(l1, S1)
	b.promptIn(l1, "s1", S1, "M1")
	b.listAndRead("a1#1", nil, sess{S1, []msg{{id: "M1", text: "task s1"}}})
	b.finish("quiet", l1, traces.Observer+">a1#1")
	r := b.check()
	if got := r.Sessions; got.Vanished != 0 || got.VanishedAlive != 0 || slices.Contains(kindsOf(r), SessionLost) {
		t.Errorf("contract %+v, kinds %v; want none vanished\n%s", got, kindsOf(r), dump(r))
	}
}

// Under durable, a session that vanished is one session-lost only when the
// Agent had answered a prompt in it: one it never answered in vanished with
// nothing of it to lose, though it counts among the vanished.
func TestAVanishedSessionWithNoPromptAnsweredIsNoLoss(t *testing.T) {
	b := newTB("all")
	b.h.Contract.Sessions = traces.SessionsDurable
	l1 := "c1>a1#1"
	b.restart("a1#1")
	b.connect(l1)
	b.newSession(l1, S1)
	b.newSession(l1, S2)
	b.resume(l1, S2) // the Client names S2, but never prompts in it
	b.promptIn(l1, "s1", S1, "M1")
	b.kill("a1#1")
	b.disconnect(l1, "kill")
	b.restart("a1#2")
	b.listAndRead("a1#2", nil)
	b.finish("quiet", traces.Observer+">a1#2")
	r := b.check()
	if got := r.Sessions; got.Vanished != 2 || got.VanishedAlive != 0 || !slices.Equal(kindsOf(r), []string{SessionLost}) || r.Anomalies[0].Session == S2 {
		t.Errorf("contract %+v, kinds %v; want two vanished, one session-lost (S1's)\n%s", got, kindsOf(r), dump(r))
	}
}
