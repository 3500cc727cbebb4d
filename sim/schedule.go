package sim

import "github.com/acpsim/acpsim/traces"

// Schedule is a Chooser that answers from a recorded list of non-zero
// choices, matched by (Kind, Site); every decision it has no record of gets
// option 0, "no fault". So a trace stays a valid schedule after code changes
// that add or move decisions: what moved runs healthy, the rest as recorded.
type Schedule struct {
	options map[scheduleKey]int
}

type scheduleKey struct{ kind, site string }

// NewSchedule returns a Schedule of choices (a trace's choose events).
func NewSchedule(choices []Choice) *Schedule {
	s := &Schedule{options: make(map[scheduleKey]int, len(choices))}
	for _, c := range choices {
		s.options[scheduleKey{c.Kind, c.Site}] = c.Option
	}
	return s
}

// Choose implements Chooser.
func (s *Schedule) Choose(d Decision) int {
	opt := s.options[scheduleKey{d.Kind, d.Where()}]
	if opt < 0 || opt >= d.N {
		return 0
	}
	return opt
}

// Recorded are the non-zero choices a trace recorded (its choose events):
// the schedule that replays it.
func Recorded(events []traces.Event) []Choice {
	var out []Choice
	for _, e := range events {
		if e.Kind == traces.KindChoose {
			out = append(out, Choice{Decision: Decision{Kind: e.Decision, Site: e.Site}, Option: e.Option})
		}
	}
	return out
}
