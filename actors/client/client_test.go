package client_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/traces"
)

func TestLookupPolicy(t *testing.T) {
	for _, want := range client.Policies {
		got, err := client.LookupPolicy(want.Name)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("LookupPolicy(%q) = %+v, %v", want.Name, got, err)
		}
	}
	_, err := client.LookupPolicy("sometimes")
	if err == nil {
		t.Fatal("LookupPolicy(sometimes) did not fail")
	}
	for _, w := range []string{`"sometimes"`, "none, naive, keyed"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	for _, p := range client.Policies {
		if p.Doc == "" {
			t.Errorf("policy %s has no Doc", p.Name)
		}
		if p.Keyed && !p.Resend {
			t.Errorf("policy %s has keys but never resends", p.Name)
		}
	}
}

func TestClientHandshake(t *testing.T) {
	forEachPolicy(t, func(t *testing.T, pol client.Policy) {
		h := newHarness(t, pol, 2)
		if o := split(t, h.c.Start()); o.connects != 1 || len(o.all) != 1 {
			t.Fatalf("Start = %+v, want one OutConnect", o.all)
		}
		// A submission before the session exists waits for it.
		if o := h.submit("sub-1", "hello", 1); len(o.all) != 0 {
			t.Fatalf("Submit before any session: %+v, want nothing yet", o.all)
		}
		if !h.c.Pending() {
			t.Error("Pending() false with a submission waiting")
		}

		o := h.connected("conn-1")
		if len(o.all) != 1 || o.methods()[0] != acp.MethodInitialize {
			t.Fatalf("Connected: %+v, want one initialize request", o.all)
		}
		init := o.sends[0]
		if init.msg.ID != acp.NumID(1) || init.sub != "" {
			t.Errorf("initialize: id %s, sub %q; want 1, none", init.msg.ID, init.sub)
		}
		ip := params[acp.InitializeParams](t, init)
		if ip.ProtocolVersion != acp.ProtocolVersion {
			t.Errorf("initialize protocolVersion %d, want %d", ip.ProtocolVersion, acp.ProtocolVersion)
		}

		o = h.receive(acp.Result(init.msg.ID, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion}))
		if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionNew, acp.MethodSessionNew}) {
			t.Fatalf("after initialize: %v, want one session/new per session", got)
		}
		for i, s := range o.sends {
			if s.msg.ID != acp.NumID(int64(i+2)) {
				t.Errorf("session/new %d has id %s, want %d", i, s.msg.ID, i+2)
			}
			if p := params[acp.NewSessionParams](t, s); p.Cwd != "/work" {
				t.Errorf("session/new cwd %q, want /work", p.Cwd)
			}
		}
		news := o.sends

		// Session 0 comes up: nothing of session 1 goes out.
		if o := h.receive(acp.Result(news[0].msg.ID, acp.NewSessionResult{SessionID: "S0"})); len(o.all) != 0 {
			t.Errorf("session 0 ready: %+v, want nothing (the submission is for session 1)", o.all)
		}
		o = h.receive(acp.Result(news[1].msg.ID, acp.NewSessionResult{SessionID: "S1"}))
		p := onlyPrompt(t, o)
		sess, text, _, _ := promptOf(t, p)
		if sess != "S1" || text != "hello" || p.sub != "sub-1" {
			t.Errorf("prompt to %s %q for %q, want S1 \"hello\" for sub-1", sess, text, p.sub)
		}
		if len(o.timers) != 1 || o.timers[0].After != timeout {
			t.Errorf("prompt timers %+v, want one of %v", o.timers, timeout)
		}

		// Once the session is ready, a submission goes out at once.
		o = h.submit("sub-2", "again", 0)
		if sess, text, _, _ := promptOf(t, onlyPrompt(t, o)); sess != "S0" || text != "again" {
			t.Errorf("prompt to %s %q, want S0 \"again\"", sess, text)
		}
		if o.sends[0].sub != "sub-2" {
			t.Errorf("prompt Sub %q, want sub-2", o.sends[0].sub)
		}
	})
}

func TestClientKeys(t *testing.T) {
	forEachPolicy(t, func(t *testing.T, pol client.Policy) {
		h := newHarness(t, pol, 1)
		h.ready()
		_, _, k1, keyed1 := promptOf(t, onlyPrompt(t, h.submit("a", "same text", 0)))
		_, _, k2, keyed2 := promptOf(t, onlyPrompt(t, h.submit("b", "same text", 0)))
		if !pol.Keyed {
			if keyed1 || keyed2 {
				t.Errorf("policy %s sent keys %q %q", pol.Name, k1, k2)
			}
			return
		}
		if !keyed1 || !keyed2 || k1 == k2 {
			t.Errorf("keys %q (%v) and %q (%v); want two different keys", k1, keyed1, k2, keyed2)
		}
	})
}

