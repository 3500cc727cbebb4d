package world

import (
	"fmt"
	"strings"
)

// MaxUserEvents bounds a run's users' events in all: every Client's prompts,
// cancels, closes and forks. The scenario is drawn whole before the run
// starts, so its size is memory whether or not the run gets to it (measured:
// about 4.5 KB a prompt), and a run that does its prompts holds its trace:
// 20,000 prompts took 600 MB and 7 s of CPU, so 100,000 take about 3 GB. Unbounded,
// `run --prompts 100000000` ran out of memory.
const MaxUserEvents = 100_000

// MaxNodes bounds the Agent nodes behind one endpoint, and so the options of
// a recorded route.
const MaxNodes = 1000

// A bound is one number of a Config and its range, named as its flag and its
// trace header field are: Validate checks a Config against this table, and
// CheckHeader checks a trace header against the same rows.
type bound struct {
	name string
	// field is the trace header field that records it ("" when only the
	// header's command does).
	field    string
	get      func(*Config) int
	min, max int
	// atLeast is what a value below min is expected to be; why says what
	// a value above max would cost.
	atLeast, why string
	// perClient names what this number counts for each Client, to be
	// bounded in all Clients together (perClientLimits).
	perClient string
}

// perClientLimits bound what the Clients' numbers add up to over all Clients:
// the scenario is drawn whole before the run starts, and every session is
// set up before its Client's first prompt.
var perClientLimits = []struct {
	what  string
	limit int64
	why   string
}{
	{usersEvents, MaxUserEvents, "every Client's users' events are drawn before the run starts, and a run holds its trace: 20,000 prompts took 600 MB, so 100,000 take about 3 GB"},
	{"sessions", MaxUserEvents, "every session is set up before its Client's first prompt: 100,000 took 0.5 GB and spent the run's event cap on set-up"},
}

const usersEvents = "users' events"

var bounds = []bound{
	{name: "clients", field: "clients", get: func(c *Config) int { return c.Clients }, min: 1, max: 1000, atLeast: "at least 1",
		why: "each Client has its own Agent installation and sets its sessions up before its first prompt: 10,000 Clients took 2.2 GB and 45 s, most of it before any prompt"},
	{name: "sessions", field: "sessions", get: func(c *Config) int { return c.Sessions }, min: 1, max: 1000, atLeast: "at least 1", perClient: "sessions",
		why: "per Client, each set up before its first prompt: with 100,000 the run spent its event cap on set-up and judged nothing"},
	{name: "prompts", field: "prompts", get: func(c *Config) int { return c.Prompts }, min: 0, max: MaxUserEvents, atLeast: "0 or more", perClient: usersEvents,
		why: "every prompt is drawn before the run starts, and a run holds its trace: 20,000 prompts took 600 MB, so 100,000 take about 3 GB"},
	{name: "cancels", field: "actions", get: func(c *Config) int { return c.Cancels }, min: 0, max: MaxUserEvents, atLeast: "0 or more", perClient: usersEvents,
		why: "every user's action is drawn before the run starts: 10,000,000 took 3.1 GB"},
	{name: "closes", field: "actions", get: func(c *Config) int { return c.Closes }, min: 0, max: MaxUserEvents, atLeast: "0 or more", perClient: usersEvents,
		why: "every user's action is drawn before the run starts: 10,000,000 cancels took 3.1 GB"},
	{name: "forks", field: "actions", get: func(c *Config) int { return c.Forks }, min: 0, max: MaxUserEvents, atLeast: "0 or more", perClient: usersEvents,
		why: "every user's action is drawn before the run starts: 10,000,000 cancels took 3.1 GB"},
	{name: "nodes", field: "", get: func(c *Config) int { return c.Nodes }, min: 1, max: MaxNodes, atLeast: "at least 1",
		why: "every node is started and routed over: 1,000 nodes took 0.3 s, 100,000 took 60 s"},
	{name: "proxies", field: "", get: func(c *Config) int { return c.Proxies }, min: 0, max: 100, atLeast: "0 or more",
		why: "every frame crosses every hop: 100 proxies took 0.6 s, 10,000 took 18 s"},
}

// Setting is one number of a run, by the name its flag and its trace header
// field share.
type Setting struct {
	Name  string
	Value int
}

// BoundError is a number of a Config out of its range: one setting, or
// several that add up to more than their limit over all Clients.
type BoundError struct {
	Settings []Setting
	// Total is what the settings add up to when there are several: the
	// first is the Clients, the others what each Client has of What.
	Total   int64
	What    string
	Problem string // ": expected …" or " is more than the limit … (why)"
}

func (e *BoundError) Error() string { return e.Describe(func(n string) string { return n }) }

// Describe is the error with each setting named by name: a flag ("--prompts")
// or a header field.
func (e *BoundError) Describe(name func(string) string) string {
	if len(e.Settings) == 1 {
		s := e.Settings[0]
		return fmt.Sprintf("%s %d%s", name(s.Name), s.Value, e.Problem)
	}
	clients, per := e.Settings[0], e.Settings[1:]
	parts := make([]string, len(per))
	for i, s := range per {
		parts[i] = fmt.Sprintf("%s %d", name(s.Name), s.Value)
	}
	sum := strings.Join(parts, " + ")
	if len(parts) > 1 {
		sum = "(" + sum + ")"
	}
	return fmt.Sprintf("%s %d × %s = %d %s%s", name(clients.Name), clients.Value, sum, e.Total, e.What, e.Problem)
}

// checkBounds checks c's numbers against the bounds table, each alone, then
// what they add up to over all Clients; without upper, only that each is
// not below its minimum (a trace judged, not run: its length is no memory).
func (c *Config) checkBounds(upper bool) error {
	for _, b := range bounds {
		if err := b.check(b.get(c), upper); err != nil {
			return err
		}
	}
	if !upper {
		return nil
	}
	for _, l := range perClientLimits {
		var perClient int64
		counted := []Setting{{"clients", c.Clients}}
		for _, b := range bounds {
			if v := b.get(c); b.perClient == l.what && v != 0 {
				perClient += int64(v)
				counted = append(counted, Setting{b.name, v})
			}
		}
		// Each number is at most a million, so neither the sum nor the
		// product can overflow.
		if total := int64(c.Clients) * perClient; total > l.limit {
			return &BoundError{Settings: counted, Total: total, What: l.what,
				Problem: fmt.Sprintf(" is more than the limit %d (%s)", l.limit, l.why)}
		}
	}
	return nil
}

func (b bound) check(v int, upper bool) error {
	switch {
	case v < b.min:
		return &BoundError{Settings: []Setting{{b.name, v}}, Problem: ": expected " + b.atLeast}
	case upper && v > b.max:
		return &BoundError{Settings: []Setting{{b.name, v}}, Problem: fmt.Sprintf(" is more than the limit %d (%s)", b.max, b.why)}
	}
	return nil
}
