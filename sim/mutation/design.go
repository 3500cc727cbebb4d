package mutation

import (
	"fmt"

	"github.com/acpsim/acpsim/sim/design"
)

// FromDesign makes a design a mutant: a researcher's known-bad design, run
// against the keyed Client with the users every mutant gets until some
// anomaly shows (Expect ""). A design's settings map onto Setup one to one;
// on a design restricted to some links it runs on the first.
func FromDesign(d design.Design) (Mutant, error) {
	s := users
	for _, set := range d.Settings {
		switch set.Key {
		case "agent":
			s.Agent = set.Value
		case "nodes":
			if _, err := fmt.Sscan(set.Value, &s.Nodes); err != nil {
				return Mutant{}, fmt.Errorf("design %s: nodes:%s: expected a number", d.Name, set.Value)
			}
		case "proxies":
			if _, err := fmt.Sscan(set.Value, &s.Proxies); err != nil {
				return Mutant{}, fmt.Errorf("design %s: proxies:%s: expected a number", d.Name, set.Value)
			}
		case "proxy":
			s.Proxy = set.Value
		case "links":
		case "sticky":
			return Mutant{}, fmt.Errorf("design %s: sticky is not a setting acpsim mutants runs (it has no --sticky); use acpsim matrix or swarm", d.Name)
		default:
			s.Knobs = append(s.Knobs, set.Key+"="+set.Value)
		}
	}
	if d.Links != nil {
		s.Link = d.Links[0]
	}
	if _, err := s.Config(); err != nil {
		return Mutant{}, fmt.Errorf("design %s: %v", d.Name, err)
	}
	return Mutant{Actor: ActorDesign, Name: d.Name, Doc: d.Why, Setup: s}, nil
}
