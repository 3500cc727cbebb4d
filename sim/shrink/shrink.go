// Package shrink makes a failing run small: it removes faults and users'
// events from a recorded run for as long as the run still shows the same
// kind of anomaly, so what is left is the counterexample a person can read.
//
// A run is replayed from its recorded choices matched by (Kind, Site)
// (sim.Schedule), not by position: removing one fault leaves the others
// where they were, as far as the run still reaches their sites. Users'
// events are left out by name (world.Config.Skip), so the rest of the
// scenario keeps its texts, times and sessions.
package shrink

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/sim/world"
)

// Result is the smallest run found.
type Result struct {
	Config  world.Config // Skip set; Chooser is the schedule of Choices
	Choices []sim.Choice
	Verdict *world.Verdict
	// Runs is how many runs the search made.
	Runs int
}

// Shows reports whether the report has an anomaly of kind.
func Shows(r *properties.Report, kind string) bool {
	for _, a := range r.Anomalies {
		if a.Kind == kind {
			return true
		}
	}
	return false
}

// Problem is a failing run to make small, whatever runs it: the
// simulator (Shrink), or a real Agent re-driven by acpsim check.
type Problem struct {
	// Events are the users' scenario, Clients how many Clients it has.
	Events  []users.Event
	Clients int
	// Skip are the events (or Clients) already left out; Choices the
	// recorded non-zero choices.
	Skip    []string
	Choices []sim.Choice
	// Fails runs the scenario without skip under the schedule of choices
	// and reports whether it still shows the anomaly.
	Fails func(skip []string, choices []sim.Choice) (bool, error)
	// Reanchor also tries moving a fault's site when leaving an event out
	// loses the anomaly: many runs, worth it when a run is cheap.
	Reanchor bool
	// Rounds bounds the search's rounds (0: 6).
	Rounds int
	// Focus, when set, are the events the anomaly names: the search first
	// tries the run with every other event left out (without faults, then
	// with them), a leap that saves most of the runs when it holds.
	Focus []string
}

type search struct {
	p    Problem
	runs int
}

func (s *search) fails(skip []string, choices []sim.Choice) (bool, error) {
	s.runs++
	return s.p.Fails(skip, choices)
}

// Search shrinks p: fewer faults (delta debugging), fewer Clients,
// submissions and actions, smaller fault options (a shorter delay), until
// a whole round changes nothing. It returns what is left out, the choices
// kept and how many runs it made.
func Search(p Problem) (skip []string, choices []sim.Choice, runs int, err error) {
	s := &search{p: p}
	skip, choices = slices.Clone(p.Skip), p.Choices
	if skip, choices, err = s.leap(skip, choices); err != nil {
		return nil, nil, s.runs, err
	}
	rounds := p.Rounds
	if rounds <= 0 {
		rounds = 6
	}
	for round := 0; round < rounds; round++ {
		before := size(skip, choices)
		// Users first, while every fault is still there to compensate
		// for the frames a left-out submission no longer sends.
		if skip, choices, err = s.dropUsers(skip, choices); err != nil {
			return nil, nil, s.runs, err
		}
		if choices, err = s.ddmin(skip, choices); err != nil {
			return nil, nil, s.runs, err
		}
		if choices, err = s.simplify(skip, choices); err != nil {
			return nil, nil, s.runs, err
		}
		if size(skip, choices) == before {
			break
		}
	}
	return skip, choices, s.runs, nil
}

