package properties

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The set-up rules' excuses and odd groups, each a trace judged through
// Check.

// setupRun is setupFailing's run (s1 inserted as M1 in S1, every resume of
// S1 after the kill answered -32603, the observer never reading S1) with
// one thing changed.
type setupRun struct {
	outcome, outcomeMsg string // s1's outcome: inserted M1 unless set
	liveOnly            bool   // s1's text is live-only under the contract
	vanished            bool   // a1#2 answers the Client's first resume -32002
	retry               bool   // s1 is sent again in S2, which the observer reads
	newFails            bool   // c2's session/new keeps failing after the heal
	noSession           bool   // the observer also resumes a session it does not name
	tries               int    // the observer's resumes of S1: 2 unless set
}

func (o setupRun) trace() *tb {
	b := newTB("all")
	if o.liveOnly {
		b.h.Contract.LiveOnly = []string{text[:3]}
	}
	if o.outcome == "" {
		o.outcome, o.outcomeMsg = traces.OutcomeInserted, "M1"
	}
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	b.answer(L1, id, "M1")
	if o.retry {
		id := b.prompt(L1, "s1", S2, text, K1)
		b.answer(L1, id, "M2")
	}
	b.outcome("c1", "s1", o.outcome, o.outcomeMsg)
	b.kill("a1#1")
	b.disconnect(L1, "killed")
	b.restart("a1#2")
	b.connect(L2)
	storageDown := acp.Errorf(acp.CodeInternalError, "storage unavailable")
	for i := range 3 {
		id := b.nextID(L2)
		b.c2a(L2, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w"}), "")
		if i == 0 && o.vanished {
			b.fail(L2, id, acp.CodeResourceNotFound)
			continue
		}
		b.a2c(L2, acp.ErrorResponse(id, storageDown))
	}
	b.disconnect(L2, "close")

	b.add(traces.Event{Kind: traces.KindHeal})
	const c2 = "c2>a1#3"
	if o.newFails {
		b.connect(c2)
		for range 2 {
			id := b.nextID(c2)
			b.c2a(c2, acp.Request(id, acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"}), "")
			b.a2c(c2, acp.ErrorResponse(id, acp.Errorf(acp.CodeInternalError, "%s", strings.Repeat("no disk ", 10))))
		}
	}
	link := traces.Observer + ">a1#3"
	b.connect(link)
	if o.tries == 0 {
		o.tries = 2
	}
	for range o.tries {
		id := b.nextID(link)
		b.c2a(link, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}), "")
		b.a2c(link, acp.ErrorResponse(id, storageDown))
		if o.noSession {
			id := b.nextID(link)
			b.c2a(link, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{Cwd: "/w"}), "")
			b.fail(link, id, acp.CodeInvalidParams)
		}
	}
	if o.retry {
		id := b.nextID(link)
		b.c2a(link, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S2, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}), "")
		b.userMsg(link, S2, "M2", text)
		b.state(link, S2, acp.StateIdle)
		b.a2c(link, acp.Result(id, nil))
	}
	links := []string{link}
	if o.newFails {
		links = append(links, c2)
	}
	b.finish("quiet", links...)
	return b
}

// setupReport is the report of o's run, its set-up anomalies' explanations
// and the kinds of its other anomalies.
func setupReport(o setupRun) (r *Report, setups, others []string) {
	r = o.trace().check()
	for _, a := range r.Anomalies {
		if a.Kind == SetupFailed {
			setups = append(setups, a.Explanation)
		} else {
			others = append(others, a.Kind)
		}
	}
	return r, setups, others
}

// A submission is unchecked only where nothing else excuses it: the
// contract, a vanished session, a transcript that was read.
func TestSetupUncheckedOnlyWhereNothingElseExcuses(t *testing.T) {
	for _, tt := range []struct {
		name      string
		o         setupRun
		unchecked bool
		others    []string
	}{
		{"inserted", setupRun{}, true, nil},
		{"abandoned", setupRun{outcome: traces.OutcomeAbandoned}, true, nil},
		{"told nothing of", setupRun{outcome: traces.OutcomeFailed}, false, nil},
		{"live-only", setupRun{liveOnly: true}, false, nil},
		{"its session vanished", setupRun{vanished: true}, false, nil},
		{"inserted in the session never read", setupRun{retry: true}, true, nil},
		{"inserted with no messageId, read in another session", setupRun{retry: true, outcomeMsg: "-"}, false, nil},
	} {
		o := tt.o
		if o.outcomeMsg == "-" {
			o.outcome, o.outcomeMsg = traces.OutcomeInserted, ""
		}
		r, setups, others := setupReport(o)
		if len(setups) != 1 {
			t.Errorf("%s: %d setup-failed anomalies, want 1\n%s", tt.name, len(setups), dump(r))
			continue
		}
		if got := strings.Contains(setups[0], "so s1 cannot be checked"); got != tt.unchecked {
			t.Errorf("%s: s1 unchecked %t, want %t: %s", tt.name, got, tt.unchecked, setups[0])
		}
		if !slices.Equal(others, tt.others) {
			t.Errorf("%s: other anomalies %v, want %v\n%s", tt.name, others, tt.others, dump(r))
		}
	}
}

