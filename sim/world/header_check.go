package world

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/traces"
)

// RealLinks are the links a header of acpsim check names: a real Agent's
// stdio, or its URLs.
var RealLinks = []string{LinkStdio, "remote"}

// TraceChecks hold a trace to what the flags and the fault table of the tool
// that made it accept: its header through CheckHeader, every recorded fault
// through netfault.CheckChoice. faults gives that table from the header:
// netfault.Faults for the simulator's traces.
func TraceChecks(faults func(*traces.Header) []netfault.Fault) traces.Checks {
	var table []netfault.Fault
	return traces.Checks{
		Header: func(h *traces.Header) error {
			table = faults(h)
			return CheckHeader(h, table)
		},
		Event: func(e *traces.Event) error {
			if e.Kind != traces.KindChoose {
				return nil
			}
			return netfault.CheckChoice(table, e.Decision, e.Option, MaxNodes)
		},
	}
}

// CheckHeader holds a trace header as strictly as the flags it stands for,
// through Validate's own checks (settingChecks, the bounds table), with
// faults the fault table of the tool that made it; the error names the
// field at fault. Only the run's size is not held to its limits: a trace is
// judged as a stream, in memory that grows with its sessions, and replay
// and shrink rerun the header's command, which is held to them.
func CheckHeader(h *traces.Header, faults []netfault.Fault) error {
	if h.Observed == traces.ObservedAtTap {
		// Frames seen between a real Client and a real Agent: the header
		// states no scenario, policy, knobs or faults.
		return nil
	}
	real := OfRealAgent(h)
	c := DefaultConfig()
	c.Policy, c.Agent, c.Link = h.Policy, h.Agent, h.Link
	if real {
		// A real Agent is named by its command or URL; the knob rules of
		// the model Agents are checked on the reference's.
		c.Agent = agent.Reference
		if err := checkLink(h.Link, RealLinks); err != nil {
			return fieldError("link", err)
		}
		c.Link = LinkStdio
	}
	c.Clients, c.Sessions, c.Prompts = h.Clients, h.Sessions, h.Prompts
	c.SessionContract = h.Contract.Sessions
	var err error
	if c.Knobs, err = agent.KnobsFromMap(h.Knobs); err != nil {
		return fieldError("knobs", err)
	}
	if err := c.setActions(h.Actions); err != nil {
		return fieldError("actions", err)
	}
	for _, sc := range settingChecks {
		if sc.field == "" {
			continue
		}
		if err := sc.check(&c); err != nil {
			return fieldError(sc.field, err)
		}
	}
	for _, b := range bounds {
		if b.field == "" {
			continue
		}
		if err := b.check(b.get(&c), false); err != nil {
			return fieldError(b.field, err)
		}
	}
	if err := netfault.CheckRates(h.Rates, netfault.Rates(faults)); err != nil {
		return fieldError("rates", err)
	}
	return nil
}

// OfRealAgent says a header is of acpsim check's run against a real Agent
// (traces before Observed was recorded say so only in their tool).
func OfRealAgent(h *traces.Header) bool {
	return h.Observed == traces.ObservedAtProxy || strings.HasPrefix(h.Tool, "acpsim check")
}

func fieldError(field string, err error) error {
	return fmt.Errorf("field %q: %w", field, err)
}

// setActions reads a header's actions, as actions writes them:
// "cancels=N closes=N forks=N", and " cancel-by=HOW" when set.
func (c *Config) setActions(s string) error {
	if s == "" {
		return nil
	}
	counts := map[string]*int{"cancels": &c.Cancels, "closes": &c.Closes, "forks": &c.Forks}
	for _, word := range strings.Fields(s) {
		name, value, _ := strings.Cut(word, "=")
		if name == "cancel-by" {
			c.CancelBy = value
			continue
		}
		n, known := counts[name]
		if !known {
			return fmt.Errorf("%q: expected cancels=N closes=N forks=N, then cancel-by=HOW if set", word)
		}
		v, err := strconv.Atoi(value)
		if err != nil {
			return fmt.Errorf("%q: expected a whole number of %s", word, name)
		}
		*n = v
	}
	return nil
}
