package client_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/traces"
)

// clock is a virtual clock the tests move by hand.
type clock struct{ now time.Duration }

// newHarnessWith is newHarness with a clock and a changed Config.
func newHarnessWith(t *testing.T, pol client.Policy, sessions int, clk *clock, edit func(*client.Config)) *harness {
	h := &harness{t: t, pol: pol, timers: map[int]client.Output{}, intN: func(n int) int { return n - 1 }}
	cfg := harnessConfig(pol, sessions)
	if edit != nil {
		edit(&cfg)
	}
	h.c = client.New(cfg, h.env(clk))
	return h
}

func harnessConfig(pol client.Policy, sessions int) client.Config {
	return client.Config{Name: "client-1", Policy: pol, Sessions: sessions, Cwd: "/work", Timeout: timeout, Backoff: backoff}
}

func (h *harness) env(clk *clock) client.Env {
	env := client.Env{
		NewID: func() string { h.keys++; return fmt.Sprintf("key-%d", h.keys) },
		IntN:  func(n int) int { return h.intN(n) },
		Draw:  h.draw,
	}
	if clk != nil {
		env.Now = func() time.Duration { return clk.now }
	}
	return env
}

// restart is the Client process dying after its last step and starting
// again from what it saved: a new harness around the restored Client, with
// the same key stream and no timers.
func (h *harness) restart(cfg client.Config, clk *clock) (*harness, client.Saved) {
	return h.restartFrom(cfg, clk, h.c.Persisted())
}

// restartFrom restarts the Client from saved: Persisted, or Died (whose
// indexes the restored Client takes over, as the simulator restarts one).
func (h *harness) restartFrom(cfg client.Config, clk *clock, saved client.Saved) (*harness, client.Saved) {
	h2 := &harness{t: h.t, pol: h.pol, timers: map[int]client.Output{}, keys: h.keys, intN: h.intN, draws: h.draws}
	h2.c = client.Restore(cfg, h2.env(clk), saved)
	return h2, saved
}

func update(session string, u acp.Update) []byte {
	return acp.Notification(acp.MethodSessionUpdate, acp.SessionUpdateParams{SessionID: session, Update: u})
}

func userMessage(session, id, text string) []byte {
	return update(session, acp.MessageUpdate(acp.UpdateUserMessage, id, text))
}

func outcomeIs(t *testing.T, o outs, sub, outcome, messageID string) {
	t.Helper()
	want := []client.Output{{Kind: client.OutOutcome, Sub: sub, Outcome: outcome, MessageID: messageID}}
	if !reflect.DeepEqual(o.outcomes, want) {
		t.Fatalf("outcomes %+v, want %+v", o.outcomes, want)
	}
}

// reconnect drops conn-N and comes back on next: it returns the outputs
// of the initialize answer (the session requests).
func (h *harness) reconnect(next string) outs {
	h.t.Helper()
	o := h.take(h.c.Disconnected(h.conn))
	var reconnect int
	for _, tm := range o.timers {
		if tm.After == backoff {
			reconnect = tm.ID
		}
	}
	h.fire(reconnect)
	return h.handshake(next)
}

func TestPoliciesAreData(t *testing.T) {
	for _, name := range []string{"bounded", "stale", "lookup", "resend-before-resume"} {
		p := policy(t, name)
		if !p.Resend {
			t.Errorf("%s does not resend", name)
		}
	}
	if p := policy(t, "lookup"); p.Keyed || !p.Lookup {
		t.Errorf("lookup = %+v, want no key and Lookup", p)
	}
	bad := 0
	for _, p := range client.Policies {
		if p.Catches != "" {
			bad++
			if p.Doc[:len("known-bad")] != "known-bad" {
				t.Errorf("%s catches %s but its Doc does not say known-bad: %q", p.Name, p.Catches, p.Doc)
			}
		}
	}
	if bad != 1 || policy(t, "resend-before-resume").Catches != "phantom" {
		t.Errorf("want exactly one known-bad Client, resend-before-resume, caught as phantom")
	}
}

