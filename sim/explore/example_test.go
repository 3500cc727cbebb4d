package explore_test

import (
	"fmt"

	_ "github.com/acpsim/acpsim/actors/agent/mutants" // registers the known-bad Agents
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/explore"
	"github.com/acpsim/acpsim/sim/world"
)

// A run with three fault decisions and a bug that needs two faults: the
// search runs the schedules of at most two faults in depth-first order and
// reports the first that fails, whatever the number of workers. (With
// Batch 1 it runs one schedule at a time and stops right there.)
func Example() {
	run := func(ch *explore.Forcing) (explore.Outcome, error) {
		cut := ch.Choose(sim.Decision{Kind: "cut", Site: "c1:a1#1/c2a/1", N: 2})
		delay := ch.Choose(sim.Decision{Kind: "delay", Site: "c1:a1#1/a2c/1", N: 3})
		kill := ch.Choose(sim.Decision{Kind: "kill", Site: "a1#1/2/respond-prompt", N: 2})
		if cut == 0 && delay == 2 && kill == 1 { // a long delay, then a kill
			return explore.Fail, nil
		}
		return explore.Pass, nil
	}
	res, err := explore.Search(run, explore.Config{Faults: 2, Workers: 1, Batch: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println("schedules run:", res.Schedules, res.ByFaults)
	fmt.Println("first counterexample:", res.Counterexample)

	// Without the bug, every schedule: none, 4 with one fault, and 5 with
	// two (the cut with each later option, each delay with the kill).
	res, _ = explore.Search(func(ch *explore.Forcing) (explore.Outcome, error) {
		run(ch)
		return explore.Pass, nil
	}, explore.Config{Faults: 2, Workers: 4})
	fmt.Println("all", res.Schedules, "schedules explored:", res.ByFaults)
	// Output:
	// schedules run: 9 [1 3 5]
	// first counterexample: #1 delay at c1:a1#1/a2c/1 = 2, #2 kill at a1#1/2/respond-prompt = 1
	// all 10 schedules explored: [1 4 5]
}

// Searching the simulator: every schedule of one fault over two prompts
// against an Agent that ignores idempotencyKey, which a single delayed
// prompt past the Client's timeout is enough to catch.
func ExampleWorld() {
	cfg := world.DefaultConfig()
	cfg.Agent, cfg.Prompts = "ignore-key", 2
	space := explore.DefaultSpace(cfg)
	res, err := explore.Search(explore.World(cfg), explore.Config{
		Faults: 1, Workers: 2, Options: space.Options(), Twin: explore.KillTwin,
	})
	if err != nil {
		panic(err)
	}
	if res.Failed {
		v, _ := explore.Rerun(cfg, res.Counterexample)
		fmt.Println(res.Counterexample[0].Decision.Kind, v.Report.Anomalies[0].Kind)
	}
	// Output:
	// delay duplicate
}
