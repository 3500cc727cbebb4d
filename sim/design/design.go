// Package design makes Agent designs and Client policies data, so that a
// researcher compares retry semantics without forking acpsim. A design is a
// named set of settings (the Agent's knobs, which model Agent, nodes and
// proxies in front of it), spelled
//
//	mine=busy:reject,keys:memory
//
// on every command that runs worlds (matrix, swarm, run, mutants, explore)
// and, one per line, in a design file a researcher can diff and commit. A
// policy is a built-in retry policy with its parameters, spelled
//
//	bounded:attempts=6:backoff=50ms
//
// Each setting is the `acpsim run` flag of the same name (busy:reject is
// --busy=reject), so every row's rerun command is an ordinary acpsim run.
package design

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/sim/world"
)

// Setting is one key and its value, as spelled in a spec.
type Setting struct{ Key, Value string }

// Design is one Agent design: the settings that make it, applied over a
// run's configuration.
type Design struct {
	// Name labels the design's rows; it is also part of trace file names,
	// so it is a word of [a-z0-9-].
	Name string
	// Why says what a retry meets with this design that it does not with
	// the reference: why the row is in the table.
	Why string
	// Settings are applied in order (Keys says what each can be).
	Settings []Setting
	// Links are the links the design runs on (nil: every link). A design
	// that needs several nodes, or that differs from the reference only
	// when a connection ends while its process lives on, runs on the
	// remote links only; the setting links:http+ws says so in a spec.
	Links []string
}

// Apply makes the design's change to a run's configuration.
func (d Design) Apply(c *world.Config) error {
	for _, s := range d.Settings {
		k, ok := lookupKey(s.Key)
		if !ok {
			return unknownKey(s.Key)
		}
		if k.set == nil {
			continue // links: where it runs, not what it is
		}
		if err := k.set(c, s.Value); err != nil {
			return fmt.Errorf("%s:%s: %v", s.Key, s.Value, err)
		}
	}
	return nil
}

// Flags are the `acpsim run` flags that make the same change, e.g.
// --busy=reject.
func (d Design) Flags() []string {
	var out []string
	for _, s := range d.Settings {
		if k, ok := lookupKey(s.Key); ok && k.set != nil {
			out = append(out, "--"+k.Name+"="+s.Value)
		}
	}
	return out
}

// Spec is the design spelled as Parse reads it.
func (d Design) Spec() string {
	parts := make([]string, len(d.Settings))
	for i, s := range d.Settings {
		parts[i] = s.Key + ":" + s.Value
	}
	return d.Name + "=" + strings.Join(parts, ",")
}

// RunsOn reports whether the design runs on link.
func (d Design) RunsOn(link string) bool {
	return d.Links == nil || slices.Contains(d.Links, link)
}

// Remote are the links whose server process outlives a connection.
var Remote = []string{world.LinkHTTP, world.LinkWS}

// Builtin are the Agent designs that matter for retry semantics, in table
// order: the reference, each knob setting that changes what a retry of the
// model Clients meets, the adapter, and deployments. Knob settings that
// change nothing a retry of these Clients can meet are left out (see
// package matrix).
var Builtin = []Design{
	{
		Name: "reference",
		Why:  "the reference Agent as shipped: a prompt arriving while the session runs is held, a held prompt is dropped with its connection, all history and keys kept in the store",
	},
	{
		Name:     "busy-reject",
		Why:      "a prompt arriving while the session runs is answered with an error, nothing inserted and the key unused: a retry racing its original is refused instead of held, and the Client must resend again",
		Settings: []Setting{{"busy", "reject"}},
	},
	{
		Name:     "busy-breakpoint",
		Why:      "a prompt arriving while the session runs is inserted at once: a keyless retry of a running prompt duplicates without waiting for the first to finish",
		Settings: []Setting{{"busy", "breakpoint"}},
	},
	{
		Name:     "held-keep",
		Why:      "a held prompt whose connection ends is kept and inserted later: a retry on the next connection meets an original that is still coming (remote links only: on stdio the process exits with its pipe and takes held prompts with it, so the row equals the reference)",
		Settings: []Setting{{"held-on-disconnect", "keep"}},
		Links:    Remote,
	},
	{
		Name:     "retain-2",
		Why:      "each session keeps its 2 newest user messages: older keys are forgotten by contract, so a late keyed retry is a new submission and a discarded message is not lost",
		Settings: []Setting{{"retain", "2"}},
	},
	{
		Name:     "live-only",
		Why:      `prompts starting with "/" are handled locally and never stored or replayed: a lookup Client cannot find them and runs them twice; their keys last only while the session stays on its connection`,
		Settings: []Setting{{"live-only", "/"}},
	},
	{
		Name:     "adapter",
		Why:      "the RFD's adapter over a runtime that owns the history: messageId derived from the key, no binding stored, the runtime appends a repeated id (runtime-dedupe=append)",
		Settings: []Setting{{"agent", "adapter"}},
	},
	{
		Name:     "nodes-3",
		Why:      "three nodes sharing one store behind the endpoint, a new connection lands on any: failover with bindings in the store (the control for node-memory-keys)",
		Settings: []Setting{{"nodes", "3"}},
		Links:    Remote,
	},
	{
		Name:     "node-memory-keys",
		Why:      "three nodes, key bindings in each node's memory: a retry that fails over to another node (or meets a restarted one) finds no binding and inserts again",
		Settings: []Setting{{"keys", "memory"}, {"nodes", "3"}},
		Links:    Remote,
	},
}

// Lookup returns the design of designs with that name.
func Lookup(name string, designs []Design) (Design, bool) {
	for _, d := range designs {
		if d.Name == name {
			return d, true
		}
	}
	return Design{}, false
}

// Names are the names of designs, in order.
func Names(designs []Design) []string {
	out := make([]string, len(designs))
	for i, d := range designs {
		out[i] = d.Name
	}
	return out
}
