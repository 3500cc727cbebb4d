// The depth-first search over schedules (see the package comment): its
// Config, Progress and Result, the batches run side by side, the children
// of each schedule and the twin check of Config.Twin.

package explore

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/parallel"
)

// Config bounds a search.
type Config struct {
	// Faults is K, the most non-zero choices a schedule forces.
	Faults int
	// Workers runs that many schedules side by side (at least 1).
	Workers int
	// Options picks the options worth forcing (AllOptions when nil).
	Options OptionsFunc
	// Progress, when set, is called from the caller's goroutine after each
	// run.
	Progress func(Progress)
	// Batch is how many schedules run side by side before their children
	// are pushed (DefaultBatch when 0). It changes neither the schedules
	// explored nor the counterexample, only how many schedules after a
	// counterexample are run before the search knows it can stop.
	Batch int
	// Twin, when set, names the pairs of consecutive decisions (d at index
	// i, next at i+1) where forcing d may give the same run as forcing next
	// instead. For such a schedule the search runs the twin too (one extra
	// run) and, if both runs have the same digest and ask the same
	// decisions from i+2 on, explores only the extensions of the schedule
	// at i+1: every other one is, run for run, an extension of the twin,
	// a later sibling the search explores anyway. Twin only proposes; the
	// runs decide.
	Twin func(d, next sim.Decision) bool
}

// DefaultBatch is the batch size of a Config without one.
const DefaultBatch = 256

// Progress is where a search stands.
type Progress struct {
	Done     int // schedules run
	Estimate int // estimated schedules in all (≥ Done)
	Failed   bool
}

// Result is what a search found.
type Result struct {
	// Schedules is how many schedules were run; without a counterexample,
	// every schedule of the bounded tree.
	Schedules int
	// ByFaults counts the schedules run per number of forced choices.
	ByFaults []int
	// Inconclusive counts the runs that could not be judged whole: a cap hit
	// while still busy, or no submission at all.
	Inconclusive int
	// Failed reports a counterexample: Counterexample is then the first
	// failing schedule in DFS order (empty when the run without faults
	// fails).
	Failed         bool
	Counterexample Schedule
	// Decisions is how many decisions the fault-free run asked.
	Decisions int
	// Twins counts the schedules whose subtree was cut down to their
	// twin's (Config.Twin).
	Twins int
}

// node is a schedule waiting to run, with what the estimate needs.
type node struct {
	sched Schedule
	// siblings is how many options its parent's run offered after its own
	// (-1 for the root).
	siblings int
	// twin, when set, is the parent's next decision, which Config.Twin says
	// may be equivalent to the schedule's last one (see Config.Twin).
	twin *sim.Decision
}

// result is one run of a batch.
type result struct {
	out      Outcome
	children []node
	asked    int  // decisions the run asked
	cut      bool // its subtree was cut down to its twin's (Config.Twin)
	err      error
}