// Shrink searches, from base (the run's configuration, its Skip included)
// and the choices it recorded, for a smaller run that still shows an
// anomaly of kind: fewer faults (delta debugging), fewer Clients,
// submissions and actions, smaller fault options (a shorter delay). It
// stops when a whole round changes nothing.
func Shrink(base world.Config, choices []sim.Choice, kind string) (*Result, error) {
	var runner world.Runner
	// The runs keep no trace: only the smallest one's is wanted.
	fails := func(skip []string, choices []sim.Choice) (bool, error) {
		v, err := runner.JudgeOnly(scheduled(base, skip, choices))
		if err != nil {
			return false, err
		}
		return Shows(v.Report, kind), nil
	}
	ok, err := fails(base.Skip, choices)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("the run does not show %s when replayed from its recorded faults: nothing to shrink", kind)
	}
	skip, choices, runs, err := Search(Problem{
		Events: users.Draw(sim.NewIDs(base.Seed), base.Scenario()), Clients: base.Clients,
		Skip: base.Skip, Choices: choices, Fails: fails, Reanchor: true,
	})
	if err != nil {
		return nil, err
	}
	// The smallest run once more, for its trace (the search kept none) and
	// its own record: faults whose sites it no longer reaches are gone
	// from it. Runs counts the search's runs, not this one.
	cfg := scheduled(base, skip, choices)
	best, err := world.Judge(cfg)
	if err != nil {
		return nil, err
	}
	if !Shows(best.Report, kind) {
		return nil, fmt.Errorf("the smallest run shows no %s when run again: it is not deterministic", kind)
	}
	return &Result{Config: cfg, Choices: sim.Recorded(best.Result.Log.Events), Verdict: best, Runs: runs + 1}, nil
}

// scheduled is base without the events of skip, under the schedule of
// choices.
func scheduled(base world.Config, skip []string, choices []sim.Choice) world.Config {
	base.Skip = skip
	base.Chooser = sim.NewSchedule(choices)
	return base
}

func size(skip []string, choices []sim.Choice) int { return len(choices)*1000 - len(skip) }

// ddmin is Zeller's delta debugging over the choices: it removes chunks,
// halving their size, while the anomaly stays.
func (s *search) ddmin(skip []string, choices []sim.Choice) ([]sim.Choice, error) {
	if len(choices) > 1 { // the anomaly may need no fault at all: one run says so
		ok, err := s.fails(skip, nil)
		if err != nil || ok {
			return nil, err
		}
	}
	n := 2
	for len(choices) > 0 {
		chunk := max(len(choices)/n, 1)
		removed := false
		for start := 0; start < len(choices); start += chunk {
			end := min(start+chunk, len(choices))
			cand := slices.Concat(choices[:start], choices[end:])
			ok, err := s.fails(skip, cand)
			if err != nil {
				return nil, err
			}
			if ok {
				choices, removed = cand, true
				n = max(n-1, 2)
				break
			}
		}
		if !removed {
			if chunk == 1 {
				break
			}
			n = min(n*2, len(choices))
		}
	}
	return choices, nil
}

// leap tries the run with only the focus events (and the actions left in
// none): first without any fault, then with every fault.
func (s *search) leap(skip []string, choices []sim.Choice) ([]string, []sim.Choice, error) {
	if len(s.p.Focus) == 0 {
		return skip, choices, nil
	}
	cand := slices.Clone(skip)
	for _, e := range s.p.Events {
		if !slices.Contains(s.p.Focus, e.Sub) && !slices.Contains(cand, e.Sub) {
			cand = append(cand, e.Sub)
		}
	}
	if len(cand) == len(skip) {
		return skip, choices, nil
	}
	for _, faults := range [][]sim.Choice{nil, choices} {
		ok, err := s.fails(cand, faults)
		if err != nil || ok {
			return cand, faults, err
		}
	}
	return skip, choices, nil
}

