package properties

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// capped ends b's trace at the cap instead of quiet, as a run cut at its
// event budget does.
func capped(b *tb) *tb {
	b.evs[len(b.evs)-1].Note = traces.EndCap
	return b
}

// unreadTranscript: s1 was answered and told inserted(M1); then the run
// hit its cap while the observer was resuming S1, before the replay came:
// the transcript that would show M1 kept or lost was never read.
func unreadTranscript(outcome, end string) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	if outcome == traces.OutcomeInserted {
		b.insert(S1, "M1", text)
		b.answer(L1, id, "M1")
		b.userMsg(L1, S1, "M1", text)
		b.turn(L1, S1, "O1")
	}
	b.outcome("c1", "s1", outcome, map[string]string{traces.OutcomeInserted: "M1"}[outcome])
	b.add(traces.Event{Kind: traces.KindHeal})
	b.connect(Obs1)
	lid := b.nextID(Obs1)
	b.c2a(Obs1, acp.Request(lid, acp.MethodSessionList, acp.ListSessionsParams{}), "")
	b.a2c(Obs1, acp.Result(lid, acp.ListSessionsResult{Sessions: []acp.SessionInfo{{SessionID: S1, Cwd: "/w"}}}))
	b.c2a(Obs1, acp.Request(b.nextID(Obs1), acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}), "")
	if end != "" { // "": the trace is cut short here
		b.finish(end, L1, Obs1)
	}
	return b
}

// No verdict without a transcript: a submission whose loss only the
// observer's unread transcript could show is inconclusive at the cap,
// naming the session and why; what the frames show on their own, and a
// loss in a transcript that was read, are judged as in any run.
func TestNoVerdictWithoutATranscript(t *testing.T) {
	tests := []struct {
		name     string
		b        *tb
		kinds    []string
		unjudged string // what s1's inconclusive reason says, "" when judged
	}{
		{"told inserted, transcript unread at the cap", unreadTranscript(traces.OutcomeInserted, traces.EndCap), nil,
			"s1 (\"fix the tests\", key 1f0c9e2a…) cannot be checked: the observer could not read session 9a3f0c1e…'s transcript: the run hit its cap"},
		{"told nothing, transcript unread at the cap", unreadTranscript(traces.OutcomeAbandoned, traces.EndCap), nil,
			"the observer could not read session 9a3f0c1e…'s transcript: the run hit its cap"},
		{"transcript unread in a trace cut short", unreadTranscript(traces.OutcomeInserted, ""), nil,
			"the observer could not read session 9a3f0c1e…'s transcript: the trace has no end event"},
		// A run that ended quiet had nothing left to do: the Agent owed the
		// observer the transcript.
		{"transcript unread, run quiet", unreadTranscript(traces.OutcomeInserted, traces.EndQuiet), []string{Lost, BadReply}, ""},
		{"transcript read at the cap, message missing", single{emptyReplay: true, end: traces.EndCap}.build(), []string{Lost}, ""},
		{"duplicate at the cap", capped(crashRetry(false, "reinsert")), []string{Duplicate}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.b.check()
			checkWellFormed(t, tt.b, r)
			if got := kindsOf(r); !reflect.DeepEqual(got, tt.kinds) {
				t.Fatalf("anomalies %v, want %v\n%s", got, tt.kinds, dump(r))
			}
			if end := tt.b.evs[len(tt.b.evs)-1]; end.Kind == traces.KindEnd && end.Note == traces.EndQuiet {
				if r.Inconclusive {
					t.Errorf("a quiet run is inconclusive:\n%s", dump(r))
				}
			} else if !r.Inconclusive {
				t.Errorf("a run that stopped short is not inconclusive:\n%s", dump(r))
			}
			if tt.unjudged == "" {
				if len(r.Unjudged) > 0 {
					t.Fatalf("unjudged %v, want none\n%s", r.Unjudged, dump(r))
				}
				return
			}
			if len(r.Unjudged) != 1 || r.Unjudged[0].Sub != "s1" || r.Unjudged[0].Session != S1 || !strings.Contains(r.Unjudged[0].Why, tt.unjudged) {
				t.Fatalf("unjudged %+v, want s1 in session S1 saying %q\n%s", r.Unjudged, tt.unjudged, dump(r))
			}
			if text := dump(r); !strings.Contains(text, "- inconclusive: "+r.Unjudged[0].Why) || !strings.Contains(text, "inconclusive\n") {
				t.Errorf("the text report does not show s1 inconclusive in its row and its list:\n%s", text)
			}
		})
	}
}

