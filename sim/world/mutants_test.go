package world

import (
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/mutants"
)

// Every known-bad Agent is caught by the keyed Client's swarm, each by the
// checker it targets, and the reference Agent is not, with users who also
// cancel, close and fork.
func TestSwarmCatchesEveryMutantAndNotTheReference(t *testing.T) {
	const seeds = 300
	for _, name := range append([]string{agent.Reference}, mutants.Names()...) {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.UseAgent(name)                           // with what its bug needs to show (lost-writes: nodes)
			cfg.Cancels, cfg.Closes, cfg.Forks = 2, 1, 1 // the users do everything the RFD talks about
			sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: seeds})
			if err != nil {
				t.Fatal(err)
			}
			want := mutants.Catches(name)
			if want == "" {
				if sum.Failed != 0 || sum.Inconclusive != 0 {
					t.Fatalf("reference Agent: %d failed, %d inconclusive seeds (first: %+v)", sum.Failed, sum.Inconclusive, sum.Failures[0])
				}
				return
			}
			for _, k := range sum.Anomalies {
				if k.Kind == want && k.Seeds > 0 {
					return
				}
			}
			t.Fatalf("%s: no %s in %d seeds; anomalies: %+v", name, want, seeds, sum.Anomalies)
		})
	}
}

// The interesting windows are reached: with the default faults the keyed
// swarm loses responses after insertion, answers retries from bindings,
// retries held prompts and retries after restarts.
func TestSwarmReachesTheInterestingWindows(t *testing.T) {
	sum, err := Swarm(SwarmConfig{Base: DefaultConfig(), FirstSeed: 1, Seeds: 300})
	if err != nil {
		t.Fatal(err)
	}
	st := sum.Stats
	for name, n := range map[string]int{
		"responses lost after insertion": st.RespLostAfterInsert, "retries answered from a binding": st.RetriesFromBinding,
		"retries of still-pending prompts": st.RetriesWhilePending, "keyed retries after a restart": st.RetriesAfterRestart,
	} {
		if n == 0 {
			t.Errorf("%s: 0 in 300 seeds", name)
		}
	}
}
