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
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
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
	// Inconclusive counts the runs that hit their cap while still busy.
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

// Forcing is the Chooser of one schedule: it forces the schedule's choices,
// answers 0 everywhere else and records every decision asked.
type Forcing struct {
	forced Schedule
	next   int
	record bool
	asked  []sim.Decision
	n      int
	err    error
	digest bool   // the search compares this run with its twin
	dig    []byte // what the run set with SetDigest
}

// NewForcing returns the Chooser that runs s.
func NewForcing(s Schedule) *Forcing { return &Forcing{forced: s, record: true} }

// Choose implements sim.Chooser.
func (f *Forcing) Choose(d sim.Decision) int {
	i := f.n
	f.n++
	if f.record {
		f.asked = append(f.asked, d)
	}
	if f.next < len(f.forced) && f.forced[f.next].Index == i {
		want := f.forced[f.next]
		f.next++
		if want.Decision.Kind != d.Kind || want.Decision.Site != d.Site {
			if f.err == nil {
				f.err = fmt.Errorf("not deterministic: decision %d was %s at %s in the schedule's parent, %s at %s now",
					i, want.Decision.Kind, want.Decision.Site, d.Kind, d.Site)
			}
			return 0
		}
		return want.Option
	}
	return 0
}

// WantsDigest reports whether the search compares this run with another one
// (Config.Twin): the RunFunc should then SetDigest.
func (f *Forcing) WantsDigest() bool { return f.digest }

// SetDigest records the digest of the run's observable history: everything
// that decides what happens next, except the forced choices themselves.
// Two runs with equal digests must behave alike under equal further choices.
func (f *Forcing) SetDigest(d []byte) { f.dig = d }

// Asked returns the decisions asked so far, in order.
func (f *Forcing) Asked() []sim.Decision { return f.asked }

