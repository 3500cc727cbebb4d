package properties

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// setupFailing: s1 is inserted and answered; the Agent is killed, and on the
// new connection every session/resume of S1 is answered -32603 'storage
// unavailable'; the Client gives up and tells s2, never sent, that it
// failed. After the heal the observer's resumes of S1 fail twice, then
// (recovers) the third one replays M1, or (not) fails as well.
func setupFailing(recovers bool) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	b.answer(L1, id, "M1")
	b.userMsg(L1, S1, "M1", text)
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.kill("a1#1")
	b.disconnect(L1, "killed")
	b.restart("a1#2")
	b.connect(L2)
	storageDown := acp.Errorf(acp.CodeInternalError, "storage unavailable")
	for range 3 {
		id := b.nextID(L2)
		b.c2a(L2, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w"}), "")
		b.a2c(L2, acp.ErrorResponse(id, storageDown))
	}
	b.submit("c1", "s2", "and the docs")
	b.outcome("c1", "s2", traces.OutcomeFailed, "")
	b.disconnect(L2, "close")

	b.add(traces.Event{Kind: traces.KindHeal})
	link := traces.Observer + ">a1#3"
	b.connect(link)
	lid := b.nextID(link)
	b.c2a(link, acp.Request(lid, acp.MethodSessionList, acp.ListSessionsParams{}), "")
	b.a2c(link, acp.Result(lid, acp.ListSessionsResult{Sessions: []acp.SessionInfo{{SessionID: S1, Cwd: "/w"}}}))
	for i := range 3 {
		id := b.nextID(link)
		b.c2a(link, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}), "")
		if i < 2 || !recovers {
			b.a2c(link, acp.ErrorResponse(id, storageDown))
			continue
		}
		b.userMsg(link, S1, "M1", text)
		b.state(link, S1, acp.StateIdle)
		b.a2c(link, acp.Result(id, nil))
	}
	b.finish("quiet", link)
	return b
}

// The anomaly is one line that names the request, the error and how often,
// and the submission it leaves unchecked; s1 is not reported lost as well.
func TestSetupFailedNamesTheFailingResume(t *testing.T) {
	r := setupFailing(false).check()
	if len(r.Anomalies) != 1 {
		t.Fatalf("want one setup-failed anomaly, got %v\n%s", kindsOf(r), dump(r))
	}
	a := r.Anomalies[0]
	for _, want := range []string{
		"session/resume of session " + abbrev{}.short(S1),
		"-32603 'storage unavailable' 3 times after healing (6 times in all)",
		"so s1 cannot be checked",
	} {
		if !strings.Contains(a.Explanation, want) {
			t.Errorf("explanation %q lacks %q", a.Explanation, want)
		}
	}
	if strings.Contains(a.Explanation, "\n") || a.Session != S1 {
		t.Errorf("want one line about session %s, got %+v", S1, a)
	}
	for _, s := range r.Submissions {
		if s.Sub == "s1" && (len(s.Anomalies) != 1 || s.Anomalies[0] != SetupFailed) {
			t.Errorf("s1's anomalies: %v, want [setup-failed]", s.Anomalies)
		}
	}
}

// A set-up that fails without a heal after it is judged over the whole
// trace; one that succeeded after its last error is no anomaly.
func TestSetupFailedNeedsNoSuccessAfterTheLastError(t *testing.T) {
	b := setupFailing(false)
	var noHeal []traces.Event
	for _, e := range b.evs {
		if e.Kind != traces.KindHeal {
			noHeal = append(noHeal, e)
		}
	}
	r := Check(b.h, noHeal)
	if got := kindsOf(r); len(got) != 1 || got[0] != SetupFailed || !strings.Contains(r.Anomalies[0].Explanation, "6 times after the start") {
		t.Errorf("without a heal event: %v\n%s", got, dump(r))
	}
	if r := setupFailing(true).check(); !r.OK() {
		t.Errorf("a resume that succeeds in the end: %v\n%s", kindsOf(r), dump(r))
	}
}