// dropUsers leaves out whole Clients, then each action and submission.
func (s *search) dropUsers(skip []string, choices []sim.Choice) ([]string, []sim.Choice, error) {
	evs := s.p.Events
	var names []string
	for c := s.p.Clients - 1; c >= 0; c-- {
		names = append(names, users.ClientName(c))
	}
	// Last first (later events depend on earlier ones more than the
	// reverse), then first first: leaving one out shifts the ids and keys
	// drawn after it, so an event that had to stay may go once another has.
	for i := len(evs) - 1; i >= 0; i-- {
		names = append(names, evs[i].Sub)
	}
	if s.p.Reanchor { // runs are cheap: the other order too
		for i := range evs {
			names = append(names, evs[i].Sub)
		}
	}
	// Whole groups first: every action, then each Client's actions; an
	// anomaly that needs none of them costs one run, not one per action.
	for _, group := range actionGroups(evs, s.p.Clients) {
		var cand []string
		for _, name := range group {
			if !slices.Contains(skip, name) && s.reachable(name, skip, evs) {
				cand = append(cand, name)
			}
		}
		if len(cand) < 2 {
			continue
		}
		cand = append(slices.Clone(skip), cand...)
		ok, err := s.fails(cand, choices)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			skip = cand
		}
	}
	for _, name := range names {
		if slices.Contains(skip, name) {
			continue
		}
		if !s.reachable(name, skip, evs) {
			continue
		}
		cand := append(slices.Clone(skip), name)
		ok, err := s.fails(cand, choices)
		if err != nil {
			return nil, nil, err
		}
		if !ok && s.p.Reanchor {
			var moved []sim.Choice
			if moved, err = s.reanchor(cand, choices); err != nil {
				return nil, nil, err
			}
			ok = moved != nil
			if ok {
				choices = moved
			}
		}
		if ok {
			skip = cand
		}
	}
	return skip, choices, nil
}

// actionGroups are the users' actions (every event but a submission): all
// of them, then each Client's.
func actionGroups(evs []users.Event, clients int) [][]string {
	all := []string{}
	per := make([][]string, clients)
	for _, e := range evs {
		if e.Action == users.Submit {
			continue
		}
		all = append(all, e.Sub)
		if e.Client < clients {
			per[e.Client] = append(per[e.Client], e.Sub)
		}
	}
	return append([][]string{all}, per...)
}

// reanchorReach is how many frames or outputs earlier (and a few later) a
// fault's site is looked for once a left-out event no longer sends its own.
const reanchorReach = 12

// reanchor tries, for a run with one more event left out, to move one fault
// to the same place the left-out event's frames had pushed it to: sites
// count frames and outputs ("c1:a1#1/a2c/11", "a1#1/30/update-chunk"), and
// those counts drop when a submission no longer runs. It returns the moved
// choices, or nil when no single move brings the anomaly back.
func (s *search) reanchor(skip []string, choices []sim.Choice) ([]sim.Choice, error) {
	for i, c := range choices {
		parts := strings.Split(c.Site, "/")
		at := -1
		for j := len(parts) - 1; j >= 0; j-- {
			if n, err := strconv.Atoi(parts[j]); err == nil && n >= 0 {
				at = j
				break
			}
		}
		if at < 0 {
			continue
		}
		n, _ := strconv.Atoi(parts[at])
		for _, d := range deltas() {
			if n+d < 0 {
				continue
			}
			parts[at] = strconv.Itoa(n + d)
			cand := slices.Clone(choices)
			cand[i].Site = strings.Join(parts, "/")
			ok, err := s.fails(skip, cand)
			if err != nil {
				return nil, err
			}
			if ok {
				return cand, nil
			}
		}
	}
	return nil, nil
}

// deltas are the moves reanchor tries, nearest first, earlier before later.
func deltas() []int {
	var out []int
	for d := 1; d <= reanchorReach; d++ {
		out = append(out, -d)
		if d <= 3 {
			out = append(out, d)
		}
	}
	return out
}

// reachable reports whether name still stands for something the run does:
// a Client or event not already left out with its Client.
func (s *search) reachable(name string, skip []string, evs []users.Event) bool {
	for _, e := range evs {
		if e.Sub == name {
			return !users.Skipped(e, skip)
		}
	}
	return true // a Client
}

// simplify lowers each option above 1 to 1 (for delays: the shortest).
func (s *search) simplify(skip []string, choices []sim.Choice) ([]sim.Choice, error) {
	for i := range choices {
		if choices[i].Option <= 1 {
			continue
		}
		cand := slices.Clone(choices)
		cand[i].Option = 1
		ok, err := s.fails(skip, cand)
		if err != nil {
			return nil, err
		}
		if ok {
			choices = cand
		}
	}
	return choices, nil
}