// bounded sends a submission at most MaxAttempts times, always with its
// key, then tells the user it does not know the outcome.
func TestBoundedGivesUpAfterMaxAttempts(t *testing.T) {
	for _, max := range []int{0, 2} {
		t.Run(fmt.Sprint("max=", max), func(t *testing.T) {
			want := max
			if want == 0 {
				want = client.DefaultMaxAttempts
			}
			h := newHarnessWith(t, policy(t, "bounded"), 1, nil, func(c *client.Config) { c.MaxAttempts = max })
			h.ready()
			o := h.submit("sub-1", "hi", 0)
			first := onlyPrompt(t, o)
			_, _, key, keyed := promptOf(t, first)
			if !keyed {
				t.Fatal("bounded sent no key")
			}
			for attempt := 2; attempt <= want; attempt++ {
				o = h.fire(h.promptTimer(o))
				if _, _, k, _ := promptOf(t, onlyPrompt(t, o)); k != key {
					t.Fatalf("attempt %d with key %q, want %q", attempt, k, key)
				}
			}
			o = h.fire(h.promptTimer(o))
			if len(o.sends) != 0 {
				t.Fatalf("attempt %d sent: %v", want+1, o.methods())
			}
			outcomeIs(t, o, "sub-1", traces.OutcomeUnknown, "")
			if h.c.Pending() {
				t.Error("Pending() after giving up")
			}
			// A late answer changes nothing the user was told.
			if o := h.receive(acp.Result(first.msg.ID, acp.PromptResult{MessageID: "m"})); len(o.all) != 0 {
				t.Errorf("late answer after giving up: %+v", o.all)
			}
		})
	}
}

// An attempt lost with its connection counts, and the give-up comes when
// it is lost, not after the next reconnect.
func TestBoundedGivesUpOnDisconnect(t *testing.T) {
	h := newHarnessWith(t, policy(t, "bounded"), 1, nil, func(c *client.Config) { c.MaxAttempts = 2 })
	h.ready()
	onlyPrompt(t, h.submit("sub-1", "hi", 0))
	o := h.reconnect("conn-2")
	onlyPrompt(t, h.receive(acp.Result(o.sends[0].msg.ID, struct{}{})))
	o = h.take(h.c.Disconnected("conn-2"))
	outcomeIs(t, o, "sub-1", traces.OutcomeUnknown, "")
}

// stale resends a prompt while it is young and shows it to the user once it
// has been pending StaleAfter (the RFD's SHOULD).
func TestStaleShowsAnOldPromptInsteadOfResending(t *testing.T) {
	clk := &clock{}
	h := newHarnessWith(t, policy(t, "stale"), 1, clk, nil)
	h.ready()
	o := h.submit("sub-1", "hi", 0)
	_, _, key, _ := promptOf(t, onlyPrompt(t, o))
	clk.now = 250 * time.Millisecond
	o = h.fire(h.promptTimer(o))
	if _, _, k, _ := promptOf(t, onlyPrompt(t, o)); k != key {
		t.Fatalf("young resend with key %q, want %q", k, key)
	}
	clk.now = client.DefaultStaleAfter
	o = h.fire(h.promptTimer(o))
	if len(o.sends) != 0 {
		t.Fatalf("stale prompt resent: %v", o.methods())
	}
	outcomeIs(t, o, "sub-1", traces.OutcomeUnknown, "")
}

// A prompt that turned stale while its connection was down is shown after
// the session is back, not resent; one never sent is sent however old.
func TestStaleAcrossAReconnect(t *testing.T) {
	clk := &clock{}
	h := newHarnessWith(t, policy(t, "stale"), 2, clk, func(c *client.Config) { c.StaleAfter = time.Second })
	h.ready()
	onlyPrompt(t, h.submit("sent", "one", 0))
	o := h.take(h.c.Disconnected("conn-1"))
	if len(o.outcomes) != 0 {
		t.Fatalf("young prompt given up on disconnect: %+v", o.outcomes)
	}
	h.submit("unsent", "two", 1)
	clk.now = 2 * time.Second
	h.fire(o.timers[0].ID)
	o = h.handshake("conn-2")
	o1 := h.receive(acp.Result(o.sends[0].msg.ID, struct{}{}))
	if len(o1.sends) != 0 {
		t.Fatalf("stale prompt resent after resume: %v", o1.methods())
	}
	outcomeIs(t, o1, "sent", traces.OutcomeUnknown, "")
	o2 := h.receive(acp.Result(o.sends[1].msg.ID, struct{}{}))
	if _, text, _, _ := promptOf(t, onlyPrompt(t, o2)); text != "two" {
		t.Errorf("first attempt of an old, never sent prompt: %q", text)
	}
}

