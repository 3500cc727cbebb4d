package world

import (
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/netfault"
)

// Several nodes share one store behind the endpoint and a reconnect lands on
// any of them. With the bindings in the store (the RFD: "The record belongs
// in the storage the session is loaded from") keyed retries are safe on
// every node; with them in process memory a failover duplicates, and the
// checker says so.
func TestNodesNeedBindingsInTheStore(t *testing.T) {
	for _, link := range []string{LinkHTTP, LinkWS} {
		failed := map[string]int{}
		for _, keys := range []string{agent.KeysStore, agent.KeysMemory} {
			cfg := DefaultConfig()
			cfg.Link, cfg.Nodes, cfg.Knobs.Keys = link, 3, keys
			for _, rates := range []map[string]float64{netfault.NodeRates, netfault.HTTPRates} {
				for k, r := range rates {
					cfg.Rates[k] = r
				}
			}
			sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 200})
			if err != nil {
				t.Fatal(err)
			}
			failed[keys] = sum.Failed
		}
		if failed[agent.KeysStore] != 0 || failed[agent.KeysMemory] == 0 {
			t.Errorf("%s: failed seeds with keys in the store %d (want 0), in memory %d (want some)", link, failed[agent.KeysStore], failed[agent.KeysMemory])
		}
	}
}

func TestSeveralNodesNeedARemoteLink(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Nodes = 2
	if err := cfg.Validate(); err == nil {
		t.Fatal("two nodes on stdio accepted")
	}
}
