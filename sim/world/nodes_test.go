package world

import (
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
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
			cfg.EnableLinkFaults()
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

// Scenario, Clients and Agents do not depend on the link: with one Client
// on each transport at once, the keyed policy holds and the checkers are
// the same.
func TestMixedLinks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Link, cfg.Clients = LinkMixed, 3
	cfg.EnableLinkFaults()
	sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 100})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 {
		t.Fatalf("%d seeds failed: %+v", sum.Failed, sum.Failures[0])
	}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range res.Log.Events {
		if e.Kind == "connect" {
			for _, l := range []string{"c1:a1#", "c2:http#", "c3:ws#"} {
				if len(e.Link) >= len(l) && e.Link[:len(l)] == l {
					seen[l] = true
				}
			}
		}
	}
	if len(seen) != 3 {
		t.Fatalf("links used: %v, want stdio, http and ws", seen)
	}
}

// Reordered reconnects: a ws Client whose prompt times out opens a fresh
// connection and leaves the old one open, so the old one's late frames
// arrive after the new one's and the retry races the original still pending
// on the old connection. Keys keep that safe; without them it duplicates.
func TestFreshConnectionsWithLateFrames(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Link, cfg.FreshConnection, cfg.Nodes = LinkWS, true, 3
	cfg.Cancels, cfg.Closes = 2, 1
	cfg.EnableLinkFaults()
	sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 300})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Stats.RetriesWhilePending == 0 {
		t.Fatalf("keyed with fresh connections: %d failed, %d retries while pending", sum.Failed, sum.Stats.RetriesWhilePending)
	}
	cfg.Policy = "naive"
	if sum, err = Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 100}); err != nil || sum.Failed == 0 {
		t.Fatalf("naive with fresh connections never failed (%v)", err)
	}
}