func resumeOf(t *testing.T, s sent) acp.ResumeSessionParams {
	t.Helper()
	if s.msg.Method != acp.MethodSessionResume {
		t.Fatalf("want session/resume, got %s", s.msg.Method)
	}
	return params[acp.ResumeSessionParams](t, s)
}

func replaysFromStart(p acp.ResumeSessionParams) bool {
	return p.ReplayFrom != nil && p.ReplayFrom.Type == acp.ReplayStart
}

// After a timeout, lookup resumes the session with replay on the same
// connection and, finding a user message with its text that is nobody
// else's, reports it inserted without sending the prompt again.
func TestLookupFindsItsMessageInTheReplay(t *testing.T) {
	h := newHarness(t, policy(t, "lookup"), 1)
	h.ready()
	o := h.submit("sub-1", "fix it", 0)
	if _, _, _, keyed := promptOf(t, onlyPrompt(t, o)); keyed {
		t.Fatal("lookup sent a key")
	}
	o = h.fire(h.promptTimer(o))
	if len(o.sends) != 1 || !replaysFromStart(resumeOf(t, o.sends[0])) || resumeOf(t, o.sends[0]).SessionID != "S0" {
		t.Fatalf("after the timeout: %v, want one session/resume of S0 with replayFrom start", o.methods())
	}
	resume := o.sends[0]
	// Submissions wait while the session is being looked up.
	if o := h.submit("sub-2", "later", 0); len(o.all) != 0 {
		t.Fatalf("Submit during the lookup: %+v", o.all)
	}
	for _, f := range [][]byte{
		userMessage("S0", "m0", "fix"),                                                                              // another text, a prefix of ours
		update("S0", acp.ChunkUpdate(acp.UpdateUserMessageChunk, "m1", "fix ")),                                     // ours, in chunks
		update("S0", acp.ChunkUpdate(acp.UpdateUserMessageChunk, "m1", "it")),                                       //
		update("S0", acp.MessageUpdate(acp.UpdateAgentMessage, "a1", "fix it")),                                     // not a user message
		update("S0", acp.StateUpdate(acp.StateIdle, "")),                                                            //
		userMessage("S9", "m2", "fix it"),                                                                           // another session
		update("S0", acp.Update{Kind: acp.UpdateUserMessage, Content: []byte(`[{"type":"text","text":"fix it"}]`)}), // no id
	} {
		if o := h.receive(f); len(o.all) != 0 {
			t.Fatalf("replayed %s: %+v", f, o.all)
		}
	}
	o = h.receive(acp.Result(resume.msg.ID, struct{}{}))
	outcomeIs(t, o, "sub-1", traces.OutcomeInserted, "m1")
	if _, text, _, _ := promptOf(t, onlyPrompt(t, o)); text != "later" {
		t.Errorf("after the lookup sent %q, want the waiting \"later\"", text)
	}
}

// Not in the replay: the prompt is sent again, without a key. (It may be
// held by a busy Agent and inserted later: lookup cannot tell "not inserted
// yet" from "never arrived", the RFD's objection.)
func TestLookupResendsWhenTheReplayLacksIt(t *testing.T) {
	h := newHarness(t, policy(t, "lookup"), 1)
	h.ready()
	o := h.submit("sub-1", "fix it", 0)
	o = h.fire(h.promptTimer(o))
	h.receive(userMessage("S0", "m0", "something else"))
	o = h.receive(acp.Result(o.sends[0].msg.ID, struct{}{}))
	p := onlyPrompt(t, o)
	if _, text, _, keyed := promptOf(t, p); text != "fix it" || keyed || p.sub != "sub-1" {
		t.Errorf("resend %q keyed=%v for %s", text, keyed, p.sub)
	}
	if len(o.outcomes) != 0 {
		t.Errorf("outcomes %+v", o.outcomes)
	}
}