// Now and then a keyed Client deliberately reuses another session's key,
// exactly or in another case (both legal), but never a key of the same session.
func TestClientKeyedReusesKeysAcrossSessionsOnly(t *testing.T) {
	for _, tc := range []struct {
		name  string
		exact bool
		want  []string // keys of subs a (S0), b (S1), c (S1), d (S0)
	}{
		{"exact", true, []string{"key-1", "key-1", "key-2", "key-2"}},
		{"other case", false, []string{"key-1", "KEY-1", "key-2", "KEY-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, policy(t, "keyed"), 2)
			h.intN = func(n int) int {
				if n == 2 && !tc.exact {
					return 1 // the other case
				}
				return 0 // always try to reuse
			}
			h.ready()
			var keys []string
			for i, sub := range []string{"a", "b", "c", "d"} {
				_, _, k, _ := promptOf(t, onlyPrompt(t, h.submit(sub, "text", []int{0, 1, 1, 0}[i])))
				keys = append(keys, k)
			}
			if !reflect.DeepEqual(keys, tc.want) {
				t.Errorf("keys = %v, want %v", keys, tc.want)
			}
		})
	}
}

func TestClientTimeout(t *testing.T) {
	forEachPolicy(t, func(t *testing.T, pol client.Policy) {
		if pol.Lookup {
			t.Skip("a lookup Client resumes with replay before resending: TestLookup*")
		}
		h := newHarness(t, pol, 1)
		h.ready()
		o := h.submit("sub-1", "hi", 0)
		first := onlyPrompt(t, o)
		_, _, key, keyed := promptOf(t, first)
		if keyed != pol.Keyed {
			t.Fatalf("first attempt keyed=%v, policy %s", keyed, pol.Name)
		}
		tm := h.promptTimer(o)

		for attempt := 2; attempt <= 3; attempt++ {
			o = h.fire(tm)
			if !pol.Resend {
				if len(o.sends) != 0 {
					t.Errorf("policy none resent: %v", o.methods())
				}
				want := []client.Output{{Kind: client.OutOutcome, Sub: "sub-1", Outcome: silentOrUnknown(pol)}}
				if !reflect.DeepEqual(o.all, want) {
					t.Errorf("timeout under %s: %+v, want %+v", pol.Name, o.all, want)
				}
				if h.c.Pending() {
					t.Error("an abandoned submission is still pending")
				}
				return
			}
			retry := onlyPrompt(t, o)
			sess, text, k, kd := promptOf(t, retry)
			if sess != "S0" || text != "hi" || retry.sub != "sub-1" {
				t.Errorf("attempt %d: %s %q for %q", attempt, sess, text, retry.sub)
			}
			if retry.msg.ID == first.msg.ID {
				t.Errorf("attempt %d reuses JSON-RPC id %s", attempt, retry.msg.ID)
			}
			if kd != pol.Keyed || k != key {
				t.Errorf("attempt %d: key %q (present %v), want %q (present %v)", attempt, k, kd, key, pol.Keyed)
			}
			first = retry
			// Each timeout doubles the wait for the next answer, up to
			// eight times the timeout: a held prompt is not resent at a
			// fixed pace.
			tm = h.timerAfter(o, timeout<<(attempt-1))
		}
	})
}

func TestClientInserted(t *testing.T) {
	forEachPolicy(t, func(t *testing.T, pol client.Policy) {
		h := newHarness(t, pol, 1)
		h.ready()
		o := h.submit("sub-1", "hi", 0)
		p := onlyPrompt(t, o)
		tm := h.promptTimer(o)
		o = h.receive(acp.Result(p.msg.ID, acp.PromptResult{MessageID: "msg-9"}))
		want := []client.Output{{Kind: client.OutOutcome, Sub: "sub-1", Outcome: traces.OutcomeInserted, MessageID: "msg-9"}}
		if !reflect.DeepEqual(o.all, want) {
			t.Errorf("response: %+v, want %+v", o.all, want)
		}
		if h.c.Pending() {
			t.Error("Pending() after the only submission was inserted")
		}
		if o := h.fire(tm); len(o.all) != 0 {
			t.Errorf("the timeout of an answered prompt produced %+v", o.all)
		}
		if o := h.receive(acp.Result(p.msg.ID, acp.PromptResult{MessageID: "msg-9"})); len(o.all) != 0 {
			t.Errorf("a second answer to the same id produced %+v", o.all)
		}
	})
}

