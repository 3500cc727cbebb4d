package classes

import (
	"reflect"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	_ "github.com/acpsim/acpsim/actors/agent/mutants" // registers the known-bad Agents
	"github.com/acpsim/acpsim/actors/agent/store"
)

func TestVerifyPassesForEverySimulatedMethod(t *testing.T) {
	simulated := map[string]bool{}
	for _, r := range Verify() {
		switch {
		case r.NotSimulated != "":
			t.Logf("not simulated: %s (%s): %s", r.Name(), r.Class, r.NotSimulated)
		case !r.Verified:
			t.Errorf("FAILED: %s (%s): %s", r.Name(), r.Class, r.Detail)
		default:
			simulated[r.Name()] = true
			t.Logf("verified: %s (%s): %s", r.Name(), r.Class, r.Detail)
		}
	}
	// What the reference Agent serves today; a method it stops serving is
	// worth a look, not a silent pass.
	for _, m := range []string{"initialize", "session/new", "session/resume", "session/list", "session/close",
		"session/prompt (no key)", "session/prompt (keyed)"} {
		if !simulated[m] {
			t.Errorf("%s was not simulated", m)
		}
	}
}

// Every Client→Agent request the reference Agent serves is simulated: a
// method added to the Agent without a scenario here fails this test rather
// than passing as "not simulated".
func TestEveryServedRequestHasAScenario(t *testing.T) {
	for _, m := range agent.Methods() {
		c, ok := acp.ClassOf(m, false)
		if !ok {
			t.Errorf("the reference Agent serves %s, which has no row in acp.Classes", m)
			continue
		}
		if c.Direction != acp.ClientToAgent {
			continue
		}
		if _, ok := scenarios[m]; !ok {
			t.Errorf("the reference Agent serves %s, and sim/classes has no scenario for it", m)
		}
	}
}

func TestNotSimulatedSaysWhy(t *testing.T) {
	for _, r := range Verify() {
		c, _ := acp.ClassOf(r.Method, r.Keyed)
		var want string
		switch c.Direction {
		case acp.ClientNotification, acp.AgentNotification, acp.EitherNotification:
			want = "a notification"
		case acp.AgentToClient, acp.MCPTunnel:
			want = "Agent→Client request"
		case acp.ConductorToProxy, acp.ProxyEnvelope:
			want = "proxy"
		default:
			if r.NotSimulated != "" {
				want = "does not implement it"
			}
		}
		if !strings.Contains(r.NotSimulated, want) || (want == "") != (r.NotSimulated == "") {
			t.Errorf("%s: not simulated %q, want it to say %q", r.Name(), r.NotSimulated, want)
		}
		if r.NotSimulated != "" && (r.Verified || r.Failed()) {
			t.Errorf("%s: not simulated, yet Verified=%v Failed=%v", r.Name(), r.Verified, r.Failed())
		}
	}
}

func TestVerifyIsDeterministic(t *testing.T) {
	if a, b := Verify(), Verify(); !reflect.DeepEqual(a, b) {
		t.Fatal("two Verify runs differ")
	}
}

// The check can fail: a class that claims too much, or too little, for the
// reference Agent is caught, and so is an Agent that breaks the keyed rules.
func TestTheCheckCanFail(t *testing.T) {
	ref := verifier{build: reference, knobs: agent.DefaultKnobs()}
	implemented := map[string]bool{}
	for _, m := range agent.Methods() {
		implemented[m] = true
	}
	row := func(method string, keyed bool, class acp.RetryClass) acp.MethodClass {
		c, ok := acp.ClassOf(method, keyed)
		if !ok {
			t.Fatalf("no row for %s", method)
		}
		c.Class = class
		return c
	}

	// session/new as if it were as-is: the resend makes a second session.
	r := ref.verify(implemented, row("session/new", false, acp.ClassAsIs))
	if r.Verified || !r.Failed() || !strings.Contains(r.Detail, "not converged") || !strings.Contains(r.Detail, "sessions listed instead of") {
		t.Errorf("session/new checked as as-is: %+v", r)
	}
	// The unkeyed prompt as if a resend were safe: two user messages.
	r = ref.verify(implemented, row("session/prompt", false, acp.ClassAsIs))
	if r.Verified || !strings.Contains(r.Detail, `2 user messages "make it faster" instead of 1`) {
		t.Errorf("unkeyed session/prompt checked as as-is: %+v", r)
	}
	// The keyed prompt as if it were duplicating: it converges, so the
	// class would claim too little.
	r = ref.verify(implemented, row("session/prompt", true, acp.ClassDuplicating))
	if r.Verified || !strings.Contains(r.Detail, "converged (state after two sends == state after one)") {
		t.Errorf("keyed session/prompt checked as duplicating: %+v", r)
	}

	// Known-bad Agents against the table's own keyed row; the schedule
	// that catches each shows why the check runs more than one.
	keyed := row("session/prompt", true, acp.ClassKeyed)
	for _, tc := range []struct {
		mutant string
		want   []string // in Detail
		not    []string // schedules that must not be named
	}{
		{"ignore-key", []string{"at once: not converged", "after restart: not converged", "2 user messages"}, nil},
		{"memory-keys", []string{"after restart: not converged"}, []string{"at once:", "while busy:", "after quiet:", "new connection:"}},
		{"new-id-on-retry", []string{"the resend got messageId"}, nil},
		{"new-ids-on-replay", []string{"is not among the user messages replayed from start"}, nil},
	} {
		f, err := agent.Lookup(tc.mutant)
		if err != nil {
			t.Fatal(err)
		}
		v := verifier{knobs: agent.DefaultKnobs(), build: func(k agent.Knobs, st store.Store, env agent.Env) agent.Machine {
			return f(k, func() store.Store { return st }, env)
		}}
		r := v.verify(implemented, keyed)
		if r.Verified {
			t.Errorf("%s: the keyed row verified against a known-bad Agent: %s", tc.mutant, r.Detail)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Detail, w) {
				t.Errorf("%s: detail lacks %q:\n%s", tc.mutant, w, r.Detail)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(r.Detail, n) {
				t.Errorf("%s: detail names %q, which should pass:\n%s", tc.mutant, n, r.Detail)
			}
		}
	}
}

// A row whose method has no scenario is reported as such, not passed.
func TestAMethodWithoutAScenarioIsNotPassed(t *testing.T) {
	ref := verifier{build: reference, knobs: agent.DefaultKnobs()}
	c, _ := acp.ClassOf("session/set_title", false)
	r := ref.verify(map[string]bool{"session/set_title": true}, c)
	if r.Verified || !strings.Contains(r.NotSimulated, "no scenario") {
		t.Errorf("got %+v", r)
	}
}