// Search explores every schedule of at most cfg.Faults forced choices.
func Search(run RunFunc, cfg Config) (*Result, error) {
	if cfg.Faults < 0 {
		return nil, fmt.Errorf("faults %d: expected 0 or more", cfg.Faults)
	}
	if cfg.Options == nil {
		cfg.Options = AllOptions
	}
	batch := cfg.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	res := &Result{ByFaults: make([]int, cfg.Faults+1)}
	// stack holds the schedules waiting to run, the next in DFS order last.
	stack := []node{{siblings: -1}}
	var failed Schedule // the smallest failing schedule so far, if found
	found := false
	// The estimate's correction: children found over children predicted.
	var got, predicted float64
	var estimate int

	for len(stack) > 0 {
		n := min(batch, len(stack))
		cur := make([]node, n)
		for i := range n { // the next n in DFS order, smallest first
			cur[i] = stack[len(stack)-1-i]
		}
		stack = stack[:len(stack)-n]
		estimate = res.Schedules + estimateNodes(stack, cfg.Faults, got, predicted) + estimateNodes(cur, cfg.Faults, got, predicted)

		results := make([]result, n)
		parallel.ForEach(n, cfg.Workers, func(i int) {
			results[i] = runOne(run, cur[i], cfg)
		}, func(i int) {
			res.Schedules++
			res.ByFaults[len(cur[i].sched)]++
			if results[i].out == Inconclusive {
				res.Inconclusive++
			}
			if cfg.Progress != nil {
				cfg.Progress(Progress{Done: res.Schedules, Estimate: max(estimate, res.Schedules), Failed: found})
			}
		})

		// Merge in DFS order; children go back in DFS order too.
		var next []node // children of cur, in DFS order
		for i, r := range results {
			if r.err != nil {
				return nil, fmt.Errorf("schedule %s: %w", cur[i].sched, r.err)
			}
			s := cur[i].sched
			if len(s) == 0 {
				res.Decisions = r.asked
			}
			if r.out == Fail {
				failed, found = s, true
				stack = stack[:0] // everything waiting comes after s in DFS order
				break
			}
			if r.cut {
				res.Twins++
			} else if cur[i].siblings >= 0 && len(s) < cfg.Faults {
				got += float64(len(r.children))
				predicted += float64(cur[i].siblings)
			}
			next = append(next, r.children...)
		}
		for i := len(next) - 1; i >= 0; i-- {
			stack = append(stack, next[i])
		}
	}
	res.Failed, res.Counterexample = found, failed
	return res, nil
}

// runOne runs one schedule and returns its outcome and children.
func runOne(run RunFunc, n node, cfg Config) result {
	s := n.sched
	leaf := len(s) >= cfg.Faults
	ch := &Forcing{forced: s, record: !leaf, digest: n.twin != nil && !leaf}
	out, err := run(ch)
	if err == nil {
		err = ch.Err()
	}
	if err != nil || out == Fail || leaf {
		return result{out: out, asked: ch.n, err: err}
	}
	from, upto := 0, len(ch.asked)
	if len(s) > 0 {
		from = s[len(s)-1].Index + 1
	}
	cut := false
	if n.twin != nil {
		twin, err := twinOf(run, s, *n.twin, ch)
		if err != nil {
			return result{err: err}
		}
		if twin {
			upto, cut = min(from+1, upto), true
		}
	}
	type opt struct {
		i int
		o int
	}
	var opts []opt
	for i := from; i < upto; i++ {
		for _, o := range cfg.Options(ch.asked[i]) {
			opts = append(opts, opt{i, o})
		}
	}
	children := make([]node, len(opts))
	for j, x := range opts {
		sched := make(Schedule, len(s), len(s)+1)
		copy(sched, s)
		c := node{sched: append(sched, Forced{Index: x.i, Decision: ch.asked[x.i], Option: x.o}), siblings: len(opts) - 1 - j}
		if cfg.Twin != nil && x.i+1 < len(ch.asked) && cfg.Twin(ch.asked[x.i], ch.asked[x.i+1]) {
			c.twin = &ch.asked[x.i+1]
		}
		children[j] = c
	}
	return result{out: out, children: children, asked: ch.n, cut: cut}
}

// twinOf runs s with its last choice moved to the next decision (its twin,
// a later sibling of s) and reports whether the two runs are twins: the same
// digest, and the same decisions from the one after the twin's on, so that
// every schedule of s's subtree that forces a decision after those two is
// one of the twin's subtree, run for run. ran is s's run.
func twinOf(run RunFunc, s Schedule, next sim.Decision, ran *Forcing) (bool, error) {
	last := s[len(s)-1]
	t := make(Schedule, len(s))
	copy(t, s)
	t[len(t)-1] = Forced{Index: last.Index + 1, Decision: next, Option: last.Option}
	ch := &Forcing{forced: t, record: true, digest: true}
	if _, err := run(ch); err != nil {
		return false, err
	}
	if err := ch.Err(); err != nil {
		return false, err
	}
	after := last.Index + 2
	switch {
	case ran.dig == nil || ch.dig == nil || !bytes.Equal(ran.dig, ch.dig):
		return false, nil
	case len(ran.asked) != len(ch.asked) || after > len(ran.asked):
		return false, nil
	}
	return slices.Equal(ran.asked[after:], ch.asked[after:]), nil
}