// Err reports a forced choice that did not meet the decision the schedule
// expected, or was never reached.
func (f *Forcing) Err() error {
	if f.err == nil && f.next < len(f.forced) {
		w := f.forced[f.next]
		return fmt.Errorf("not deterministic: decision %d (%s at %s) was never asked (%d decisions)", w.Index, w.Decision.Kind, w.Decision.Site, f.n)
	}
	return f.err
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

// estimateNodes estimates how many schedules the subtrees of ns hold (see
// the package comment).
func estimateNodes(ns []node, k int, found, predicted float64) int {
	ratio := 1.0
	if predicted > 0 {
		ratio = found / predicted
	}
	total := 0.0
	for _, n := range ns {
		if n.siblings < 0 {
			total++ // the root: nothing to go by yet
			continue
		}
		total += subtree(ratio*float64(n.siblings), k-len(n.sched))
	}
	return int(total + 0.5)
}

// subtree is C(x,0)+C(x,1)+…+C(x,k) for a real x ≥ 0.
func subtree(x float64, k int) float64 {
	sum, term := 0.0, 1.0
	for m := 0; m <= k; m++ {
		if m > 0 {
			term *= (x - float64(m-1)) / float64(m)
		}
		if term <= 0 {
			break
		}
		sum += term
	}
	return sum
}

// World returns the RunFunc of cfg: each schedule is one whole world.Judge
// of cfg with the schedule's Chooser in place of the seeded fault stream
// (cfg.Seed still seeds the ids, keys and the users' scenario).
func World(cfg world.Config) RunFunc {
	return func(ch *Forcing) (Outcome, error) {
		c := cfg
		c.Chooser = ch
		v, err := world.Judge(c)
		if err != nil {
			return Pass, err
		}
		if ch.WantsDigest() {
			ch.SetDigest(Digest(v.Result.Log))
		}
		switch {
		case !v.Report.OK():
			return Fail, nil
		case v.Report.Inconclusive:
			return Inconclusive, nil
		}
		return Pass, nil
	}
}

// Digest is a run's observable history for Config.Twin: every event of its
// trace but the choose events (the forced choices themselves) and the note
// of a kill (which names the step the process died before), without
// sequence numbers (choose events take some). The simulator's actors are
// state machines fed only by what the trace records (frames delivered,
// timers, kills with their losses, restarts), in virtual time, so two runs
// with the same digest were in the same state at every instant.
func Digest(log *traces.Log) []byte {
	h := sha256.New()
	var num [8]byte
	for i := range log.Events {
		e := &log.Events[i]
		if e.Kind == traces.KindChoose {
			continue
		}
		note := e.Note
		if e.Kind == traces.KindKill {
			note = ""
		}
		binary.LittleEndian.PutUint64(num[:], uint64(e.T))
		h.Write(num[:])
		for _, f := range []string{e.Kind, e.Link, e.From, e.To, e.Dir, e.Frame, e.Client, e.Sub, e.Text,
			e.Outcome, e.Session, e.MessageID, e.Decision, e.Site, strconv.Itoa(e.Option), strconv.FormatBool(e.LostUnsynced), note} {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
	}
	return h.Sum(nil)
}

// Space is the part of a run's decisions a search forces.
type Space struct {
	// Kinds are the fault kinds forced; every other decision gets 0.
	Kinds []string
	// Delays are the options of a delay decision forced (indices into
	// netfault.DelaySteps, not 0).
	Delays []int
}

// DefaultSpace is the space explored for cfg: the kinds a run of cfg can
// draw (a non-zero rate in cfg.Rates: the stdio kinds, plus the HTTP ones on
// an http link and route with several nodes), and one delay, the first step
// longer than the Client's timeout.
func DefaultSpace(cfg world.Config) Space {
	var sp Space
	for _, f := range netfault.Faults {
		if cfg.Rates[f.Kind] > 0 {
			sp.Kinds = append(sp.Kinds, f.Kind)
		}
	}
	sp.Delays = []int{DelayOver(cfg.Timeout)}
	return sp
}

// DelayOver is the first netfault.DelaySteps option longer than d (the
// longest if none is).
func DelayOver(d time.Duration) int {
	for i, s := range netfault.DelaySteps {
		if s > d {
			return i
		}
	}
	return len(netfault.DelaySteps) - 1
}

// KillTwin proposes the one equivalence between sites the simulator has: a
// kill before a sync output of an Agent process (site "a1#1/6/sync-insert")
// and a kill before its next output ("a1#1/7/respond-prompt"). With the
// unsynced writes kept (lose-unsynced 0, the default), dying before the sync
// or just after it leaves the same disk, and if nothing happened in between
// (the sync and the response belong to one step) the runs are the same but
// for the kill's note. Config.Twin checks each proposal by running both.
func KillTwin(d, next sim.Decision) bool {
	if d.Kind != netfault.Kill || next.Kind != netfault.Kill {
		return false
	}
	p, n, step, ok := killSite(d.Site)
	q, m, _, ok2 := killSite(next.Site)
	return ok && ok2 && p == q && m == n+1 && strings.HasPrefix(step, "sync")
}

// killSite splits a kill site "a1#1/6/sync-insert" into process, output
// number and step.
func killSite(site string) (proc string, n int, step string, ok bool) {
	parts := strings.SplitN(site, "/", 3)
	if len(parts) != 3 {
		return "", 0, "", false
	}
	n, err := strconv.Atoi(parts[1])
	return parts[0], n, parts[2], err == nil
}

// Options returns the OptionsFunc of the space.
func (sp Space) Options() OptionsFunc {
	kinds := map[string]bool{}
	for _, k := range sp.Kinds {
		kinds[k] = true
	}
	delays := slices.Sorted(slices.Values(sp.Delays))
	return func(d sim.Decision) []int {
		switch {
		case !kinds[d.Kind] || d.N <= 1:
			return nil
		case d.Kind == netfault.Delay:
			return delays
		}
		return AllOptions(d)
	}
}

// Rerun runs schedule s of cfg once more and returns its verdict, for the
// counterexample's report and trace. It fails if the run does not ask the
// decisions s forces, or if it passes where the search saw it fail.
func Rerun(cfg world.Config, s Schedule) (*world.Verdict, error) {
	ch := &Forcing{forced: s}
	cfg.Chooser = ch
	v, err := world.Judge(cfg)
	if err != nil {
		return nil, err
	}
	if err := ch.Err(); err != nil {
		return nil, err
	}
	if v.Report.OK() {
		return nil, fmt.Errorf("not deterministic: schedule %s passed when run again", s)
	}
	return v, nil
}
