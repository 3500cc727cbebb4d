package agent

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/agent/store"
	"sort"
	"strings"
	"time"
)

// Knobs are the reference Agent's settings for what the protocol leaves open.
// Every run records them in its trace header.
type Knobs struct {
	// Busy is what a prompt that arrives while the session is running does:
	// "hold" keeps the request pending until the session is idle, then
	// inserts; "breakpoint" inserts at once and folds it into the running work.
	Busy string
	// Chunks is how many agent_message_chunks a round of work produces.
	Chunks int
	// ChunkEvery is the virtual time between two chunks.
	ChunkEvery time.Duration
}

// DefaultKnobs are the reference Agent's defaults.
func DefaultKnobs() Knobs {
	return Knobs{Busy: BusyHold, Chunks: 3, ChunkEvery: 20 * time.Millisecond}
}

// Busy policies.
const (
	BusyHold       = "hold"
	BusyBreakpoint = "breakpoint"
)

// Map renders the knobs for a trace header.
func (k Knobs) Map() map[string]string {
	return map[string]string{
		"busy":       k.Busy,
		"chunks":     fmt.Sprint(k.Chunks),
		"chunkEvery": k.ChunkEvery.String(),
	}
}

// Validate reports a knob value the Agent does not know.
func (k Knobs) Validate() error {
	if k.Busy != BusyHold && k.Busy != BusyBreakpoint {
		return fmt.Errorf("busy policy %q: expected %s or %s", k.Busy, BusyHold, BusyBreakpoint)
	}
	if k.Chunks < 1 || k.ChunkEvery <= 0 {
		return fmt.Errorf("work must have at least one chunk and a positive chunk interval")
	}
	return nil
}

// Factory builds one process of a model Agent over a store.
type Factory func(k Knobs, st StoreOpener, env Env) Machine

// StoreOpener gives a new process its view of the store. Mutants that keep
// state in process memory wrap it.
type StoreOpener = func() store.Store

var registry = map[string]entry{}

type entry struct {
	factory Factory
	doc     string
}

// Register adds a named model Agent (the reference or a mutant). It is
// called from init functions.
func Register(name, doc string, f Factory) { registry[name] = entry{f, doc} }

// Lookup returns the named model Agent.
func Lookup(name string) (Factory, error) {
	e, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown agent %q: expected one of %s", name, strings.Join(Names(), ", "))
	}
	return e.factory, nil
}

// Names lists the registered model Agents, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Doc is the one-line description of a registered model Agent.
func Doc(name string) string { return registry[name].doc }