// twoAgents: Clients c1 and c2 each use an Agent installation of their own
// (a1, a2), under the durable session contract, and each gets one prompt
// answered in its session (S1 on a1, S2 on a2). The observer reads a1 (a
// fresh a1#2, whose list names S1 only, as it should); its reading of a2
// is cut at the cap before a2's list is answered unless a2Read.
func twoAgents(a2Read bool) *tb {
	b := newTB("all")
	b.h.Contract.Sessions = traces.SessionsDurable
	for i, S := range []string{S1, S2} {
		n := fmt.Sprint(i + 1)
		link, sub, m := "c"+n+">a"+n+"#1", "s"+n, "M"+n
		b.restart("a" + n + "#1")
		b.connect(link)
		b.newSession(link, S)
		b.submit("c"+n, sub, "task "+sub)
		id := b.prompt(link, sub, S, "task "+sub, "K-"+sub)
		b.insert(S, m, "task "+sub)
		b.userMsg(link, S, m, "task "+sub)
		b.answer(link, id, m)
		b.outcome("c"+n, sub, traces.OutcomeInserted, m)
		b.turn(link, S, "O"+m)
	}
	b.restart("a1#2")
	b.observe("a1#2", sess{S1, []msg{{id: "M1", text: "task s1"}}})
	b.restart("a2#2")
	if a2Read {
		b.observe("a2#2", sess{S2, []msg{{id: "M2", text: "task s2"}}})
		b.finish(traces.EndQuiet, "c1>a1#1", "c2>a2#1", traces.Observer+">a1#2", traces.Observer+">a2#2")
		return b
	}
	obs := traces.Observer + ">a2#2"
	b.connect(obs)
	b.c2a(obs, acp.Request(b.nextID(obs), acp.MethodSessionList, acp.ListSessionsParams{}), "")
	b.finish(traces.EndCap, "c1>a1#1", "c2>a2#1", traces.Observer+">a1#2", obs)
	return b
}

// One Agent's session/list says nothing of another Agent's sessions: with
// a2's observer cut at the cap, a1's list, which rightly lacks S2, is no
// sign that S2 vanished; s2 is inconclusive, not session-lost.
func TestAnotherAgentsListIsNoSignASessionVanished(t *testing.T) {
	r := twoAgents(false).check()
	if len(r.Anomalies) > 0 {
		t.Fatalf("anomalies %v, want none\n%s", kindsOf(r), dump(r))
	}
	if len(r.Unjudged) != 1 || r.Unjudged[0].Sub != "s2" || !strings.Contains(r.Unjudged[0].Why, "the observer could not read session 2b7e11d0…'s transcript: the run hit its cap") {
		t.Fatalf("unjudged %+v, want s2 unread\n%s", r.Unjudged, dump(r))
	}
	if r := twoAgents(true).check(); len(r.Anomalies) > 0 || r.Inconclusive {
		t.Fatalf("the same run read whole: anomalies %v, inconclusive %v\n%s", kindsOf(r), r.Inconclusive, dump(r))
	}
}

func TestInconclusive(t *testing.T) {
	tests := []struct {
		name         string
		b            *tb
		kinds        []string
		inconclusive bool
		unjudged     string // what the one unjudged submission's reason says; "" for none
	}{
		{"unresolved at cap", single{outcome: "-", end: "cap"}.build(), nil, true, "never got an outcome: request 2 on c1>a1#1 delivered at 0.8ms, Agent answered messageId M1 at 1ms; the run hit its cap while it was still pending"},
		{"unresolved with no end event", single{outcome: "-", end: "-"}.build(), nil, true, "the trace has no end event while it was still pending"},
		{"unresolved when quiet", single{outcome: "-"}.build(), []string{Unresolved}, false, ""},
		{"pending request at cap", noReply("", "cap"), nil, true, ""},
		// A trace cut short while a request was pending on a live link:
		// every submission has its verdict, the run's does not.
		{"pending request with no end event", func() *tb {
			b := noReply("", traces.EndQuiet)
			b.evs = b.evs[:len(b.evs)-1] // the end event
			return b
		}(), nil, true, ""},
		// The simulator closes the links of a run cut at its cap while
		// they are busy: the Agent was not done, not silent.
		{"orderly-closed link at cap", noReply("close", "cap"), nil, true, ""},
		{"orderly-closed link when quiet is judged", noReply("close", "quiet"), []string{BadReply}, false, ""},
		// A run that hit its cap did not do what it was asked: judged, but no pass.
		{"a clean run that hit its cap", single{end: "cap"}.build(), nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.b.check()
			if got := kindsOf(r); !reflect.DeepEqual(got, tt.kinds) || r.Inconclusive != tt.inconclusive {
				t.Fatalf("got %v inconclusive %v, want %v %v\n%s", got, r.Inconclusive, tt.kinds, tt.inconclusive, dump(r))
			}
			if tt.unjudged == "" {
				if len(r.Unjudged) > 0 {
					t.Fatalf("unjudged %v, want none\n%s", r.Unjudged, dump(r))
				}
				return
			}
			if len(r.Unjudged) != 1 || r.Unjudged[0].Sub != "s1" || !strings.Contains(r.Unjudged[0].Why, tt.unjudged) {
				t.Fatalf("unjudged %v, want s1 saying %q\n%s", r.Unjudged, tt.unjudged, dump(r))
			}
			if !r.Submissions[0].Inconclusive || !strings.Contains(dump(r), "inconclusive: s1") {
				t.Errorf("the report does not show s1 inconclusive:\n%s", dump(r))
			}
		})
	}
}
