package conform_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	_ "github.com/acpsim/acpsim/actors/agent/mutants" // the known-bad Agents, for lint to catch
	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
)

// simConfig is one shape of run for the conformance sweep.
type simConfig struct {
	name string
	set  func(*world.Config) error
}

// sweep is every link, the Client policies and both conforming Agents,
// with cancels, closes and forks, then the knobs, proxies and nodes that
// change which frames are sent.
func sweep() []simConfig {
	var out []simConfig
	links := []string{world.LinkStdio, world.LinkHTTP, world.LinkWS, world.LinkMixed}
	policies := []string{"keyed", "naive", "lookup", "bounded", "stale", "none"}
	for i, link := range links {
		for j, pol := range policies {
			ag := agent.Reference
			if (i+j)%2 == 1 {
				ag = agent.Adapter
			}
			out = append(out, simConfig{link + "/" + pol + "/" + ag, func(c *world.Config) error {
				c.Link, c.Policy, c.Agent = link, pol, ag
				if link == world.LinkMixed {
					c.Clients = 3
				}
				return nil
			}})
		}
	}
	knob := func(link, name, value string) simConfig {
		return simConfig{link + "/" + name + "=" + value, func(c *world.Config) error {
			c.Link = link
			return c.Knobs.Set(name, value)
		}}
	}
	out = append(out,
		knob(world.LinkStdio, "busy", "reject"),
		knob(world.LinkWS, "busy", "breakpoint"),
		knob(world.LinkHTTP, "auth", "required"),
		knob(world.LinkStdio, "compare", "reject"),
		knob(world.LinkWS, "close-missing", "error"),
		knob(world.LinkStdio, "held-on-disconnect", "drop"),
		knob(world.LinkHTTP, "retain", "2"),
		knob(world.LinkStdio, "live-only", "/"),
		simConfig{"stdio/proxies=2", func(c *world.Config) error { c.Proxies = 2; return nil }},
		simConfig{"ws/proxies=1/adapter", func(c *world.Config) error {
			c.Link, c.Proxies, c.Agent = world.LinkWS, 1, agent.Adapter
			return nil
		}},
		simConfig{"http/nodes=2/sticky", func(c *world.Config) error {
			c.Link, c.Nodes, c.Sticky = world.LinkHTTP, 2, true
			return nil
		}},
		simConfig{"ws/nodes=3/fresh-connection", func(c *world.Config) error {
			c.Link, c.Nodes, c.FreshConnection = world.LinkWS, 3, true
			return nil
		}},
		simConfig{"http/nodes=2/adapter", func(c *world.Config) error {
			c.Link, c.Nodes, c.Agent = world.LinkHTTP, 2, agent.Adapter
			return nil
		}},
	)
	return out
}

// runs simulates seeds runs of sc and returns their traces.
func runs(t *testing.T, sc simConfig, seeds int) []*traces.Log {
	t.Helper()
	var logs []*traces.Log
	for seed := 1; seed <= seeds; seed++ {
		cfg := world.DefaultConfig()
		cfg.Seed = uint64(seed)
		cfg.Prompts = 4
		cfg.Cancels, cfg.Closes, cfg.Forks = 1, 1, 1
		if err := sc.set(&cfg); err != nil {
			t.Fatal(err)
		}
		cfg.EnableLinkFaults()
		res, err := world.Run(cfg)
		if err != nil {
			t.Fatalf("%s seed %d: %v", sc.name, seed, err)
		}
		logs = append(logs, res.Log)
	}
	return logs
}

// Every frame of every simulated run conforms, the observer's probes too:
// each is noted as a probe in the trace, malformed as it should be and
// refused with -32602 by the reference Agent, and no other frame is noted.
func TestEveryFrameOfEverySimulatedRunConforms(t *testing.T) {
	seeds := 28
	if testing.Short() {
		seeds = 3
	}
	var mu sync.Mutex
	frames, probes := 0, 0
	for _, sc := range sweep() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			n, np := 0, 0
			for _, log := range runs(t, sc, seeds) {
				for _, p := range conform.Trace(log.Events) {
					t.Errorf("seed %d: %s\n  frame: %s", log.Header.Seed, p, log.Events[p.Seq-1].Frame)
				}
				for _, e := range log.Events {
					if e.Kind != traces.KindSend {
						continue
					}
					n++
					// The observer's, on its own connection or on a
					// Client's it read live (traces.NoteObserve).
					sentAsProbe := e.Dir == traces.ClientToAgent && strings.Contains(e.Frame, "acpsim probe: this key is malformed")
					if noted := e.Note == traces.NoteProbe; noted != sentAsProbe {
						t.Errorf("seed %d seq %d: noted as a probe %v, sent as one %v: %s", log.Header.Seed, e.Seq, noted, sentAsProbe, e.Frame)
					}
					if sentAsProbe {
						np++
					}
				}
			}
			mu.Lock()
			frames, probes = frames+n, probes+np
			mu.Unlock()
		})
	}
	t.Cleanup(func() {
		if !t.Failed() && probes == 0 {
			t.Errorf("no probe was sent in %d frames: the probe rule is not exercised", frames)
		}
		t.Logf("%d frames checked, %d of them probes", frames, probes)
	})
}

// Lint catches the known-bad actors whose frames break a rule: the Agent
// that echoes the key in _meta, and the proxy that answers requests with
// other requests' results. The same seeds with the reference Agent and an
// honest proxy are clean, so it is the mutation that is caught.
func TestLintCatchesTheMutantsThatBreakARule(t *testing.T) {
	for _, tc := range []struct {
		name, rule string
		set        func(*world.Config) error
	}{
		{"echo-key", conform.RuleKeyInMeta, func(c *world.Config) error { c.Agent = "echo-key"; return nil }},
		{"lenient-key", conform.RuleProbe, func(c *world.Config) error { c.Agent = "lenient-key"; return nil }},
		{"wrong-response proxy", conform.RuleSchema, func(c *world.Config) error {
			c.Proxies, c.ProxyMode = 1, "wrong-response"
			return nil
		}},
		{"honest proxy", "", func(c *world.Config) error { c.Proxies = 1; return nil }},
		{"reference", "", func(*world.Config) error { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caught := 0
			for _, log := range runs(t, simConfig{tc.name, tc.set}, 20) {
				for _, p := range conform.Trace(log.Events) {
					switch {
					case p.Rule == tc.rule:
						caught++
					default:
						t.Errorf("seed %d: unexpected %s", log.Header.Seed, p)
					}
				}
			}
			if tc.rule != "" && caught == 0 {
				t.Errorf("no %s problem in 20 seeds", tc.rule)
			}
		})
	}
}
