package mutants_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/actors/client/mutants"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// Every known-bad Client is a policy --policy can name, says it is
// known-bad, and names an anomaly kind the checkers report.
func TestRowsAreRegistered(t *testing.T) {
	names := mutants.Names()
	for _, want := range []string{"resend-before-resume", "new-key-per-attempt", "reuse-key", "gives-up-silently", "new-key-after-restart"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not among the known-bad Clients %v", want, names)
		}
	}
	for _, n := range names {
		p, err := client.LookupPolicy(n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p.Doc, "known-bad: ") || strings.Contains(p.Doc, "\n") {
			t.Errorf("%s: doc %q is not one line starting with known-bad", n, p.Doc)
		}
		if !slices.Contains(properties.Kinds, mutants.Catches(n)) {
			t.Errorf("%s catches %q, not an anomaly kind", n, mutants.Catches(n))
		}
	}
	if mutants.Catches("keyed") != "" || mutants.Catches("no-such-policy") != "" {
		t.Error("Catches names a kind for a policy that is not known-bad")
	}
}

const timeout = 250 * time.Millisecond

// driver runs one Client by hand: one session, "S0", on conn-1.
type driver struct {
	t      *testing.T
	c      *client.Client
	cfg    client.Config
	env    client.Env
	timers map[int]time.Duration
	sends  []*acp.Message
	outs   []client.Output
}

func newDriver(t *testing.T, policy string) *driver {
	p, err := client.LookupPolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	d := &driver{t: t, timers: map[int]time.Duration{},
		cfg: client.Config{Name: "c1", Policy: p, Sessions: 1, Cwd: "/w", Timeout: timeout, Backoff: 20 * time.Millisecond, MaxAttempts: 2},
		env: client.Env{NewID: func() string { n++; return fmt.Sprintf("key-%d", n) }, IntN: func(n int) int { return n - 1 }}}
	d.c = client.New(d.cfg, d.env)
	d.start()
	return d
}

func (d *driver) take(outs []client.Output) {
	for _, o := range outs {
		switch o.Kind {
		case client.OutTimer:
			d.timers[o.ID] = o.After
		case client.OutSend:
			m := acp.ParseLine(o.Frame).Entries[0].Msg
			d.sends = append(d.sends, &m)
		}
		d.outs = append(d.outs, o)
	}
}

// last is the newest request sent with method.
func (d *driver) last(method string) *acp.Message {
	d.t.Helper()
	for i := len(d.sends) - 1; i >= 0; i-- {
		if d.sends[i].Method == method {
			return d.sends[i]
		}
	}
	d.t.Fatalf("no %s sent", method)
	return nil
}

// start connects, answers initialize and session/new or session/resume.
func (d *driver) start() {
	d.take(d.c.Start())
	d.take(d.c.Connected("conn-1"))
	d.take(d.c.Receive("conn-1", acp.Result(d.last(acp.MethodInitialize).ID, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion})))
	for _, m := range d.sends {
		if m.Method == acp.MethodSessionNew || m.Method == acp.MethodSessionResume {
			d.take(d.c.Receive("conn-1", acp.Result(m.ID, acp.NewSessionResult{SessionID: "S0"})))
		}
	}
}

// timeout fires every prompt timeout pending now (Timeout, or a multiple
// of it once earlier attempts timed out), in id order. The due ids
// are taken before any fires: a timer a retry sets while the map is being
// ranged over would otherwise fire in the same pass or not, as Go's map
// iteration happens to go.
func (d *driver) timeout() {
	var due []int
	for id, after := range d.timers {
		if after >= timeout && after%timeout == 0 {
			due = append(due, id)
		}
	}
	slices.Sort(due)
	for _, id := range due {
		delete(d.timers, id)
		d.take(d.c.Timer(id))
	}
}

// keys are the keys of the prompts sent, in order.
func (d *driver) keys() []string {
	var out []string
	for _, m := range d.sends {
		if m.Method != acp.MethodSessionPrompt {
			continue
		}
		var p acp.PromptParams
		if err := acp.DecodeParams(m.Params, &p); err != nil {
			d.t.Fatal(err)
		}
		k, _, _ := p.Key()
		out = append(out, k)
	}
	return out
}

func (d *driver) outcomes() []string {
	var out []string
	for _, o := range d.outs {
		if o.Kind == client.OutOutcome {
			out = append(out, o.Sub+" "+o.Outcome)
		}
	}
	return out
}

// Each boolean does what its row says, and the row it breaks (keyed, or
// bounded for gives-up-silently) does not: the same steps keep one key per
// submission and tell the user something.
func TestEachRowBreaksItsRule(t *testing.T) {
	for _, tc := range []struct {
		policy, honest string // the mutant and the row it breaks
		steps          func(d *driver)
		check          func(t *testing.T, d *driver)
	}{
		{"new-key-per-attempt", "keyed", func(d *driver) { d.take(d.c.Submit("s1", "hi", 0)); d.timeout(); d.timeout() },
			func(t *testing.T, d *driver) {
				if k := d.keys(); len(k) != 3 || k[0] == k[1] || k[1] == k[2] || k[0] == k[2] {
					t.Errorf("keys of three attempts %v, want three different ones", k)
				}
			}},
		{"reuse-key", "keyed", func(d *driver) {
			d.take(d.c.Submit("s1", "one", 0))
			d.take(d.c.Receive("conn-1", acp.Result(d.last(acp.MethodSessionPrompt).ID, acp.PromptResult{MessageID: "m1"})))
			d.take(d.c.Submit("s2", "two", 0))
		}, func(t *testing.T, d *driver) {
			if k := d.keys(); len(k) != 2 || k[0] != k[1] {
				t.Errorf("keys of two submissions %v, want the first one twice", k)
			}
		}},
		{"gives-up-silently", "bounded", func(d *driver) { d.take(d.c.Submit("s1", "hi", 0)); d.timeout(); d.timeout() },
			func(t *testing.T, d *driver) {
				if o := d.outcomes(); !slices.Equal(o, []string{"s1 " + traces.OutcomeAbandoned}) {
					t.Errorf("outcomes %v after MaxAttempts (2) timeouts, want s1 abandoned", o)
				}
			}},
		{"new-key-after-restart", "keyed", func(d *driver) {
			d.take(d.c.Submit("s1", "hi", 0))
			d.c = client.Restore(d.cfg, d.env, d.c.Persisted())
			d.timers = map[int]time.Duration{}
			d.start()
		}, func(t *testing.T, d *driver) {
			if k := d.keys(); len(k) != 2 || k[0] == k[1] {
				t.Errorf("keys before and after the restart %v, want two different ones", k)
			}
		}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			d := newDriver(t, tc.policy)
			tc.steps(d)
			tc.check(t, d)

			honest := newDriver(t, tc.honest)
			tc.steps(honest)
			k := honest.keys()
			if len(k) != len(d.keys()) {
				t.Fatalf("%s sent %d prompts for the same steps, the mutant %d", tc.honest, len(k), len(d.keys()))
			}
			distinct := len(slices.Compact(slices.Sorted(slices.Values(k))))
			if want := map[bool]int{true: 2, false: 1}[tc.policy == "reuse-key"]; distinct != want {
				t.Errorf("%s sent keys %v: want one per submission, the same on every attempt", tc.honest, k)
			}
			if o := honest.outcomes(); slices.Contains(o, "s1 "+traces.OutcomeAbandoned) {
				t.Errorf("%s abandoned s1: %v", tc.honest, o)
			}
		})
	}
}