// A Client's session/new that keeps failing is a group of its own, and a
// resume naming no session one of the session "".
func TestSetupGroupsOfAClientAndOfNoSession(t *testing.T) {
	r, setups, _ := setupReport(setupRun{newFails: true, noSession: true})
	want := []string{
		"session/new of c2 answered -32603 '" + clip(strings.Repeat("no disk ", 10), 60) + "' twice after healing",
		"session/resume of  answered -32602 'error -32602' twice after healing",
	}
	for _, w := range want {
		if !slices.ContainsFunc(setups, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("no set-up anomaly reads %q: %q\n%s", w, setups, dump(r))
		}
	}
}

// A set-up failing more than ten times after healing names the first ten
// answers and the last.
func TestSetupNamesTenAnswersAndTheLast(t *testing.T) {
	r, setups, _ := setupReport(setupRun{tries: 12})
	if len(setups) != 1 || !strings.Contains(setups[0], "12 times after healing (15 times in all)") || len(r.Anomalies[0].Events) != 11 {
		t.Errorf("want one set-up anomaly of 12 answers told by 11 events:\n%s", dump(r))
	}
}

// A v1 Agent without session/load answers it -32601: no transcript can be
// read, which excuses a submission before a failed set-up leaves it
// unchecked.
func TestSetupNoLoadExcusesBeforeUnchecked(t *testing.T) {
	b := newTB("all")
	const link, obs, S = "c1>a1#1", traces.Observer + ">a1#2", "s-1"
	for _, l := range []string{link, obs} {
		client, agent := ends(l)
		b.add(traces.Event{Kind: traces.KindConnect, Link: l, From: client, To: agent})
		b.c2a(l, acp.Request(acp.NumID(0), acp.MethodInitialize, acp.InitializeParamsV1{ProtocolVersion: 1}), "")
		b.a2c(l, acp.Result(acp.NumID(0), acp.InitializeResultV1{ProtocolVersion: 1}))
		if l == obs {
			break
		}
		b.c2a(l, acp.Request(acp.NumID(1), acp.MethodSessionNew, acp.NewSessionParamsV1{Cwd: "/w"}), "")
		b.a2c(l, acp.Result(acp.NumID(1), acp.NewSessionResult{SessionID: S}))
		b.submit("c1", "u1", text)
		b.c2a(l, acp.Request(acp.NumID(2), acp.MethodSessionPrompt, acp.PromptParams{SessionID: S, Prompt: []acp.ContentBlock{acp.Text(text)}}), "u1")
		b.a2c(l, acp.Result(acp.NumID(2), acp.PromptResultV1{StopReason: acp.StopEndTurn}))
		b.outcome("c1", "u1", traces.OutcomeInserted, "")
		b.add(traces.Event{Kind: traces.KindHeal})
	}
	for i, code := range []int{acp.CodeInternalError, acp.CodeMethodNotFound} {
		id := acp.NumID(int64(i + 1))
		b.c2a(obs, acp.Request(id, acp.MethodSessionLoad, acp.LoadSessionParams{SessionID: S, Cwd: "/w"}), "")
		b.fail(obs, id, code)
	}
	b.finish("quiet", link, obs)
	r := b.check()
	if r.Protocol != 1 || len(r.Anomalies) != 1 || r.Anomalies[0].Kind != SetupFailed || strings.Contains(r.Anomalies[0].Explanation, "cannot be checked") {
		t.Errorf("want v1 and one setup-failed naming nothing unchecked:\n%s", dump(r))
	}
}

// A session that passes through more processes than the session contract's
// rows list before they index them (hadScan), each answering
// its resume and two prompts in it, while the first process, still up on
// another link, answers one between each: every process had it once, and
// it survived, so sessions are durable.
func TestSetupSessionThroughManyProcesses(t *testing.T) {
	b := newTB("all")
	var texts []msg
	const first = "c2>a1#1"
	for i := 1; i <= hadScan+3; i++ {
		proc := "a1#" + strconv.Itoa(i)
		link := "c1>" + proc
		if i > 1 {
			b.restart(proc)
		}
		b.connect(link)
		if i > 1 {
			b.resume(link, S1)
		}
		for j := range 2 {
			sub := "s" + strconv.Itoa(2*i+j)
			msgID := "M" + strconv.Itoa(2*i+j)
			b.submit("c1", sub, sub)
			id := b.prompt(link, sub, S1, sub, nil)
			b.answer(link, id, msgID)
			b.outcome("c1", sub, traces.OutcomeInserted, msgID)
			texts = append(texts, msg{id: msgID, text: sub})
		}
		if i == 1 {
			b.connect(first)
		} else {
			// The first process, still up, answers in S1 again: a process
			// that had it, not the last one.
			sub, msgID := "s"+strconv.Itoa(100+i), "M"+strconv.Itoa(100+i)
			b.submit("c2", sub, sub)
			id := b.prompt(first, sub, S1, sub, nil)
			b.answer(first, id, msgID)
			b.outcome("c2", sub, traces.OutcomeInserted, msgID)
			texts = append(texts, msg{id: msgID, text: sub})
		}
		b.disconnect(link, "killed")
	}
	b.observe("a1#"+strconv.Itoa(hadScan+4), sess{S1, texts})
	b.finish("quiet", first, traces.Observer+">a1#"+strconv.Itoa(hadScan+4))
	r := b.check()
	if !r.OK() || r.Sessions.Chosen != traces.SessionsDurable {
		t.Errorf("want a durable pass:\n%s", dump(r))
	}
}
