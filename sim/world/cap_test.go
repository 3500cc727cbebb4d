package world

import (
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// capped judges cfg cut at maxEvents events of chaos, and checks what every
// such run owes: it healed only after the cap, it ends "cap" and is
// inconclusive, and every submission it could not judge says why.
func capped(t *testing.T, cfg Config, maxEvents int) *properties.Report {
	t.Helper()
	cfg.MaxEvents = maxEvents
	v, err := Judge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	heal := slices.IndexFunc(v.Result.Log.Events, func(e traces.Event) bool { return e.Kind == traces.KindHeal })
	if heal < maxEvents-1 {
		t.Fatalf("seed %d: healed after %d events, before the cap of %d: the chaos was not cut", cfg.Seed, heal, maxEvents)
	}
	rep := v.Report
	if rep.End != traces.EndCap || !rep.Inconclusive {
		t.Fatalf("seed %d: end %q inconclusive %v, want cap and inconclusive", cfg.Seed, rep.End, rep.Inconclusive)
	}
	for _, u := range rep.Unjudged {
		if !strings.Contains(u.Why, "the run hit its cap") {
			t.Fatalf("seed %d: %s is inconclusive without naming the cap: %s", cfg.Seed, u.Sub, u.Why)
		}
	}
	return rep
}

// A run cut in chaos still heals and still has its transcripts read: the
// observer has an allowance of its own. Of the reference Agent nothing is
// then lost, unresolved or badly answered; what never got an outcome is
// inconclusive.
func TestARunCutInChaosIsObservedAndInconclusive(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		cfg := DefaultConfig()
		cfg.Seed, cfg.Prompts = seed, 400
		rep := capped(t, cfg, 3000)
		if len(rep.Anomalies) > 0 {
			t.Fatalf("seed %d: the reference Agent cut at its cap shows %v: %s", seed, kinds(rep), rep.Anomalies[0].Explanation)
		}
		for _, u := range rep.Unjudged {
			if strings.Contains(u.Why, "could not read") {
				t.Fatalf("seed %d: the observer did not read a transcript in its allowance: %s", seed, u.Why)
			}
		}
	}
}

// When the observer itself is cut (six Agents to read, a quarter of 1,000
// events to read them in), what it did not read is inconclusive, naming the
// session and the cap: never lost, and never session-lost because another
// Agent's list lacks the session.
func TestWhatTheObserverCouldNotReadIsInconclusive(t *testing.T) {
	unread := 0
	for seed := uint64(1); seed <= 4; seed++ {
		cfg := DefaultConfig()
		cfg.Seed, cfg.Prompts, cfg.Clients = seed, 200, 6
		rep := capped(t, cfg, 1000)
		if len(rep.Anomalies) > 0 {
			t.Fatalf("seed %d: the reference Agent with its transcripts unread shows %v: %s", seed, kinds(rep), rep.Anomalies[0].Explanation)
		}
		for _, u := range rep.Unjudged {
			if len(u.Session) > 8 && strings.Contains(u.Why, "the observer could not read session "+u.Session[:8]+"…'s transcript: the run hit its cap") {
				unread++
			}
		}
	}
	if unread == 0 {
		t.Fatal("no seed cut the observer short: the test shows nothing")
	}
}

// Known-bad Agents cut at their cap are still caught by what the frames
// show (ignore-key's duplicates) and by the transcripts the observer read
// (bind-on-arrival's losses, each in a transcript it read).
func TestKnownBadAgentsAreCaughtWhenCut(t *testing.T) {
	for _, tc := range []struct{ agent, kind string }{{"ignore-key", properties.Duplicate}, {"bind-on-arrival", properties.Lost}} {
		caught := 0
		for seed := uint64(1); seed <= 3; seed++ {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Prompts = seed, 400
			cfg.UseAgent(tc.agent)
			rep := capped(t, cfg, 3000)
			for _, a := range rep.Anomalies {
				if a.Kind != tc.kind {
					continue
				}
				caught++
				if a.Kind == properties.Lost && !strings.Contains(a.Explanation, "the final transcript of session") {
					t.Fatalf("seed %d: lost judged without a transcript read: %s", seed, a.Explanation)
				}
			}
		}
		if caught == 0 {
			t.Errorf("%s cut at its cap: no %s in 3 seeds", tc.agent, tc.kind)
		}
	}
}

// The cap a run gets unless told is sized to the work asked, so a run of
// many prompts is not cut for being long: a fixed 200,000 events stopped
// every run of more than about 2,000 prompts at its cap, whatever it did
// (issue 18). An explicit MaxEvents is kept as given.
func TestTheDefaultCapGrowsWithThePromptsAsked(t *testing.T) {
	for _, tc := range []struct {
		prompts, clients, maxEvents, want int
	}{
		{10, 1, 0, minEventCap},
		{2000, 1, 0, 200000},
		{20000, 1, 0, 2000000},
		{20000, 3, 0, 6000000},
		{20000, 1, 5000, 5000},
	} {
		cfg := DefaultConfig()
		cfg.Prompts, cfg.Clients, cfg.MaxEvents = tc.prompts, tc.clients, tc.maxEvents
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := cfg.EventCap(); got != tc.want {
			t.Errorf("%d prompts × %d Clients, MaxEvents %d: cap %d, want %d", tc.prompts, tc.clients, tc.maxEvents, got, tc.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Prompts = 20000
	if d := cfg.healFor(); d < 20000*healPerPrompt {
		t.Errorf("20,000 prompts heal for %v: too short to work off a backlog", d)
	}
	cfg.MaxEvents = 999
	if cfg.Validate() == nil {
		t.Error("MaxEvents 999 validated")
	}
}
