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

type search struct {
	base   world.Config
	kind   string
	runs   int
	runner world.Runner
}

// fails runs cfg with choices and reports whether it still shows the kind.
// The run keeps no trace: only the smallest one's is wanted (Shrink).
func (s *search) fails(skip []string, choices []sim.Choice) (bool, error) {
	cfg := s.base
	cfg.Skip = skip
	cfg.Chooser = sim.NewSchedule(choices)
	s.runs++
	v, err := s.runner.JudgeOnly(cfg)
	if err != nil {
		return false, err
	}
	return Shows(v.Report, s.kind), nil
}

// Shrink searches, from base (the run's configuration, its Skip included)
// and the choices it recorded, for a smaller run that still shows an
// anomaly of kind: fewer faults (delta debugging), fewer Clients,
// submissions and actions, smaller fault options (a shorter delay). It
// stops when a whole round changes nothing.
func Shrink(base world.Config, choices []sim.Choice, kind string) (*Result, error) {
	s := &search{base: base, kind: kind}
	skip := slices.Clone(base.Skip)
	ok, err := s.fails(skip, choices)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("the run does not show %s when replayed from its recorded faults: nothing to shrink", kind)
	}
	for round := 0; ; round++ {
		before := size(skip, choices)
		// Users first, while every fault is still there to compensate
		// for the frames a left-out submission no longer sends.
		if skip, choices, err = s.dropUsers(skip, choices); err != nil {
			return nil, err
		}
		if choices, err = s.ddmin(skip, choices); err != nil {
			return nil, err
		}
		if choices, err = s.simplify(skip, choices); err != nil {
			return nil, err
		}
		if size(skip, choices) == before || round == 5 {
			break
		}
	}
	// The smallest run once more, for its trace (the search kept none) and
	// its own record: faults whose sites it no longer reaches are gone
	// from it. Runs counts the search's runs, not this one.
	cfg := base
	cfg.Skip = skip
	cfg.Chooser = sim.NewSchedule(choices)
	best, err := world.Judge(cfg)
	if err != nil {
		return nil, err
	}
	if !Shows(best.Report, kind) {
		return nil, fmt.Errorf("the smallest run shows no %s when run again: it is not deterministic", kind)
	}
	return &Result{Config: cfg, Choices: sim.Recorded(best.Result.Log.Events), Verdict: best, Runs: s.runs}, nil
}

func size(skip []string, choices []sim.Choice) int { return len(choices)*1000 - len(skip) }

// ddmin is Zeller's delta debugging over the choices: it removes chunks,
// halving their size, while the anomaly stays.
func (s *search) ddmin(skip []string, choices []sim.Choice) ([]sim.Choice, error) {
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

// dropUsers leaves out whole Clients, then each action and submission.
func (s *search) dropUsers(skip []string, choices []sim.Choice) ([]string, []sim.Choice, error) {
	evs := users.Draw(sim.NewIDs(s.base.Seed), s.base.Scenario())
	var names []string
	for c := s.base.Clients - 1; c >= 0; c-- {
		names = append(names, users.ClientName(c))
	}
	// Last first (later events depend on earlier ones more than the
	// reverse), then first first: leaving one out shifts the ids and keys
	// drawn after it, so an event that had to stay may go once another has.
	for i := len(evs) - 1; i >= 0; i-- {
		names = append(names, evs[i].Sub)
	}
	for i := range evs {
		names = append(names, evs[i].Sub)
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
		if !ok {
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
