// Package explore is acpsim's bounded-exhaustive mode: a depth-first search
// over every choice sequence with at most K non-zero decisions among those a
// run reaches (stateless model checking). It either explores every schedule
// and finds nothing, or returns the first counterexample in DFS order.
//
// # The search
//
// A schedule is a list of forced choices, each "at the Index-th decision the
// run asks, take option Option" (indices counted from 0 over every decision
// the run asks, whatever its kind), in increasing Index order. Running a
// schedule forces those choices, answers every other decision 0 ("no
// fault"), and records every decision asked. Runs are deterministic given
// their choices (the simulator's own ties are ordered, ids come from a
// separate seeded stream), so the decisions before a schedule's last forced
// index are the same as its parent's, and the children of a schedule are
// well defined: one more non-zero option at a decision index after the
// schedule's last forced one, for each option worth forcing there (Options),
// while the schedule has fewer than K forced choices. Every schedule is
// reached exactly once, from the root (no fault at all). A schedule whose run
// fails gets no children: it is the first failing schedule of its subtree.
//
// DFS order is the lexicographic order of schedules as lists of (Index,
// Option), a schedule before its extensions. The search runs whole batches
// of the next schedules in DFS order side by side (parallel.ForEach), then
// pushes their children back in DFS order, so the set of schedules waiting
// to run is always sorted. When a run fails, every schedule after it in DFS
// order is dropped and the search goes on only with the ones before it: the
// counterexample returned is the smallest failing schedule in DFS order,
// whatever the number of workers (and with a fixed batch size the number of
// schedules run is the same too).
//
// # What is explored, and the prunings
//
// Each reduction below says what it assumes. The first four restrict the
// space (the output says which space it covered); the last cuts only
// schedules that run exactly like ones explored anyway.
//
//   - Schedules are sets. Forced choices go in increasing decision order,
//     so the K! orders of one set of faults are one schedule. Assumes
//     nothing: a run asks its decisions in one order.
//   - Kinds (Space.Kinds). Only the kinds a run of the configuration can
//     draw are forced: those with a non-zero rate, so the HTTP-only kinds
//     on stdio and route with one node are never forced, nor a kind the
//     user set to 0 with --fault-rates. Every other decision gets 0, as the
//     seeded stream would give it. Most of these are never even asked
//     (stdio asks no HTTP decision; the heal phase and the observer ask
//     nothing, the world answers 0 itself), and a decision with N ≤ 1
//     has nothing to force.
//   - Delays (Space.Delays). A delay decision has four non-zero steps
//     (netfault.DelaySteps); by default only the first one longer than the
//     Client's timeout is forced, 300ms at the default 250ms. A pipe keeps
//     order, so a delay only moves a frame against timers, user actions and
//     other links; the move that matters for idempotency is the one past
//     the timeout: the Client gives up on a frame still in flight and
//     retries while the original is pending or about to be inserted. 2ms
//     and 30ms stay within the timeout (nothing retries), 1500ms crosses it
//     as well but only adds retries queued behind the same frame. Assumes
//     an anomaly needing one of the other steps is out of scope; --delays
//     widens it (all four steps take about 3.5 times as long).
//   - Bounds. K faults and the scenario of --prompts, --seed and the other
//     simulation flags: the users (what they type, when, their cancels,
//     closes and forks) are one draw, not explored.
//   - Twins (Config.Twin, KillTwin). A kill before an Agent's sync output,
//     with its unsynced writes kept, leaves the disk a kill just after the
//     sync leaves; when nothing happens in between the two runs are the
//     same but for the kill's note, and so are their extensions. The search
//     checks each proposed pair by running both and comparing Digest and
//     the decisions asked after them; only then does it explore just the
//     kill's extension at the next decision (lose-unsynced: the kill that
//     does lose the writes). Assumes a run's future is a function of its
//     observable history (the digest), which holds for the simulator's
//     actors: state machines fed only by the events the trace records. On
//     the reference Agent's three-prompt run these 8 pairs are the only
//     one-fault schedules (of 104) whose digests are equal, and for five
//     Agents with cancels, closes and forks every one-fault extension of
//     every pair (about 2,000) ran with the digest and verdict of its twin's
//     (TestTwinsRunAlike checks a smaller case).
//
// Pruning changes which schedule is reported first only when a cut one
// fails: its twin, a later sibling, fails the same way and is reported.
//
// # Estimating the size of the tree
//
// The total is not known up front. A waiting schedule was made by forcing
// one of its parent's options; the options its parent's run asked after
// that one (its younger siblings, r of them) are the best guess of the
// options its own run will ask, since one fault rarely changes how many
// decisions follow. With k faults left its subtree then holds about
// C(r,0)+C(r,1)+…+C(r,k) schedules. The runs made so far measure how far
// that guess is off (children actually found over siblings predicted), and
// the estimate scales every r by that ratio. With K = 2 it is exact once
// the one-fault schedules have run (their children are the leaves); with
// K = 3 it stayed within 7% of the total from the first batch on.
package explore

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/sim"
)

// Forced is one non-zero choice of a schedule: at the Index-th decision the
// run asks (from 0), which is Decision, take Option.
type Forced struct {
	Index    int
	Decision sim.Decision
	Option   int
}

func (f Forced) String() string {
	return fmt.Sprintf("#%d %s at %s = %d", f.Index, f.Decision.Kind, f.Decision.Site, f.Option)
}

// Schedule is a list of forced choices in increasing Index order.
type Schedule []Forced

func (s Schedule) String() string {
	if len(s) == 0 {
		return "(no fault)"
	}
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = f.String()
	}
	return strings.Join(parts, ", ")
}

// Choices returns the schedule as the simulator's choices (a trace's choose
// events), e.g. for sim.NewSchedule.
func (s Schedule) Choices() []sim.Choice {
	out := make([]sim.Choice, len(s))
	for i, f := range s {
		out[i] = sim.Choice{Decision: f.Decision, Option: f.Option}
	}
	return out
}

// Outcome is the verdict of one run.
type Outcome int

// Outcomes.
const (
	Pass         Outcome = iota
	Fail                 // a property failed: a counterexample
	Inconclusive         // the run hit its cap while still busy
)

// RunFunc runs one whole simulation with ch answering every fault decision
// and judges it. It is called from several goroutines at once, each call
// with its own Chooser, a *Forcing: when ch.WantsDigest() it should also
// SetDigest (without one, Config.Twin never cuts anything).
type RunFunc func(ch *Forcing) (Outcome, error)

// OptionsFunc returns the non-zero options of d worth forcing, in increasing
// order (none: the decision always gets 0). It is where the kinds explored,
// the discretisation of delays and the prunings live.
type OptionsFunc func(d sim.Decision) []int

// AllOptions forces every non-zero option of every decision.
func AllOptions(d sim.Decision) []int {
	out := make([]int, 0, max(d.N-1, 0))
	for o := 1; o < d.N; o++ {
		out = append(out, o)
	}
	return out
}
