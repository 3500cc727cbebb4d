package world

import (
	"testing"

	"github.com/acpsim/acpsim/actors/proxy"
)

// A chain of honest proxies rewrites every JSON-RPC id and forwards the key
// unchanged, so keyed retries stay safe end to end; each known-bad proxy is
// caught.
func TestProxyChains(t *testing.T) {
	for _, m := range proxy.Modes {
		t.Run(m.Name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Proxies, cfg.ProxyMode = 2, m.Name
			if m.Name == proxy.UnmappedCancel {
				cfg.Cancels = 6 // its bug needs a user's $/cancel_request
			}
			sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 200})
			if err != nil {
				t.Fatal(err)
			}
			if m.Name == proxy.Honest {
				if sum.Failed != 0 {
					t.Fatalf("honest proxies: %d seeds failed: %+v", sum.Failed, sum.Failures[0])
				}
				return
			}
			if sum.Failed == 0 {
				t.Fatalf("%s: no seed failed in 200", m.Name)
			}
		})
	}
}
