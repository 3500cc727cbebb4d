package simtest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// replay runs the trace's schedule once, in the configuration Check gave
// its seed, and fails t as the trace shows (or says it no longer does).
func replay(t TB, o Options, path string) {
	t.Helper()
	log, err := traces.ReadFile(path)
	if err != nil {
		t.Fatalf("simtest: %s=%s: %v", ReplayEnv, path, err)
		return
	}
	h := log.Header
	if h.Agent != o.Name && o.Agent != nil {
		t.Fatalf("simtest: %s is a trace of %q, not of %q: run its own test", path, h.Agent, o.Name)
		return
	}
	base, err := o.config(h.Link)
	if err != nil {
		t.Fatalf("simtest: %v", err)
		return
	}
	cfg := drawnConfig(base, h.Seed)
	if !maps.Equal(cfg.Rates, h.Rates) {
		t.Fatalf("simtest: %s was written by another configuration (its fault rates differ from those this test gives seed %d)", path, h.Seed)
		return
	}
	cfg.Skip = skipOf(h.Command)
	cfg.Chooser = sim.NewSchedule(sim.Recorded(log.Events))
	v, err := world.Judge(cfg)
	if err != nil {
		t.Fatalf("simtest: replaying %s: %v", path, err)
		return
	}
	if v.Report.OK() {
		t.Logf("simtest: %s replayed: no anomaly now (fixed?)", path)
		return
	}
	var kinds, prose []string
	for _, a := range v.Report.Anomalies {
		if !slices.Contains(kinds, a.Kind) {
			kinds = append(kinds, a.Kind)
			prose = append(prose, a.Kind+": "+a.Explanation)
		}
	}
	t.Fatalf("simtest: replayed %s (seed %d over %s): %s\n%s", path, h.Seed, h.Link, strings.Join(kinds, ", "), strings.Join(prose, "\n"))
}

// drawnConfig is base as the swarm runs seed: its fault classes and its
// users' actions drawn from the seed.
func drawnConfig(base world.Config, seed uint64) world.Config {
	cfg := base
	cfg.Seed = seed
	cfg.Rates = world.DrawClasses(seed, base.Rates, nil).Rates
	cfg.SetUserActions(users.DrawActions(seed, base.UserActions()).Actions)
	return cfg
}

// skipOf reads the --skip= of a trace header's command.
func skipOf(command string) []string {
	words, err := shell.Split(command)
	if err != nil {
		return nil
	}
	for _, w := range words {
		if v, ok := strings.CutPrefix(w, "--skip="); ok && v != "" {
			return strings.Split(v, ",")
		}
	}
	return nil
}

// runCommand is the acpsim run command of cfg: for a model Agent it
// reruns the run; for an Agent of your own it records the run's settings
// (acpsim has no such Agent, so only the go test replay runs it).
func runCommand(cfg world.Config, skip []string) string {
	def := world.DefaultConfig()
	parts := []string{"acpsim", "run", "--seed", strconv.FormatUint(cfg.Seed, 10), "--link=" + cfg.Link, "--policy=" + cfg.Policy}
	add := func(name, v string) { parts = append(parts, "--"+name+"="+shell.Quote(v)) }
	if cfg.Agent != def.Agent {
		add("agent", cfg.Agent)
	}
	knobs, defKnobs := cfg.Knobs.Map(), agent.DefaultKnobs().Map()
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		if knobs[k] != defKnobs[k] {
			add(k, knobs[k])
		}
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"max-attempts", cfg.MaxAttempts, def.MaxAttempts}, {"stale-after", cfg.StaleAfter, def.StaleAfter},
		{"timeout", cfg.Timeout, def.Timeout}, {"backoff", cfg.Backoff, def.Backoff}, {"window", cfg.Window, def.Window},
		{"clients", cfg.Clients, def.Clients}, {"prompts", cfg.Prompts, def.Prompts}, {"sessions", cfg.Sessions, def.Sessions},
		{"nodes", cfg.Nodes, def.Nodes}, {"proxies", cfg.Proxies, def.Proxies},
		{"cancels", cfg.Cancels, def.Cancels}, {"closes", cfg.Closes, def.Closes}, {"forks", cfg.Forks, def.Forks},
	} {
		if f.got != f.want {
			add(f.name, fmt.Sprint(f.got))
		}
	}
	if cfg.Proxies > 0 {
		add("proxy", cfg.ProxyMode)
	}
	if cfg.CancelBy != "" {
		add("cancel-by", cfg.CancelBy)
	}
	add("fault-rates", world.FormatRates(cfg.Rates, slices.Sorted(maps.Keys(cfg.Rates))))
	if len(skip) > 0 {
		add("skip", strings.Join(skip, ","))
	}
	return strings.Join(parts, " ")
}
