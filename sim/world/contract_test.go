package world

import "testing"

// The RFD's case against "resolve by lookup": replay omits live-only
// messages, so a lookup Client resends a command it cannot find and runs it
// twice; the keyed Client never does.
func TestLiveOnlyReplayDefeatsLookupButNotKeys(t *testing.T) {
	dups := map[string]int{}
	for _, policy := range []string{"lookup", "keyed"} {
		cfg := DefaultConfig()
		cfg.Policy, cfg.Knobs.LiveOnly = policy, "/"
		sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 300})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range sum.Anomalies {
			if k.Kind == "duplicate" {
				dups[policy] = k.Count
			}
		}
		if policy == "keyed" && sum.Failed != 0 {
			t.Fatalf("keyed with live-only commands: %d seeds failed: %+v", sum.Failed, sum.Failures[0])
		}
	}
	if dups["lookup"] == 0 {
		t.Fatal("lookup never ran a live-only command twice in 300 seeds")
	}
}

// History retention forgets old keys: a keyed resend of one is a new
// submission by contract, which the checker counts as expected, not as an
// anomaly.
func TestRetentionForgetsKeysAsExpected(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Knobs.Retain, cfg.Knobs.LiveOnly = 2, "/"
	sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 300})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 {
		t.Fatalf("%d seeds failed: %+v", sum.Failed, sum.Failures[0])
	}
	if sum.Stats.ExpectedForgotten == 0 {
		t.Fatal("no key was ever forgotten by contract: the windows were not reached")
	}
}

// Retention must not become a blanket excuse: an Agent that forgets keys on
// a restart (memory-keys) is still caught when its sessions keep their last
// three messages, because the key was dropped before three newer messages
// could have pushed its message out.
func TestRetentionDoesNotExcuseKeysForgottenEarly(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Agent, cfg.Knobs.Retain = "memory-keys", 3
	sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 300})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed == 0 {
		t.Fatalf("memory-keys under retain=3 passed 300 seeds (%d keys forgotten by contract)", sum.Stats.ExpectedForgotten)
	}
}