// After a timeout resend, the answer to the first attempt settles the
// submission and the second answer changes nothing.
func TestClientAnswerToAnEarlierAttempt(t *testing.T) {
	for _, name := range []string{"naive", "keyed"} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, policy(t, name), 1)
			h.ready()
			o := h.submit("sub-1", "hi", 0)
			first := onlyPrompt(t, o)
			second := onlyPrompt(t, h.fire(h.promptTimer(o)))
			o = h.receive(acp.Result(first.msg.ID, acp.PromptResult{MessageID: "m1"}))
			if len(o.outcomes) != 1 || o.outcomes[0].MessageID != "m1" || o.outcomes[0].Outcome != traces.OutcomeInserted {
				t.Fatalf("answer to attempt 1: %+v", o.all)
			}
			if o := h.receive(acp.Result(second.msg.ID, acp.PromptResult{MessageID: "m1"})); len(o.all) != 0 {
				t.Errorf("answer to attempt 2 after the outcome: %+v", o.all)
			}
		})
	}
}

func TestClientTransientError(t *testing.T) {
	forEachPolicy(t, func(t *testing.T, pol client.Policy) {
		h := newHarness(t, pol, 1)
		h.ready()
		o := h.submit("sub-1", "hi", 0)
		first := onlyPrompt(t, o)
		_, _, key, _ := promptOf(t, first)
		timeoutTimer := h.promptTimer(o)

		o = h.receive(acp.ErrorResponse(first.msg.ID, acp.Errorf(acp.CodeInternalError, "try again")))
		if !pol.Resend {
			want := []client.Output{{Kind: client.OutOutcome, Sub: "sub-1", Outcome: traces.OutcomeFailed}}
			if !reflect.DeepEqual(o.all, want) {
				t.Errorf("-32603 under none: %+v, want %+v", o.all, want)
			}
			return
		}
		if len(o.sends) != 0 || len(o.outcomes) != 0 || len(o.timers) != 1 || o.timers[0].After != backoff {
			t.Fatalf("-32603 under %s: %+v, want only a timer of %v", pol.Name, o.all, backoff)
		}
		// The timeout of the failed attempt does not resend it.
		if o := h.fire(timeoutTimer); len(o.all) != 0 {
			t.Errorf("timeout of the failed attempt: %+v", o.all)
		}
		o = h.fire(o.timers[0].ID)
		retry := onlyPrompt(t, o)
		sess, text, k, kd := promptOf(t, retry)
		if sess != "S0" || text != "hi" || k != key || kd != pol.Keyed || retry.msg.ID == first.msg.ID {
			t.Errorf("retry: %s %q key %q (%v) id %s; want S0 \"hi\" key %q, a new id", sess, text, k, kd, retry.msg.ID, key)
		}
		o = h.receive(acp.Result(retry.msg.ID, acp.PromptResult{MessageID: "m"}))
		if len(o.outcomes) != 1 || o.outcomes[0].Outcome != traces.OutcomeInserted {
			t.Errorf("answer to the retry: %+v", o.all)
		}
	})
}

func TestClientDefiniteErrorFails(t *testing.T) {
	forEachPolicy(t, func(t *testing.T, pol client.Policy) {
		h := newHarness(t, pol, 1)
		h.ready()
		p := onlyPrompt(t, h.submit("sub-1", "hi", 0))
		o := h.receive(acp.ErrorResponse(p.msg.ID, acp.Errorf(acp.CodeInvalidParams, "bad prompt")))
		want := []client.Output{{Kind: client.OutOutcome, Sub: "sub-1", Outcome: traces.OutcomeFailed}}
		if !reflect.DeepEqual(o.all, want) {
			t.Errorf("-32602: %+v, want %+v", o.all, want)
		}
	})
}

