// Package netfault carries frames between Clients and Agents with the
// semantics of each transport, and injects only the faults that transport can
// really produce. Faults are data (the Faults table), every one is decided by
// the sim.Chooser, and a Recorder sees every frame sent, delivered or lost.
package netfault

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Fault is one kind of fault: the Decision.Kind it is asked under, how many
// options it has, what it does and its default rate (the probability that a
// decision of this kind is not "no fault").
type Fault struct {
	Kind    string
	Options int
	Rate    float64
	Doc     string
}

// Fault kinds.
const (
	Delay        = "delay"
	Cut          = "cut"
	Kill         = "kill"
	LoseUnsynced = "lose-unsynced"
	Reject       = "reject"
	Route        = "route"
	// ClientRestart is asked by the host before it applies the outputs of a
	// Client's step (site "c1/step/N").
	ClientRestart = "client-restart"

	// Streamable HTTP (HTTPLink). Asked per POST (site "<link>/post/N") or
	// per SSE event (site "<link>/sse/N").
	PostLost     = "post-lost"
	AcceptedLost = "accepted-lost"
	StreamBreak  = "stream-break"
	ConnExpired  = "conn-expired"
)

// DelaySteps are the options of a delay decision: how much later than the
// link's latency a frame is delivered. Option 0 is no delay.
var DelaySteps = []time.Duration{0, 2 * time.Millisecond, 30 * time.Millisecond, 300 * time.Millisecond, 1500 * time.Millisecond}

// Faults is every fault the links (stdio, Streamable HTTP) and the processes
// at their ends produce. A pipe is reliable and ordered: it loses frames only
// by being cut, and never duplicates one. HTTP loses single messages (the
// post-lost, accepted-lost and stream-break rows) and reorders POSTs.
var Faults = []Fault{
	{Delay, len(DelaySteps), 0.04, "a frame is held back (order is kept: later frames wait behind it)"},
	{Cut, 2, 0.004, "the pipe is cut as a frame is written: it and every frame in flight are lost; the Agent reads EOF and exits"},
	{Kill, 2, 0.006, "the Agent process is killed between two outputs of a step (e.g. after the store write, before the response)"},
	{LoseUnsynced, 2, 0.5, "a killed Agent loses the writes it had not synced"},
	{Reject, 2, 0.04, "the Agent rejects a prompt before insertion with a transient -32603"},
	{ClientRestart, 2, 0.002, "the Client process dies before applying a step's outputs (its pipe ends, the Agent reads EOF and exits, nothing in flight is read) and restarts from its saved state: pending submissions with their keys, known sessions"},
	// Streamable HTTP only; rate 0 by default so stdio seeds do not change.
	{PostLost, 2, 0, "HTTP: a POST never reaches the Agent; the Client gets no status (0) and may resend it"},
	{AcceptedLost, 2, 0, "HTTP: the Agent read and processed a POST but its 202 (or initialize's 200) never reached the Client: status 0, and a resend delivers the same JSON-RPC message twice"},
	{StreamBreak, 2, 0, "HTTP: an SSE stream breaks as an event is written: that event, the stream's events in flight and every later one until the Client reopens the stream are lost"},
	{ConnExpired, 2, 0, "HTTP: the Acp-Connection-Id expires as a POST reaches the Agent: that POST and every later request get 404, the Agent side disconnects, the Client must initialize again"},
	{Route, 2, 0, "remote links with several Agent nodes: the node a new connection lands on (option 0 is the first node; not a fault, but a choice the schedule makes)"},
}

// HTTPRates are the rates of the HTTP link's own faults when a run uses it
// (their table default is 0, so a stdio seed never draws them).
var HTTPRates = map[string]float64{PostLost: 0.01, AcceptedLost: 0.01, StreamBreak: 0.005, ConnExpired: 0.002}

// NodeRates are the rates that spread connections over several nodes.
var NodeRates = map[string]float64{Route: 0.7}

// DefaultRates returns the default rate of every fault kind.
func DefaultRates() map[string]float64 { return Rates(Faults) }

// ParseRates reads "kind=rate,kind=rate" over the defaults; an unknown kind or
// a rate outside [0,1] is an error that names it.
func ParseRates(spec string, base map[string]float64) (map[string]float64, error) {
	out := make(map[string]float64, len(base))
	for k, v := range base {
		out[k] = v
	}
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("fault rate %q: expected kind=rate, e.g. kill=0.01", part)
		}
		if _, known := out[k]; !known {
			return nil, fmt.Errorf("fault rate %q: unknown fault kind %q, expected one of %s", part, k, strings.Join(slices.Sorted(maps.Keys(out)), ", "))
		}
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !rateInRange(r) {
			return nil, fmt.Errorf("fault rate %q: expected a number between 0 and 1", part)
		}
		out[k] = r
	}
	return out, nil
}

// rateInRange is written so that NaN fails too.
func rateInRange(r float64) bool { return r >= 0 && r <= 1 }

// CheckRates holds recorded rates (a trace header's) to what ParseRates
// accepts over base: known kinds, each a number between 0 and 1.
func CheckRates(rates, base map[string]float64) error {
	for _, k := range slices.Sorted(maps.Keys(rates)) {
		if _, known := base[k]; !known {
			return fmt.Errorf("fault rate %s=%g: unknown fault kind %q, expected one of %s", k, rates[k], k, strings.Join(slices.Sorted(maps.Keys(base)), ", "))
		}
		if !rateInRange(rates[k]) {
			return fmt.Errorf("fault rate %s=%g: expected a number between 0 and 1", k, rates[k])
		}
	}
	return nil
}

// Rates returns the default rate of every fault kind of table.
func Rates(table []Fault) map[string]float64 {
	out := make(map[string]float64, len(table))
	for _, f := range table {
		out[f.Kind] = f.Rate
	}
	return out
}

// CheckChoice holds a recorded fault (a trace's choose event) to table: a
// known kind and an option that is a fault of that kind (1 to Options-1; 0,
// no fault, is never recorded). A route's options are the nodes, up to
// nodes.
func CheckChoice(table []Fault, kind string, option, nodes int) error {
	i := slices.IndexFunc(table, func(f Fault) bool { return f.Kind == kind })
	if i < 0 {
		kinds := make([]string, len(table))
		for j, f := range table {
			kinds[j] = f.Kind
		}
		slices.Sort(kinds)
		return fmt.Errorf("field \"decision\": unknown fault kind %q, expected one of %s", kind, strings.Join(kinds, ", "))
	}
	options := table[i].Options
	if kind == Route {
		options = nodes
	}
	if option < 1 || option >= options {
		expected := fmt.Sprintf("1 to %d", options-1)
		if options == 2 {
			expected = "1"
		}
		return fmt.Errorf("field \"option\": got %d, expected %s for %s (0 is no fault, never recorded)", option, expected, kind)
	}
	return nil
}

// Kinds lists the fault kinds, sorted.
func Kinds() []string {
	out := make([]string, 0, len(Faults))
	for _, f := range Faults {
		out = append(out, f.Kind)
	}
	sort.Strings(out)
	return out
}