// A message some response attributed to another submission is never
// claimed, even with the same text; the next one with the text is.
func TestLookupNeverClaimsAnotherSubmissionsMessage(t *testing.T) {
	h := newHarness(t, policy(t, "lookup"), 1)
	h.ready()
	a := onlyPrompt(t, h.submit("a", "same", 0))
	h.receive(acp.Result(a.msg.ID, acp.PromptResult{MessageID: "m1"}))
	o := h.submit("b", "same", 0)
	o = h.fire(h.promptTimer(o))
	h.receive(userMessage("S0", "m1", "same"))
	o = h.receive(acp.Result(o.sends[0].msg.ID, struct{}{}))
	if len(o.outcomes) != 0 || len(o.sends) != 1 {
		t.Fatalf("lookup with only a's message: %+v, want a resend", o.all)
	}
	o = h.fire(h.promptTimer(o))
	h.receive(userMessage("S0", "m1", "same"))
	h.receive(userMessage("S0", "m2", "same"))
	o = h.receive(acp.Result(o.sends[0].msg.ID, struct{}{}))
	outcomeIs(t, o, "b", traces.OutcomeInserted, "m2")
}

// After a reconnect, the resume of a session with a prompt in doubt asks for
// replay; the other session's resume does not.
func TestLookupAfterAReconnect(t *testing.T) {
	h := newHarness(t, policy(t, "lookup"), 2)
	h.ready()
	onlyPrompt(t, h.submit("sub-1", "one", 1))
	o := h.reconnect("conn-2")
	if len(o.sends) != 2 || replaysFromStart(resumeOf(t, o.sends[0])) || !replaysFromStart(resumeOf(t, o.sends[1])) {
		t.Fatalf("resumes after reconnect: %+v, want replay for S1 only", o.sends)
	}
	h.receive(userMessage("S1", "m7", "one"))
	outcomeIs(t, h.receive(acp.Result(o.sends[1].msg.ID, struct{}{})), "sub-1", traces.OutcomeInserted, "m7")
}

// A replay asked for before a prompt was given up may predate its
// insertion: the prompt waits for a newer replay.
func TestLookupUsesAReplayNewerThanTheTimeout(t *testing.T) {
	h := newHarness(t, policy(t, "lookup"), 1)
	h.ready()
	oa := h.submit("a", "one", 0)
	ob := h.submit("b", "two", 0)
	first := h.fire(h.promptTimer(oa)).sends[0]
	if o := h.fire(h.promptTimer(ob)); len(o.all) != 0 {
		t.Fatalf("b's timeout during a's lookup: %+v, want to wait", o.all)
	}
	h.receive(userMessage("S0", "m1", "one"))
	o := h.receive(acp.Result(first.msg.ID, struct{}{}))
	outcomeIs(t, o, "a", traces.OutcomeInserted, "m1")
	if len(o.sends) != 1 || !replaysFromStart(resumeOf(t, o.sends[0])) {
		t.Fatalf("after the first replay: %v, want a second resume with replay for b", o.methods())
	}
	h.receive(userMessage("S0", "m1", "one"))
	h.receive(userMessage("S0", "m2", "two"))
	outcomeIs(t, h.receive(acp.Result(o.sends[0].msg.ID, struct{}{})), "b", traces.OutcomeInserted, "m2")
}

// The known-bad Client resends before resuming, and takes the -32002 that
// answers it for a definite failure.
func TestResendBeforeResume(t *testing.T) {
	h := newHarness(t, policy(t, "resend-before-resume"), 2)
	h.ready()
	_, _, key, _ := promptOf(t, onlyPrompt(t, h.submit("sub-1", "one", 1)))
	o := h.reconnect("conn-2")
	if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionPrompt, acp.MethodSessionResume, acp.MethodSessionResume}) {
		t.Fatalf("after initialize: %v, want the prompt before the resumes", got)
	}
	if sess, _, k, _ := promptOf(t, o.sends[0]); sess != "S1" || k != key || o.sends[0].sub != "sub-1" {
		t.Errorf("early resend to %s key %q, want S1 key %q", sess, k, key)
	}
	outcomeIs(t, h.receive(acp.ErrorResponse(o.sends[0].msg.ID, acp.SessionNotFound("S1"))), "sub-1", traces.OutcomeFailed, "")
	if o := h.receive(acp.Result(o.sends[2].msg.ID, struct{}{})); len(o.all) != 0 {
		t.Errorf("after resume: %+v, want nothing (sub-1 is resolved)", o.all)
	}
}
