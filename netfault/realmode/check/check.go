// Package check is acpsim check's driver: the model Clients and users of
// the simulator against a real Agent (a process per connection on stdio, or
// remote endpoints), through a fault proxy it holds between them, under a
// virtual or the wall clock. This file is its API: a run's configuration
// (Config), its result (Result) and Run, which runs one seed.
package check

import (
	"errors"
	"fmt"
	"time"

	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// Config is one run of acpsim check: the model Clients and users of the
// simulator, against a real Agent process, through a fault proxy, in real
// time.
type Config struct {
	// Agent is the Agent's command line (stdio): one process per Client
	// connection, started again after every kill.
	Agent []string
	// URLs, instead of Agent, are remote endpoints of one Agent (several:
	// nodes sharing a store): each new connection goes to one of them, by
	// the route decision. Restart, if set, is a shell command that kills
	// and restarts the Agent behind URLs[$ACPSIM_NODE] and returns once it
	// serves again: the remote kill.
	URLs    []string
	Restart string
	// Env is the Agent's environment (nil: acpsim's own).
	Env  []string
	Seed uint64
	// Policy names the Clients' retry policy (client.Policies).
	Policy string
	// Protocol is the ACP version the Clients and the observer speak: 2
	// (0 too), or 1 (the Agent answered initialize in v1: acpsim check
	// runs again in v1). A v1 Agent that answers a Client pinned to 2 is
	// BrokenSpeaksV1.
	Protocol int
	// Users: Clients, sessions per Client, submissions per Client, actions.
	Clients, Sessions, Prompts int
	Cancels, Closes, Forks     int
	// CancelBy sends every cancel one way (users.CancelByRequest,
	// CancelBySession; "": either, drawn per cancel).
	CancelBy string
	// Timeout is the Clients' prompt timeout, Backoff their wait before a
	// reconnect or retry, MaxGap the longest pause between two submissions
	// of one user. ChaosFor is how long faults go on after the last
	// submission.
	Timeout, Backoff, MaxGap, ChaosFor time.Duration
	// StartTimeout is how long a new connection's initialize may go
	// unanswered before the Agent is called hung.
	StartTimeout time.Duration
	// Cap cuts the chaos of a run that has not finished by then; its heal
	// and its observer then get Cap/4 each (the observer StartTimeout
	// more), so the transcripts are still read. A run cut is inconclusive
	// at best.
	Cap time.Duration
	// Rates are the fault rates (Faults); Chooser, when set, replaces
	// the seeded choices (a recorded schedule).
	Rates   map[string]float64
	Chooser sim.Chooser
	// Contract is what the Agent promises about retention (the checker's
	// default, "all", for an Agent that keeps every message).
	Contract traces.Contract
	// Via is the command of a proxy started in front of the Agent (acpsim
	// check --via; Agent is then its command): verdicts on what the path
	// does name the proxy or the Agent behind it, which acpsim cannot tell
	// apart.
	Via string
	// Hop, under Via, records the proxy→Agent hop: given where, it gives
	// the command line and the environment entry that start proxy process
	// n with acpsim tap between it and its Agent, recording to where.
	// HopTrace is that file (one for the seed; the taps append to it
	// together). Either unset: the hop is not recorded.
	Hop      func(n int, where string) (argv []string, env string)
	HopTrace string
	// Clock is ClockVirtual (acpsim holds the schedule; "" too) or
	// ClockWall (clock.go). Under the virtual clock Settle is how
	// long the Agent must be silent before the next step, and OwedWait how
	// long acpsim waits for an answer the Agent owes before it goes on.
	Clock            string
	Settle, OwedWait time.Duration
	// Skip leaves out users' events by name (a submission, an action or a
	// whole Client), as the simulator's: a shrunk schedule.
	Skip []string
	// Command is the command line that reruns this run, and AgentLabel how
	// the trace header names the Agent (default: its argv joined by spaces).
	Command, AgentLabel string
}

// DefaultConfig is acpsim check with no flags: small and fast, so that
// a run of 30 seeds fits in CI.
func DefaultConfig() Config {
	return Config{
		Policy: "keyed", Clients: 2, Sessions: 2, Prompts: 5,
		Timeout: 150 * time.Millisecond, Backoff: 20 * time.Millisecond,
		MaxGap: 40 * time.Millisecond, ChaosFor: 300 * time.Millisecond,
		StartTimeout: 5 * time.Second, Cap: 60 * time.Second,
		Clock: ClockVirtual, Settle: 15 * time.Millisecond, OwedWait: time.Second,
		Rates:    Rates(),
		Contract: traces.Contract{Retention: "all", LiveOnly: []string{}},
	}
}

// Result is one run's trace, its fault tally and, when the Agent broke
// the transport itself, what it did.
type Result struct {
	Log    *traces.Log
	Faults []sim.KindCount
	Broken *BrokenAgent
}

// Run runs one seed against the real Agent. An error means acpsim could
// not run it at all (the command cannot be started, a bad config); an Agent
// that misbehaves gives a result with Broken set.
func Run(cfg Config) (*Result, error) {
	pol, err := client.LookupPolicy(cfg.Policy)
	if err != nil {
		return nil, err
	}
	if len(cfg.Agent) == 0 && len(cfg.URLs) == 0 {
		return nil, errors.New("no Agent command: give it after --, or --url")
	}
	if cfg.Clients < 1 || cfg.Sessions < 1 || cfg.Prompts < 0 {
		return nil, fmt.Errorf("clients %d, sessions %d, prompts %d: expected at least 1, 1 and 0", cfg.Clients, cfg.Sessions, cfg.Prompts)
	}
	d := newDriver(cfg, pol)
	return d.run()
}
