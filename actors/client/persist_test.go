package client_test

// A Client restarted from its saved state (persist.go), under each
// policy, on the harness of policies_test.go.

import (
	"reflect"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/traces"
)

// A keyed Client restarted from its saved state resumes the sessions it
// knew (never creates them again) and resends each pending submission with
// the key it made at submission; request and timer ids start over.
func TestRestoreKeyedKeepsTheKey(t *testing.T) {
	pol := policy(t, "keyed")
	h := newHarness(t, pol, 2)
	h.ready()
	_, _, key, _ := promptOf(t, onlyPrompt(t, h.submit("pending", "one", 1)))
	done := onlyPrompt(t, h.submit("answered", "two", 0))
	h.receive(acp.Result(done.msg.ID, acp.PromptResult{MessageID: "m2"}))
	onlyPrompt(t, h.submit("sent-last", "three", 0))

	h2, saved := h.restart(harnessConfig(pol, 2), nil)
	if !reflect.DeepEqual(saved.Sessions, []string{"S0", "S1"}) {
		t.Errorf("saved sessions %v", saved.Sessions)
	}
	var ids []string
	for _, s := range saved.Subs {
		ids = append(ids, s.ID)
		if s.Attempts != 1 || s.Key == "" {
			t.Errorf("saved %+v, want one attempt and a key", s)
		}
	}
	if !reflect.DeepEqual(ids, []string{"pending", "sent-last"}) {
		t.Errorf("saved submissions %v, want the two unresolved in submission order", ids)
	}
	o := split(t, h2.c.Start())
	if o.connects != 1 || len(o.all) != 1 {
		t.Fatalf("Start: %+v", o.all)
	}
	o = h2.connected("conn-9")
	if o.sends[0].msg.ID != acp.NumID(1) {
		t.Errorf("first request id %s, want 1", o.sends[0].msg.ID)
	}
	o = h2.receive(acp.Result(o.sends[0].msg.ID, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion}))
	if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionResume, acp.MethodSessionResume}) {
		t.Fatalf("after initialize: %v, want two resumes (sessions survive the restart)", got)
	}
	r1 := o.sends[1]
	h2.receive(acp.Result(o.sends[0].msg.ID, struct{}{}))
	o = h2.receive(acp.Result(r1.msg.ID, struct{}{}))
	p := onlyPrompt(t, o)
	if sess, _, k, _ := promptOf(t, p); sess != "S1" || k != key || p.sub != "pending" {
		t.Errorf("resend after restart: %s key %q for %s, want S1 key %q", sess, k, p.sub, key)
	}
	// Ids start over in the new process: the timers so far are the two
	// resumes' answer timers and this prompt's timeout (a continued count
	// from the old process would be far higher).
	if len(o.timers) != 1 || o.timers[0].ID > 4 {
		t.Errorf("timers %+v, want ids starting over", o.timers)
	}
}

// The outcome a step produced reaches the user only when the host applies
// the step's outputs: a Client that dies before still holds it as pending.
func TestPersistedKeepsWhatTheUnappliedStepResolved(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.ready()
	p := onlyPrompt(t, h.submit("sub-1", "one", 0))
	h.receive(acp.Result(p.msg.ID, acp.PromptResult{MessageID: "m1"}))
	if s := h.c.Persisted().Subs; len(s) != 1 || s[0].ID != "sub-1" {
		t.Fatalf("right after the answer: %+v, want sub-1 still pending", s)
	}
	h.take(h.c.Timer(999)) // any later step: the outcome was applied
	if s := h.c.Persisted().Subs; len(s) != 0 {
		t.Fatalf("a step later: %+v, want nothing pending", s)
	}
}

