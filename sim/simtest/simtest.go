// Package simtest runs an Agent design under acpsim's simulator from go
// test, as rapid.Check runs a property: many seeds over every link, each
// seed with its own fault classes and user actions, the checkers judging
// each; on the first failure the run is shrunk, its trace written, and the
// test fails with the anomaly in prose and the command that replays it.
//
// The Agent is your own agent.Machine factory (Options.Agent) or a design
// over acpsim's model Agents (Options.Design, as --design spells it). A
// replay is the same test run again with ACPSIM_REPLAY naming the trace: it
// runs the shrunk schedule once and fails the same way, with no search.
package simtest

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/shrink"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
)

// TB is what Check needs of a *testing.T (or *testing.B).
type TB interface {
	Helper()
	Name() string
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Options say what Check runs.
type Options struct {
	// Agent builds your Agent's processes (nil: the model Agent the
	// Design names, the reference by default). It gets the Design's knobs.
	Agent agent.Factory
	// Name names your Agent in traces (default: the test's name).
	Name string
	// Design is a design spec (a built-in's name, or
	// NAME=SETTING:VALUE,…; acpsim knobs): the knobs, nodes and proxies
	// of every run. With Agent set it may not name another model Agent.
	Design string
	// Policy is the Clients' retry policy spec (default "keyed").
	Policy string
	// Seeds is how many seeds run on each link (default 50; the
	// environment's ACPSIM_SEEDS wins), from FirstSeed (default 1;
	// ACPSIM_SEED wins).
	Seeds     int
	FirstSeed uint64
	// Links are the links to run on (default stdio, http, ws; a design
	// restricted to some links runs on those of them).
	Links []string
	// Clients and Prompts per Client (default the simulator's: 1 and 10).
	Clients, Prompts int
	// Dir is where a failing run's trace is written (default
	// testdata/acpsim-failures, beside the test, as rapid's testdata/rapid).
	Dir string
}

// ReplayEnv names the trace a replay runs: ACPSIM_REPLAY=FILE go test -run
// '^TestName$' . runs that trace's schedule once instead of the seeds.
const ReplayEnv = "ACPSIM_REPLAY"

// Check runs the seeds and fails t on the first that shows an anomaly.
func Check(t TB, o Options) {
	t.Helper()
	if err := o.defaults(t); err != nil {
		t.Fatalf("simtest: %v", err)
		return
	}
	if trace := os.Getenv(ReplayEnv); trace != "" {
		replay(t, o, trace)
		return
	}
	for _, link := range o.Links {
		base, err := o.config(link)
		if err != nil {
			t.Fatalf("simtest: %v", err)
			return
		}
		sum, err := world.Swarm(world.SwarmConfig{Base: base, FirstSeed: o.FirstSeed, Seeds: o.Seeds, Classes: true, Actions: true, MaxFailures: 1})
		if err != nil {
			t.Fatalf("simtest: over %s: %v", link, err)
			return
		}
		if len(sum.Failures) > 0 {
			fail(t, o, base, sum.Failures[0], sum.Failed)
			return
		}
	}
	t.Logf("simtest: %s: %d seeds on each of %s: every submission inserted at most once and never silently lost", o.Name, o.Seeds, strings.Join(o.Links, ", "))
}

func (o *Options) defaults(t TB) error {
	o.Name = cmp.Or(o.Name, strings.ReplaceAll(t.Name(), "/", "-"))
	o.Policy = cmp.Or(o.Policy, "keyed")
	o.Seeds = cmp.Or(o.Seeds, 50)
	o.FirstSeed = cmp.Or(o.FirstSeed, 1)
	o.Dir = cmp.Or(o.Dir, filepath.Join("testdata", "acpsim-failures"))
	if v := os.Getenv("ACPSIM_SEEDS"); v != "" {
		if _, err := fmt.Sscan(v, &o.Seeds); err != nil || o.Seeds < 1 {
			return fmt.Errorf("ACPSIM_SEEDS=%q: expected a number of seeds, 1 or more", v)
		}
	}
	if v := os.Getenv("ACPSIM_SEED"); v != "" {
		if _, err := fmt.Sscan(v, &o.FirstSeed); err != nil {
			return fmt.Errorf("ACPSIM_SEED=%q: expected a seed", v)
		}
	}
	if o.Links == nil {
		o.Links = []string{world.LinkStdio, world.LinkHTTP, world.LinkWS}
	}
	return nil
}

// config is the base configuration of the seeds on link.
func (o *Options) config(link string) (world.Config, error) {
	cfg := world.DefaultConfig()
	cfg.Link = link
	cfg.Clients, cfg.Prompts = cmp.Or(o.Clients, cfg.Clients), cmp.Or(o.Prompts, cfg.Prompts)
	cfg.SetUserActions(users.DefaultActionBase)
	pol, err := design.ParsePolicy(o.Policy)
	if err != nil {
		return cfg, err
	}
	if err := pol.Apply(&cfg); err != nil {
		return cfg, err
	}
	if o.Design != "" {
		d, err := design.Parse(o.Design, nil)
		if err != nil {
			return cfg, err
		}
		if err := d.Apply(&cfg); err != nil {
			return cfg, err
		}
		if !d.RunsOn(link) {
			return cfg, fmt.Errorf("design %s runs on %s only, not %s: give Links", d.Name, strings.Join(d.Links, ", "), link)
		}
	}
	if o.Agent != nil {
		if cfg.Agent != agent.Reference {
			return cfg, fmt.Errorf("Options.Agent is your Agent; the design names the model Agent %q too", cfg.Agent)
		}
		cfg.Agent, cfg.Factory = o.Name, o.Agent
	}
	cfg.EnableLinkFaults()
	return cfg, cfg.Validate()
}

// seedConfig is the configuration the swarm gave seed f.
func seedConfig(base world.Config, f world.SeedFailure) world.Config {
	cfg := base
	cfg.Seed = f.Seed
	if f.Rates != nil {
		cfg.Rates = f.Rates
	}
	if f.Actions != nil {
		cfg.SetUserActions(*f.Actions)
	}
	return cfg
}

// fail shrinks the failing seed, writes its trace and fails t.
func fail(t TB, o Options, base world.Config, f world.SeedFailure, failed int) {
	t.Helper()
	cfg := seedConfig(base, f)
	v, err := world.Judge(cfg)
	if err != nil {
		t.Fatalf("simtest: seed %d over %s: %v", f.Seed, base.Link, err)
		return
	}
	kind := f.Kinds[0]
	best := v
	var skip []string
	if res, err := shrink.Shrink(cfg, sim.Recorded(v.Result.Log.Events), kind); err == nil {
		best, skip = res.Verdict, res.Config.Skip
	} else {
		t.Logf("simtest: not shrunk: %v", err)
	}
	path, replayCmd, err := o.writeTrace(t, best.Result.Log, cfg, skip)
	if err != nil {
		t.Fatalf("simtest: writing the trace: %v", err)
		return
	}
	var prose string
	for _, a := range best.Report.Anomalies {
		if a.Kind == kind {
			prose = a.Explanation
			break
		}
	}
	t.Fatalf("simtest: %s over %s, seed %d: %s (%d of %d seeds on %s failed; shrunk to %d submissions, %d faults)\n%s: %s\ntrace: %s\nreplay: %s",
		o.Name, base.Link, f.Seed, strings.Join(f.Kinds, ", "), failed, o.Seeds, base.Link,
		best.Report.Stats.Submissions, faults(best.Result.Log.Events), kind, prose, path, replayCmd)
}

// writeTrace writes a failing run's trace under Dir, its header's command
// the acpsim run command of the run (its skip list is what a replay reads
// back), and gives the command that replays it.
func (o Options) writeTrace(t TB, log *traces.Log, cfg world.Config, skip []string) (string, string, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return "", "", err
	}
	f, err := os.CreateTemp(o.Dir, fmt.Sprintf("%s-%s-seed-%d-*.ndjson", o.Name, cfg.Link, cfg.Seed))
	if err != nil {
		return "", "", err
	}
	abs, _ := filepath.Abs(f.Name())
	wd, _ := os.Getwd()
	replayCmd := fmt.Sprintf("cd %s && %s=%s go test -run '^%s$' .", quote(wd), ReplayEnv, quote(abs), topName(t.Name()))
	log.Header.Command = runCommand(cfg, skip)
	if _, err := log.WriteTo(f); err != nil {
		f.Close()
		return "", "", err
	}
	return abs, replayCmd, f.Close()
}

// faults counts the fault decisions a run took.
func faults(events []traces.Event) int {
	n := 0
	for _, c := range sim.Recorded(events) {
		if c.Option != 0 {
			n++
		}
	}
	return n
}

func topName(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

func quote(s string) string {
	if strings.ContainsAny(s, " '\"$\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