func TestClientDisconnect(t *testing.T) {
	forEachPolicy(t, func(t *testing.T, pol client.Policy) {
		if pol.ResendBeforeResume {
			t.Skip("known-bad: resends before resuming: TestResendBeforeResume")
		}
		h := newHarness(t, pol, 2)
		h.ready()
		o := h.submit("sub-1", "one", 0)
		first := onlyPrompt(t, o)
		_, _, key, _ := promptOf(t, first)
		oldTimeout := h.promptTimer(o)
		answered := onlyPrompt(t, h.submit("sub-2", "two", 1))
		h.receive(acp.Result(answered.msg.ID, acp.PromptResult{MessageID: "m2"}))

		if o := h.take(h.c.Disconnected("conn-0")); len(o.all) != 0 {
			t.Errorf("Disconnected of a stale connection: %+v", o.all)
		}
		o = h.take(h.c.Disconnected("conn-1"))
		if len(o.sends) != 0 || len(o.timers) != 1 || o.timers[0].After != backoff {
			t.Fatalf("Disconnected: %+v, want a reconnect timer of %v and no frame", o.all, backoff)
		}
		if pol.Resend {
			if len(o.outcomes) != 0 {
				t.Errorf("policy %s reported %+v on disconnect", pol.Name, o.outcomes)
			}
		} else {
			want := []client.Output{{Kind: client.OutOutcome, Sub: "sub-1", Outcome: silentOrUnknown(pol)}}
			if !reflect.DeepEqual(o.outcomes, want) {
				t.Errorf("%s on disconnect: %+v, want %+v (the answered sub-2 untouched)", pol.Name, o.outcomes, want)
			}
		}
		if got := h.c.Pending(); got != pol.Resend {
			t.Errorf("Pending() = %v after disconnect", got)
		}
		reconnect := o.timers[0].ID
		if o := h.fire(reconnect); o.connects != 1 || len(o.all) != 1 {
			t.Fatalf("reconnect timer: %+v, want one OutConnect", o.all)
		}

		o = h.connected("conn-2")
		if o.sends[0].msg.ID != acp.NumID(1) {
			t.Errorf("initialize on the new connection has id %s, want 1", o.sends[0].msg.ID)
		}
		o = h.receive(acp.Result(o.sends[0].msg.ID, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion}))
		if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionResume, acp.MethodSessionResume}) {
			t.Fatalf("after initialize: %v, want session/resume for both known sessions", got)
		}
		for i, s := range o.sends {
			p := params[acp.ResumeSessionParams](t, s)
			if want := fmt.Sprintf("S%d", i); p.SessionID != want || p.Cwd != "/work" {
				t.Errorf("resume %d: %+v, want session %s cwd /work", i, p, want)
			}
			if s.msg.ID != acp.NumID(int64(i+2)) {
				t.Errorf("resume %d: id %s, want %d (ids restart on each connection)", i, s.msg.ID, i+2)
			}
		}
		resumes := o.sends

		// A late answer on the old connection is not read.
		if o := h.take(h.c.Receive("conn-1", acp.Result(first.msg.ID, acp.PromptResult{MessageID: "late"}))); len(o.all) != 0 {
			t.Errorf("answer on the old connection: %+v", o.all)
		}

		o = h.receive(acp.Result(resumes[0].msg.ID, struct{}{}))
		if !pol.Resend {
			if len(o.all) != 0 {
				t.Errorf("none after resume: %+v, want nothing", o.all)
			}
			if o := h.fire(oldTimeout); len(o.all) != 0 {
				t.Errorf("timeout of an abandoned prompt: %+v, want nothing", o.all)
			}
			return
		}
		p := onlyPrompt(t, o)
		sess, text, k, kd := promptOf(t, p)
		if sess != "S0" || text != "one" || p.sub != "sub-1" || k != key || kd != pol.Keyed {
			t.Errorf("resend after resume: %s %q for %q key %q (%v); want S0 \"one\" for sub-1 key %q", sess, text, p.sub, k, kd, key)
		}
		if p.msg.ID != acp.NumID(4) {
			t.Errorf("resend has id %s, want 4", p.msg.ID)
		}
		// The first attempt's timeout, firing now, does not touch the resend.
		if o := h.fire(oldTimeout); len(o.all) != 0 {
			t.Errorf("timeout of the attempt before the disconnect: %+v, want nothing", o.all)
		}
		if o := h.receive(acp.Result(resumes[1].msg.ID, struct{}{})); len(o.all) != 0 {
			t.Errorf("resume of a session with nothing pending: %+v", o.all)
		}
		o = h.receive(acp.Result(p.msg.ID, acp.PromptResult{MessageID: "m1"}))
		if len(o.outcomes) != 1 || o.outcomes[0].MessageID != "m1" {
			t.Errorf("answer to the resend: %+v", o.all)
		}
		if h.c.Pending() {
			t.Error("Pending() after every submission was answered")
		}
	})
}

