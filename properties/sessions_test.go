package properties

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Sessions besides S1, for the session contract's traces.
const (
	S2 = "2b7e11d0-5d7b-4e11-8c2a-7f00aa000002"
	S3 = "3c5a9f42-5d7b-4e11-8c2a-7f00aa000003"
)

// restarted is a run whose first Agent process dies with the sessions it
// created: a1#1 creates sessions S1 and S2 and answers a prompt in each
// (s1, s2), is killed while s3 is pending in S1, and a1#2 answers the
// Client's session/resume of S1 -32002 (session unknown). The Client starts
// S3 and sends s3 there again with its key, as T3b says it must. The
// observer reads a1#3. keep lists the sessions a1#2 and a1#3 still know
// (a durable Agent: S1 and S2; one whose processes clobber each other's
// writes: S2 only; an in-memory one: none).
func restarted(contract string, keep ...string) *tb {
	b := newTB("all")
	b.h.Contract.Sessions = contract
	kept := func(S string) bool { return strings.Contains(strings.Join(keep, " "), S) }
	l1, l2 := "c1>a1#1", "c1>a1#2"
	b.restart("a1#1")
	b.connect(l1)
	b.newSession(l1, S1)
	b.newSession(l1, S2)
	for i, S := range []string{S1, S2} {
		sub, m := fmt.Sprintf("s%d", i+1), fmt.Sprintf("M%d", i+1)
		b.submit("c1", sub, "task "+sub)
		id := b.prompt(l1, sub, S, "task "+sub, "K-"+sub)
		b.insert(S, m, "task "+sub)
		b.userMsg(l1, S, m, "task "+sub)
		b.answer(l1, id, m)
		b.outcome("c1", sub, traces.OutcomeInserted, m)
		b.turn(l1, S, "O"+m)
	}
	b.submit("c1", "s3", "task s3")
	b.prompt(l1, "s3", S1, "task s3", "K-s3")
	b.kill("a1#1")
	b.disconnect(l1, "kill")
	b.restart("a1#2")
	b.connect(l2)
	S := S1
	if !kept(S1) {
		id := b.nextID(l2)
		b.c2a(l2, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w"}), "")
		b.fail(l2, id, acp.CodeResourceNotFound)
		S = S3
		b.newSession(l2, S3)
	} else {
		b.resume(l2, S1)
	}
	id := b.prompt(l2, "s3", S, "task s3", "K-s3")
	b.userMsg(l2, S, "M3", "task s3")
	b.answer(l2, id, "M3")
	b.outcome("c1", "s3", traces.OutcomeInserted, "M3")
	b.turn(l2, S, "OM3")
	b.disconnect(l2, "close")
	b.restart("a1#3")
	var read []sess
	if kept(S1) {
		read = append(read, sess{S1, []msg{{id: "M1", text: "task s1"}, {id: "M3", text: "task s3"}}})
	}
	if kept(S2) {
		read = append(read, sess{S2, []msg{{id: "M2", text: "task s2"}}})
	}
	if kept(S3) {
		read = append(read, sess{S3, []msg{{id: "M3", text: "task s3"}}})
	}
	b.observe("a1#3", read...)
	b.finish("quiet", traces.Observer+">a1#3")
	return b
}

// newSession sends session/new on link and has the Agent answer session.
func (b *tb) newSession(link, session string) {
	id := b.nextID(link)
	b.c2a(link, acp.Request(id, acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"}), "")
	b.a2c(link, acp.Result(id, acp.NewSessionResult{SessionID: session}))
}

func init() {
	pairs = append(pairs, struct {
		name      string
		kind      string
		bad, good func() *tb
		want      []string
	}{"a session unknown after a restart while another survived", SessionLost,
		func() *tb { return restarted("", S2, S3) }, func() *tb { return restarted("", S1, S2) },
		[]string{SessionLost}})
}

func TestSessionContract(t *testing.T) {
	tests := []struct {
		name   string
		b      *tb
		kinds  []string
		line   string   // the report's contract line
		prose  []string // in the session-lost explanations
		chosen string
	}{
		{"sessions in memory, contract auto: they live with their process", restarted(""), nil,
			"auto → process: 0 of 3 sessions survived 2 restarts: sessions live with their process", nil, traces.SessionsProcess},
		{"sessions in memory, contract process", restarted(traces.SessionsProcess), nil,
			"process: sessions live with their process (as asked); 0 of 3 sessions survived 2 restarts", nil, traces.SessionsProcess},
		{"sessions in memory, contract durable: one session-lost per session, no lost per message", restarted(traces.SessionsDurable),
			[]string{SessionLost, SessionLost, SessionLost}, "durable: sessions must survive restarts (as asked); 0 of 3 sessions survived 2 restarts",
			[]string{"session " + abbrev{}.short(S1) + " vanished after the restart of a1#2: its last prompt was answered by a1#1 (request 4 on c1>a1#1 at 2.1ms)", "a1#2, started at 5ms,", "answered session/resume of it -32002",
				"session " + abbrev{}.short(S2) + " vanished after the restart of a1#3", "did not name it in the observer's session/list", "sessions must survive restarts"}, traces.SessionsDurable},
		{"stored sessions, contract auto: durable", restarted("", S1, S2), nil,
			"auto → durable: 2 of 2 sessions survived 2 restarts: sessions outlive their process", nil, traces.SessionsDurable},
		{"one session clobbered, contract auto: durable, and it is lost", restarted("", S2, S3),
			[]string{SessionLost}, "auto → durable: 2 of 3 sessions survived 2 restarts: sessions outlive their process",
			[]string{"2 other sessions survived a restart, so sessions are stored"}, traces.SessionsDurable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.b.check()
			if got := kindsOf(r); !reflect.DeepEqual(got, tt.kinds) {
				t.Fatalf("kinds %v, want %v\n%s", got, tt.kinds, dump(r))
			}
			checkWellFormed(t, tt.b, r)
			if got := r.Sessions.Line(); got != tt.line {
				t.Errorf("contract line %q, want %q", got, tt.line)
			}
			if r.Sessions.Chosen != tt.chosen {
				t.Errorf("chosen %q, want %q", r.Sessions.Chosen, tt.chosen)
			}
			var all strings.Builder
			for _, a := range r.Anomalies {
				all.WriteString(a.Explanation + "\n")
			}
			for _, p := range tt.prose {
				if !strings.Contains(all.String(), p) {
					t.Errorf("explanations lack %q:\n%s", p, all.String())
				}
			}
			if !strings.Contains(dump(r), "session contract: "+tt.line) {
				t.Errorf("text report lacks the contract line:\n%s", dump(r))
			}
		})
	}
}

// Without a session-lost report, the same vanished session under durable
// would be one lost per message: the session contract must not hide a
// message lost from a session that survived.
func TestSessionContractStillFindsLostMessages(t *testing.T) {
	b := restarted("", S1, S2)
	// Drop M1 from the observer's replay of S1, which survived.
	var evs []traces.Event
	for _, e := range b.evs {
		if e.Link == traces.Observer+">a1#3" && strings.Contains(e.Frame, `"messageId":"M1"`) {
			continue
		}
		evs = append(evs, e)
	}
	for i := range evs {
		evs[i].Seq = int64(i + 1)
	}
	r := Check(b.h, evs)
	if got := kindsOf(r); !reflect.DeepEqual(got, []string{Lost}) {
		t.Fatalf("kinds %v, want [lost]\n%s", got, dump(r))
	}
}