// none keeps no attempt it may have sent: a restart drops those without a
// word (abandoned); a submission never sent is sent, in a session created
// only now if the old Client never learned its id.
func TestRestoreNoneAbandonsWhatItSent(t *testing.T) {
	pol := policy(t, "none")
	h := newHarness(t, pol, 2)
	h.c.Start()
	o := h.handshake("conn-1")
	h.receive(acp.Result(o.sends[0].msg.ID, acp.NewSessionResult{SessionID: "S0"}))
	onlyPrompt(t, h.submit("sent", "one", 0))
	if o := h.submit("unsent", "two", 1); len(o.all) != 0 {
		t.Fatalf("submit to a session not created yet: %+v", o.all)
	}
	h2, saved := h.restart(harnessConfig(pol, 2), nil)
	if !reflect.DeepEqual(saved.Sessions, []string{"S0", ""}) {
		t.Errorf("saved sessions %q", saved.Sessions)
	}
	o = split(t, h2.c.Start())
	if o.connects != 1 {
		t.Fatalf("Start: %+v", o.all)
	}
	outcomeIs(t, o, "sent", traces.OutcomeAbandoned, "")
	o = h2.handshake("conn-2")
	if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionResume, acp.MethodSessionNew}) {
		t.Fatalf("after restart: %v, want resume S0 and a new session 1", got)
	}
	if o := h2.receive(acp.Result(o.sends[0].msg.ID, struct{}{})); len(o.all) != 0 {
		t.Errorf("S0 resumed: %+v, want nothing (none does not resend)", o.all)
	}
	p := onlyPrompt(t, h2.receive(acp.Result(o.sends[1].msg.ID, acp.NewSessionResult{SessionID: "S1"})))
	if sess, text, _, _ := promptOf(t, p); sess != "S1" || text != "two" {
		t.Errorf("unsent prompt after restart: %s %q", sess, text)
	}
}

// A restored lookup Client looks up what it may have sent, and claims a
// message a response had named for that very submission (the step that read
// the response died before telling the user).
func TestRestoreLookupLooksUpFirst(t *testing.T) {
	pol := policy(t, "lookup")
	h := newHarness(t, pol, 1)
	h.ready()
	p := onlyPrompt(t, h.submit("sub-1", "one", 0))
	h.receive(acp.Result(p.msg.ID, acp.PromptResult{MessageID: "m1"}))
	h2, saved := h.restart(harnessConfig(pol, 1), nil)
	if len(saved.Attributed) != 1 || saved.Attributed[0] != (client.SavedMessage{Session: "S0", MessageID: "m1", Sub: "sub-1"}) {
		t.Fatalf("saved attributions %+v", saved.Attributed)
	}
	h2.c.Start()
	o := h2.handshake("conn-2")
	if len(o.sends) != 1 || !replaysFromStart(resumeOf(t, o.sends[0])) {
		t.Fatalf("after restart: %v, want a resume with replay", o.methods())
	}
	h2.receive(userMessage("S0", "m1", "one"))
	outcomeIs(t, h2.receive(acp.Result(o.sends[0].msg.ID, struct{}{})), "sub-1", traces.OutcomeInserted, "m1")
}

// Keys stay bound after their submissions are resolved, so a restarted
// Client never makes one again in its session, even when it deliberately
// reuses another session's key.
func TestRestoreNeverRemakesAKeyInItsSession(t *testing.T) {
	for _, how := range []string{"persisted", "died"} {
		t.Run(how, func(t *testing.T) { restoreNeverRemakesAKey(t, how == "died") })
	}
}

func restoreNeverRemakesAKey(t *testing.T, died bool) {
	pol := policy(t, "keyed")
	h := newHarness(t, pol, 2)
	h.intN = func(int) int { return 0 } // always try to reuse, exactly
	h.ready()
	a := onlyPrompt(t, h.submit("a", "one", 0))
	_, _, ka, _ := promptOf(t, a)
	h.receive(acp.Result(a.msg.ID, acp.PromptResult{MessageID: "m1"}))
	_, _, kb, _ := promptOf(t, onlyPrompt(t, h.submit("b", "two", 1)))
	if kb != ka {
		t.Fatalf("b's key %q, want a's %q reused across sessions", kb, ka)
	}
	h.take(h.c.Timer(999))
	saved := h.c.Persisted()
	if died {
		saved = h.c.Died()
	}
	h2, saved := h.restartFrom(harnessConfig(pol, 2), nil, saved)
	if len(saved.Keys) != 2 {
		t.Fatalf("saved keys %+v, want both", saved.Keys)
	}
	h2.c.Start()
	o := h2.handshake("conn-2")
	h2.receive(acp.Result(o.sends[0].msg.ID, struct{}{}))
	h2.receive(acp.Result(o.sends[1].msg.ID, struct{}{}))
	_, _, kc, _ := promptOf(t, onlyPrompt(t, h2.submit("c", "three", 0)))
	if kc == ka {
		t.Errorf("c in session 0 got key %q, already a's there", kc)
	}
}
