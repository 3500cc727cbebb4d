package matrix

import (
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/sim/world"
)

// Design is one Agent design a matrix runs every policy against: the
// reference Agent with one knob setting that changes what a retry meets, the
// adapter, or a deployment (nodes behind an endpoint). It is data: Apply
// changes a run's configuration, Flags are the `acpsim run` flags that make
// the same change (a test parses them and compares), so a cell's rerun
// command reproduces its seeds.
type Design struct {
	// Name labels the design's rows; it is also part of trace file names.
	Name string
	// Why says what a retry meets with this design that it does not with
	// the reference defaults: why the row is in the table.
	Why string
	// Flags select the design on `acpsim run`, e.g. "--busy=reject".
	Flags []string
	// Links are the links the design runs on (nil: every link). A design
	// that needs several nodes, or that differs from the reference only
	// when a connection ends while its process lives on, runs on the remote
	// links only.
	Links []string
	// Apply makes the design's change to a run's configuration.
	Apply func(*world.Config)
}

// RunsOn reports whether the design runs on link.
func (d Design) RunsOn(link string) bool {
	if d.Links == nil {
		return true
	}
	for _, l := range d.Links {
		if l == link {
			return true
		}
	}
	return false
}

// remote are the links whose server process outlives a connection.
var remote = []string{world.LinkHTTP, world.LinkWS}

// Designs are the Agent designs that matter for retry semantics, in table
// order. Knob settings that change nothing a retry of these Clients can
// meet are left out (see the package documentation).
var Designs = []Design{
	{
		Name:  "reference",
		Why:   "the reference Agent as shipped: a prompt arriving while the session runs is held, a held prompt is dropped with its connection, all history and keys kept in the store",
		Apply: func(*world.Config) {},
	},
	{
		Name:  "busy-reject",
		Why:   "a prompt arriving while the session runs is answered with an error, nothing inserted and the key unused: a retry racing its original is refused instead of held, and the Client must resend again",
		Flags: []string{"--busy=" + agent.BusyReject},
		Apply: func(c *world.Config) { c.Knobs.Busy = agent.BusyReject },
	},
	{
		Name:  "busy-breakpoint",
		Why:   "a prompt arriving while the session runs is inserted at once: a keyless retry of a running prompt duplicates without waiting for the first to finish",
		Flags: []string{"--busy=" + agent.BusyBreakpoint},
		Apply: func(c *world.Config) { c.Knobs.Busy = agent.BusyBreakpoint },
	},
	{
		Name:  "held-keep",
		Why:   "a held prompt whose connection ends is kept and inserted later: a retry on the next connection meets an original that is still coming (remote links only: on stdio the process exits with its pipe and takes held prompts with it, so the row equals the reference)",
		Flags: []string{"--held-on-disconnect=" + agent.HeldKeep},
		Links: remote,
		Apply: func(c *world.Config) { c.Knobs.HeldOnDisconnect = agent.HeldKeep },
	},
	{
		Name:  "retain-2",
		Why:   "each session keeps its 2 newest user messages: older keys are forgotten by contract, so a late keyed retry is a new submission and a discarded message is not lost",
		Flags: []string{"--retain=2"},
		Apply: func(c *world.Config) { c.Knobs.Retain = 2 },
	},
	{
		Name:  "live-only",
		Why:   `prompts starting with "/" are handled locally and never stored or replayed: a lookup Client cannot find them and runs them twice; their keys last only while the session stays on its connection`,
		Flags: []string{"--live-only=/"},
		Apply: func(c *world.Config) { c.Knobs.LiveOnly = "/" },
	},
	{
		Name:  "adapter",
		Why:   "the RFD's adapter over a runtime that owns the history: messageId derived from the key, no binding stored, the runtime appends a repeated id (runtime-dedupe=append)",
		Flags: []string{"--agent=" + agent.Adapter},
		Apply: func(c *world.Config) { c.Agent = agent.Adapter },
	},
	{
		Name:  "nodes-3",
		Why:   "three nodes sharing one store behind the endpoint, a new connection lands on any: failover with bindings in the store (the control for node-memory-keys)",
		Flags: []string{"--nodes=3"},
		Links: remote,
		Apply: func(c *world.Config) { c.Nodes = 3 },
	},
	{
		Name:  "node-memory-keys",
		Why:   "three nodes, key bindings in each node's memory: a retry that fails over to another node (or meets a restarted one) finds no binding and inserts again",
		Flags: []string{"--keys=" + agent.KeysMemory, "--nodes=3"},
		Links: remote,
		Apply: func(c *world.Config) { c.Knobs.Keys, c.Nodes = agent.KeysMemory, 3 },
	},
}

// Links are the links a matrix runs by default, in table order.
var Links = []string{world.LinkStdio, world.LinkHTTP, world.LinkWS}

// Policies are the Client policies a matrix runs by default: every policy of
// client.Policies except the known-bad ones (those with Catches set), which
// are `acpsim mutants`'s business.
func Policies() []string {
	var out []string
	for _, p := range client.Policies {
		if p.Catches == "" {
			out = append(out, p.Name)
		}
	}
	return out
}

// LookupDesign returns the design of Designs with that name.
func LookupDesign(name string) (Design, bool) {
	for _, d := range Designs {
		if d.Name == name {
			return d, true
		}
	}
	return Design{}, false
}
