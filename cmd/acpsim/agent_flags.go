package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/sim/world"
)

// agentFlags are the model Agent's flags, which Agent and its knobs: all
// acpsim agent takes of the simulation's flags, as it runs no Clients, links
// or faults.
type agentFlags struct {
	name      string
	knobs     []knobFlag
	retain    int
	liveOnly  string
	keyWindow time.Duration
}

// knobFlag is one Agent knob with a fixed set of values, as a flag.
type knobFlag struct {
	name  string
	value string
}

// knobDoc explains a knob: short for its flag's one line of --help, long
// for acpsim help knobs.
type knobDoc struct{ short, long string }

var knobDocs = map[string]knobDoc{
	"busy": {"a prompt while its session works is refused, held or inserted at once",
		"a prompt arriving while the session runs is refused (reject), held until idle (hold) or inserted at once (breakpoint)"},
	"held-on-disconnect": {"a held prompt whose connection ends is kept or dropped",
		"a held prompt whose connection ends is kept or dropped"},
	"compare": {"a key reused with another prompt: a retry, -32602 or -32010",
		"a recorded key with a different prompt is answered as a retry (retry), -32602 (reject) or a dedicated error -32010 (error: the RFD's rejected stricter rule)"},
	"close-missing": {"session/close of an unknown session succeeds or is -32002",
		"session/close of an unknown or inactive session succeeds (ok) or is -32002 (error)"},
	"auth": {"session methods need auth/login first (required) or not",
		"session methods need auth/login first (required) or not (none)"},
	"keys": {"key bindings live in the store or in process memory (lost on restart)",
		"key bindings live in the store with the message (store) or in process memory (memory: lost on restart or failover)"},
	"sessions-in": {"sessions live in the store or in process memory (they end with it)",
		"sessions, their messages and key bindings live in the store (store) or in the process's memory (memory: a session ends with its process; a later one answers its resume -32002)"},
	"runtime-dedupe": {"the adapter's runtime refuses or appends a repeated message id",
		"the adapter's runtime, given a user message whose id its history already holds, refuses it (refuse) or appends it again (append: the RFD says neither runtime can be relied on to refuse)"},
	"in-progress": {"a retry of a held prompt waits (the RFD) or gets an error to poll",
		"a retry of a key whose prompt is held waits and is answered with the original (wait, the RFD) or gets -32603 now, so the Client polls (conflict: HTTP's 409, the RFD's rejected alternative)"},
	"binding": {"a key is bound with its message (RFD) or when the turn ends",
		"a prompt's key binding is written in the message's own batch (with-message: the RFD's one transaction) or when the prompt's turn ends (after-turn: a process that dies during the turn keeps the message and loses the key)"},
	"message-ids": {"a user message's id is the Agent's or the Client's key",
		"a user message's messageId is minted by the Agent (agent: the Message ID RFD) or is the prompt's idempotencyKey (key: the rejected Client-chosen messageId)"},
	"create-keys": {"a key on session/new: ignored (RFD), or bound in the store or in memory",
		"an idempotencyKey on session/new is ignored (ignore: the RFD, a duplicate is an unused session) or a repeat of it is answered with the session it made, the key bound with the session in the store (store) or in the process's memory until it ends (memory: as an adapter could)"},
	"protocol": {"ACP version on the wire: 2, 1 (today's, no key) or negotiate (as the Client asks)",
		"the ACP version the Agent speaks on the wire: 2 (with the RFD), 1 (the status quo: no idempotencyKey, the prompt answered with its stop reason when the turn ends, history through session/load), or negotiate (each connection the version its Client asks for in initialize)"},
	"load-session": {"protocol 1: session/load offered (yes) or not (no)",
		"under protocol 1, whether the Agent offers session/load, which replays a session's history on a new connection (no: -32601)"},
	"key-window": {"a key stays bound this long after its insertion (0: as long as its message)",
		"a key stays bound this long after its message was inserted, then the message stays and the key is forgotten (0: as long as the message, the RFD; a window is Stripe's 24 h, the RFD's rejected alternative)"},
	"retain": {"each session keeps its N newest user messages and their keys (0: all)",
		"each session keeps its N newest user messages, forgetting older ones and their keys (0: keep all)"},
	"live-only": {`prompts with this prefix (e.g. "/") are handled locally, never stored`,
		`prompts starting with this prefix (e.g. "/") are handled locally: echoed, never stored or replayed`},
}

func (a *agentFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&a.name, "agent", agent.Reference, "model Agent (--list-agents)")
	fs.IntVar(&a.retain, "retain", 0, "Agent knob: "+knobDocs["retain"].short)
	fs.StringVar(&a.liveOnly, "live-only", "", "Agent knob: "+knobDocs["live-only"].short)
	fs.DurationVar(&a.keyWindow, "key-window", 0, "Agent knob: "+knobDocs["key-window"].short)
	knobs := agent.ChoiceKnobs()
	a.knobs = make([]knobFlag, len(knobs)) // sized once: the flags keep pointers into it
	for i, k := range knobs {
		a.knobs[i].name = k.Name
		fs.StringVar(&a.knobs[i].value, k.Name, k.Default, fmt.Sprintf("Agent knob (%s): %s", strings.Join(k.Values, "|"), knobDocs[k.Name].short))
	}
}

// apply sets cfg's Agent and knobs.
func (a *agentFlags) apply(cfg *world.Config) error {
	cfg.Agent = a.name
	for _, k := range append(a.knobs, knobFlag{"retain", fmt.Sprint(a.retain)}, knobFlag{"live-only", a.liveOnly}, knobFlag{"key-window", a.keyWindow.String()}) {
		if err := cfg.Knobs.Set(k.name, k.value); err != nil {
			return fmt.Errorf("--%s: %v", k.name, err)
		}
	}
	return nil
}