func TestClientResumeNotFoundCreatesNewSession(t *testing.T) {
	forEachPolicy(t, func(t *testing.T, pol client.Policy) {
		if pol.ResendBeforeResume {
			t.Skip("known-bad: resends before resuming: TestResendBeforeResume")
		}
		h := newHarness(t, pol, 1)
		h.ready()
		o := h.take(h.c.Disconnected("conn-1"))
		reconnect := o.timers[0].ID
		// Submitted while disconnected: nothing in flight, it waits.
		if o := h.submit("sub-1", "while down", 0); len(o.all) != 0 {
			t.Fatalf("Submit while disconnected: %+v", o.all)
		}
		h.fire(reconnect)
		o = h.handshake("conn-2")
		if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionResume}) {
			t.Fatalf("after initialize: %v, want [session/resume]", got)
		}
		o = h.receive(acp.ErrorResponse(o.sends[0].msg.ID, acp.SessionNotFound("S0")))
		if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionNew}) || len(o.outcomes) != 0 {
			t.Fatalf("after -32002 on resume: %+v, want one session/new", o.all)
		}
		o = h.receive(acp.Result(o.sends[0].msg.ID, acp.NewSessionResult{SessionID: "S0-bis"}))
		p := onlyPrompt(t, o)
		if sess, text, _, keyed := promptOf(t, p); sess != "S0-bis" || text != "while down" || keyed != pol.Keyed {
			t.Errorf("prompt to %s %q (keyed %v), want S0-bis \"while down\"", sess, text, keyed)
		}

		// The next reconnect resumes the new session.
		o = h.take(h.c.Disconnected("conn-2"))
		h.fire(o.timers[0].ID)
		o = h.handshake("conn-3")
		if len(o.sends) != 1 || params[acp.ResumeSessionParams](t, o.sends[0]).SessionID != "S0-bis" {
			t.Errorf("after the next connect: %+v, want a resume of S0-bis", o.methods())
		}
	})
}

func TestClientResendsInFlightPromptToNewSession(t *testing.T) {
	for _, name := range []string{"naive", "keyed"} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, policy(t, name), 1)
			h.ready()
			_, _, key, _ := promptOf(t, onlyPrompt(t, h.submit("sub-1", "x", 0)))
			h.fire(h.take(h.c.Disconnected("conn-1")).timers[0].ID)
			o := h.handshake("conn-2")
			o = h.receive(acp.ErrorResponse(o.sends[0].msg.ID, acp.SessionNotFound("S0")))
			o = h.receive(acp.Result(o.sends[0].msg.ID, acp.NewSessionResult{SessionID: "S9"}))
			sess, _, k, _ := promptOf(t, onlyPrompt(t, o))
			if sess != "S9" || k != key {
				t.Errorf("resend to %s with key %q, want S9 with %q", sess, k, key)
			}
		})
	}
}

func ExampleClient() {
	keyed, _ := client.LookupPolicy("keyed")
	c := client.New(client.Config{Name: "c", Policy: keyed, Sessions: 1, Timeout: time.Second, Backoff: time.Millisecond},
		client.Env{NewID: func() string { return "6e40df93-12c2-43d6-bf09-128b89a1f3c1" }, IntN: func(int) int { return 1 }})
	show := func(outs []client.Output) {
		for _, o := range outs {
			switch o.Kind {
			case client.OutConnect:
				fmt.Println("connect")
			case client.OutSend:
				fmt.Printf("send %s\n", o.Frame)
			case client.OutTimer:
				fmt.Printf("timer %d in %v\n", o.ID, o.After)
			case client.OutOutcome:
				fmt.Printf("outcome %s %s %s\n", o.Sub, o.Outcome, o.MessageID)
			}
		}
	}
	show(c.Start())
	show(c.Submit("sub-1", "hi", 0))
	show(c.Connected("conn-1"))
	show(c.Receive("conn-1", []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2,"info":{"name":"a","version":"1"},"capabilities":{}}}`)))
	show(c.Receive("conn-1", []byte(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"S"}}`)))
	show(c.Receive("conn-1", []byte(`{"jsonrpc":"2.0","id":3,"result":{"messageId":"m1"}}`)))
	// Output:
	// connect
	// send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"acpsim-keyed","version":"0"},"capabilities":{}}}
	// send {"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":""}}
	// timer 1 in 1s
	// send {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"S","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":"6e40df93-12c2-43d6-bf09-128b89a1f3c1"}}
	// timer 2 in 1s
	// outcome sub-1 inserted m1
}

// silentOrUnknown is what a Client that does not resend tells the user of
// a prompt whose response did not come: nothing (none), or that it does
// not know (classes-only, which knows a prompt is unsafe to retry).
func silentOrUnknown(pol client.Policy) string {
	if pol.TellsUnknown {
		return traces.OutcomeUnknown
	}
	return traces.OutcomeAbandoned
}
