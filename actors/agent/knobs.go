package agent

import (
	"fmt"
	"strconv"

	"github.com/acpsim/acpsim/actors/agent/store"
	"sort"
	"strings"
	"time"
)

// Knobs are the reference Agent's settings for what the protocol leaves open.
// Every run records them in its trace header.
type Knobs struct {
	// Busy is what a prompt that arrives while the session is running does:
	// "reject" answers an error (nothing inserted, the key stays unused);
	// "hold" keeps the request pending until the session is idle, then
	// inserts; "breakpoint" inserts at once and folds it into the running
	// work, with no extra idle.
	Busy string
	// HeldOnDisconnect is what a held prompt does when the connection that
	// sent it ends (the RFD leaves it open): "drop" it, or "keep" it and
	// insert it when its turn comes, answering whoever still waits for it.
	HeldOnDisconnect string
	// Compare is what a recorded key with a different prompt gets: "retry"
	// answers as for a retry; "reject" answers -32602 and the key stays
	// bound to the first prompt; "error" answers a dedicated error,
	// CodeKeyReused (the stricter rule the RFD did not adopt: "Why is
	// there no error for a reused key?").
	Compare string
	// CloseMissing is the answer to session/close of an unknown or inactive
	// session: "ok" (an empty result) or "error" (-32002).
	CloseMissing string
	// Keys is where key bindings live: "store" (with the message, in the
	// storage the session is loaded from, as the RFD requires) or "memory"
	// (in the process: lost on a restart or a failover to another node).
	Keys string
	// SessionsIn is where a process keeps its sessions, with their
	// messages and key bindings: "store" (the installation's store, shared
	// by its processes and outliving them) or "memory" (the process's own
	// memory: a session ends with the process that created it, and a
	// later process answers session/resume of it -32002, after which the
	// Client starts a new session, as the ACP v2 notes' trace T3b allows).
	SessionsIn string
	// Auth "required" advertises an auth method and answers -32000 to
	// session methods until auth/login on the connection; "none" does not.
	Auth string
	// Retain is how many user messages a session keeps (0: all). Older
	// ones are discarded with their key bindings, and a resend of such a
	// key is a new submission.
	Retain int
	// LiveOnly is a prompt-text prefix of commands the Agent handles locally
	// ("" for none): echoed and answered, never stored or replayed; their
	// keys are remembered only while the session stays active on its
	// connection.
	LiveOnly string
	// Chunks is how many agent_message_chunks a round of work produces.
	Chunks int
	// ChunkEvery is the virtual time between two chunks.
	ChunkEvery time.Duration
	// RuntimeDedupe (adapter only) is what the runtime does with a user
	// message whose id its history already holds: "refuse" it or "append"
	// it again. The RFD: "Neither runtime can be relied on to refuse a
	// repeated ID", so the default is append.
	RuntimeDedupe string
	// RuntimeDelay (adapter only) is how long the runtime takes to append a
	// submitted user message to its stored history.
	RuntimeDelay time.Duration
	// The RFD's alternatives, each a knob so that acpsim matrix
	// --alternatives measures it (the reference's value is the RFD's).
	// InProgress is what a retry of a key whose prompt is held gets:
	// "wait" (answered when the original is, the RFD) or "conflict" (an
	// error now, as an HTTP API answers 409, so the Client polls).
	InProgress string
	// Binding is when a prompt's key binding is written: "with-message"
	// (in the same batch, the RFD's stricter "one transaction") or
	// "after-turn" (at the end of the prompt's turn, as an Agent that
	// records the key with the turn's outcome; a process that dies during
	// the turn keeps the message and loses the binding).
	Binding string
	// MessageIDs is where a user message's id comes from: "agent" (minted
	// by the Agent, the Message ID RFD) or "key" (the Client's key is the
	// id: the rejected Client-chosen messageId).
	MessageIDs string
	// KeyWindow, when not 0, is how long after its insertion a key stays
	// bound: then its binding is dropped and the message kept, as a
	// payments API keeps a key for a fixed time (Stripe's 24 h; the RFD's
	// "Why is there no time window?"). The window runs in the process that
	// inserted the message: one that dies first leaves the key bound.
	KeyWindow time.Duration
	// CreateKeys is what session/new does with an idempotencyKey (the
	// RFD's "Why not key session/new and session/fork?"): "ignore" it (the
	// RFD: a duplicate is an unused session), or answer a repeated key with
	// the session it made, the key bound in the "store" in the session's
	// own batch, or in the process's "memory" (as an adapter whose runtime
	// chooses session ids could: until it restarts).
	CreateKeys string
	// Protocol is the ACP version the Agent speaks on the wire: "2", or
	// "1" (SpeakV1 over the same model: no key, the prompt answered when
	// its turn ends, history through session/load), the status quo.
	Protocol string
	// LoadSession (v1) is whether the Agent offers session/load: "yes", or
	// "no" (a v1 Agent that cannot reopen a session on a new connection).
	LoadSession string
}

// Knob values.
const (
	BusyReject         = "reject"
	BusyHold           = "hold"
	BusyBreakpoint     = "breakpoint"
	HeldKeep           = "keep"
	HeldDrop           = "drop"
	CompareRetry       = "retry"
	CompareReject      = "reject"
	CompareError       = "error"
	CloseOK            = "ok"
	CloseError         = "error"
	KeysStore          = "store"
	KeysMemory         = "memory"
	SessionsStore      = "store"
	SessionsMemory     = "memory"
	AuthNone           = "none"
	AuthRequired       = "required"
	DedupeRefuse       = "refuse"
	DedupeAppend       = "append"
	InProgressWait     = "wait"
	InProgressConflict = "conflict"
	BindingWithMessage = "with-message"
	BindingAfterTurn   = "after-turn"
	MessageIDsAgent    = "agent"
	MessageIDsKey      = "key"
	CreateKeysIgnore   = "ignore"
	CreateKeysStore    = "store"
	CreateKeysMemory   = "memory"
	ProtocolV2         = "2"
	ProtocolV1         = "1"
	ProtocolNegotiate  = "negotiate"
	LoadSessionYes     = "yes"
	LoadSessionNo      = "no"
)

// CodeKeyReused is the error compare=error answers a recorded key sent with
// a different prompt: a code of the schema's "Other" kind, in JSON-RPC's
// range for implementation-defined server errors, which no Client knows.
const CodeKeyReused = -32010

// DefaultKnobs are the reference Agent's defaults.
func DefaultKnobs() Knobs {
	return Knobs{Busy: BusyHold, HeldOnDisconnect: HeldDrop, Compare: CompareReject, CloseMissing: CloseOK, Keys: KeysStore, SessionsIn: SessionsStore, Auth: AuthNone,
		Chunks: 3, ChunkEvery: 20 * time.Millisecond, RuntimeDedupe: DedupeAppend, RuntimeDelay: 15 * time.Millisecond,
		InProgress: InProgressWait, Binding: BindingWithMessage, MessageIDs: MessageIDsAgent, CreateKeys: CreateKeysIgnore, Protocol: ProtocolV2, LoadSession: LoadSessionYes}
}

// choiceKnobs are the knobs with a fixed set of values, as data: the trace
// header, validation and the CLI's help all read this table.
var choiceKnobs = []struct {
	name   string
	values []string
	get    func(*Knobs) *string
}{
	{"busy", []string{BusyReject, BusyHold, BusyBreakpoint}, func(k *Knobs) *string { return &k.Busy }},
	{"held-on-disconnect", []string{HeldKeep, HeldDrop}, func(k *Knobs) *string { return &k.HeldOnDisconnect }},
	{"compare", []string{CompareRetry, CompareReject, CompareError}, func(k *Knobs) *string { return &k.Compare }},
	{"close-missing", []string{CloseOK, CloseError}, func(k *Knobs) *string { return &k.CloseMissing }},
	{"auth", []string{AuthNone, AuthRequired}, func(k *Knobs) *string { return &k.Auth }},
	{"keys", []string{KeysStore, KeysMemory}, func(k *Knobs) *string { return &k.Keys }},
	{"sessions-in", []string{SessionsStore, SessionsMemory}, func(k *Knobs) *string { return &k.SessionsIn }},
	{"runtime-dedupe", []string{DedupeAppend, DedupeRefuse}, func(k *Knobs) *string { return &k.RuntimeDedupe }},
	{"in-progress", []string{InProgressWait, InProgressConflict}, func(k *Knobs) *string { return &k.InProgress }},
	{"binding", []string{BindingWithMessage, BindingAfterTurn}, func(k *Knobs) *string { return &k.Binding }},
	{"message-ids", []string{MessageIDsAgent, MessageIDsKey}, func(k *Knobs) *string { return &k.MessageIDs }},
	{"create-keys", []string{CreateKeysIgnore, CreateKeysStore, CreateKeysMemory}, func(k *Knobs) *string { return &k.CreateKeys }},
	{"protocol", []string{ProtocolV2, ProtocolV1, ProtocolNegotiate}, func(k *Knobs) *string { return &k.Protocol }},
	{"load-session", []string{LoadSessionYes, LoadSessionNo}, func(k *Knobs) *string { return &k.LoadSession }},
}

// Retention is the Agent's retention promise in the trace contract's terms:
// "all" or "last N".
func (k Knobs) Retention() string {
	if k.Retain == 0 {
		return "all"
	}
	return fmt.Sprintf("last %d", k.Retain)
}

// ChoiceKnob describes one knob with a fixed set of values.
type ChoiceKnob struct {
	Name    string
	Values  []string
	Default string
}

// ChoiceKnobs lists the knobs with a fixed set of values, in table order.
func ChoiceKnobs() []ChoiceKnob {
	def := DefaultKnobs()
	out := make([]ChoiceKnob, 0, len(choiceKnobs))
	for _, c := range choiceKnobs {
		out = append(out, ChoiceKnob{c.name, c.values, *c.get(&def)})
	}
	return out
}

// Set sets the named knob (a choice knob, retain, live-only,
// runtime-delay, or one only a trace header names: chunks, chunkEvery,
// cancel-scope), checking its value.
func (k *Knobs) Set(name, value string) error {
	switch name {
	case "chunks":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return fmt.Errorf("knob chunks=%q: expected a number of chunks, at least 1", value)
		}
		k.Chunks = n
		return nil
	case "chunkEvery":
		d, err := time.ParseDuration(value)
		if err != nil || d <= 0 {
			return fmt.Errorf("knob chunkEvery=%q: expected a positive duration such as 20ms", value)
		}
		k.ChunkEvery = d
		return nil
	case "cancel-scope":
		if value != cancelScope {
			return fmt.Errorf("knob cancel-scope=%q: expected %q, the only scope the model Agents have", value, cancelScope)
		}
		return nil
	case "retain":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return fmt.Errorf("knob retain=%q: expected 0 (keep everything) or a positive number of messages", value)
		}
		k.Retain = n
		return nil
	case "live-only":
		k.LiveOnly = value
		return nil
	case "key-window":
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return fmt.Errorf("knob key-window=%q: expected a duration such as 500ms (0: no window)", value)
		}
		k.KeyWindow = d
		return nil
	case "runtime-delay":
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return fmt.Errorf("knob runtime-delay=%q: expected a duration such as 15ms", value)
		}
		k.RuntimeDelay = d
		return nil
	}
	for _, c := range choiceKnobs {
		if c.name == name {
			for _, v := range c.values {
				if v == value {
					*c.get(k) = value
					return nil
				}
			}
			return fmt.Errorf("knob %s=%q: expected one of %s", name, value, strings.Join(c.values, ", "))
		}
	}
	return fmt.Errorf("unknown knob %q", name)
}

// Map renders the knobs for a trace header. cancel-scope records how the
// Agent reads the schema's "only against requests they received from that
// sender": a $/cancel_request names a request of its own connection, and
// withdrawing that request's key answers every waiter of the key, on any
// connection.
func (k Knobs) Map() map[string]string {
	m := map[string]string{
		"chunks":       fmt.Sprint(k.Chunks),
		"chunkEvery":   k.ChunkEvery.String(),
		"cancel-scope": cancelScope,
		"retain":       fmt.Sprint(k.Retain),
		"live-only":    k.LiveOnly,
		// runtime-delay is read by the adapter model only.
		"runtime-delay": k.RuntimeDelay.String(),
	}
	for _, c := range choiceKnobs {
		m[c.name] = *c.get(&k)
	}
	// sessions-in came after traces were pinned by their bytes
	// (sim/world/testdata/trace-hashes.txt): at its default it is left out,
	// so a trace of an Agent that stores its sessions reads as before.
	if k.SessionsIn == SessionsStore {
		delete(m, "sessions-in")
	}
	if k.KeyWindow > 0 {
		m["key-window"] = k.KeyWindow.String()
	}
	// So are the alternatives' knobs, at the RFD's values.
	for name, def := range map[string]string{"in-progress": InProgressWait, "binding": BindingWithMessage, "message-ids": MessageIDsAgent, "create-keys": CreateKeysIgnore, "protocol": ProtocolV2, "load-session": LoadSessionYes} {
		if m[name] == def {
			delete(m, name)
		}
	}
	return m
}

// cancelScope is how the model Agents scope a $/cancel_request (Map).
const cancelScope = "sender"

// KnobsFromMap reads knobs as Map renders them (a trace header's), each
// through Set, over the defaults.
func KnobsFromMap(m map[string]string) (Knobs, error) {
	k := DefaultKnobs()
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := k.Set(name, m[name]); err != nil {
			return k, err
		}
	}
	return k, k.Validate()
}

// ProcessStore is the store a new process of a model Agent gets over its
// installation's shared store: the shared one, or under sessions-in=memory
// an empty store of its own that dies with the process.
func ProcessStore(k Knobs, shared store.Store) StoreOpener {
	if k.SessionsIn == SessionsMemory {
		own := store.NewDisk()
		return func() store.Store { return own }
	}
	return func() store.Store { return shared }
}

// Validate reports a knob value the Agent does not know.
func (k Knobs) Validate() error {
	for _, c := range choiceKnobs {
		v := *c.get(&k)
		if err := (&Knobs{}).Set(c.name, v); err != nil {
			return err
		}
	}
	if k.Retain < 0 {
		return fmt.Errorf("retain %d: expected 0 (keep everything) or a positive number of messages", k.Retain)
	}
	if k.RuntimeDelay < 0 {
		return fmt.Errorf("runtime-delay %v: expected a duration of 0 or more", k.RuntimeDelay)
	}
	if k.Chunks < 1 || k.ChunkEvery <= 0 {
		return fmt.Errorf("work must have at least one chunk and a positive chunk interval")
	}
	if k.Protocol != ProtocolV2 && k.LiveOnly != "" {
		// v1 answers a prompt when its turn ends: a command handled
		// locally has no turn the translation could see end.
		return fmt.Errorf("protocol %s with live-only: expected no live-only prefix (a v1 prompt is answered when its turn ends)", k.Protocol)
	}
	if k.Protocol != ProtocolV2 && k.Auth == AuthRequired {
		// v1's authMethods and authenticate differ in shape from v2's
		// auth/login; the translation does not carry them.
		return fmt.Errorf("protocol %s with auth required: not modelled (v1's authenticate is not translated); expected auth none", k.Protocol)
	}
	if k.LoadSession == LoadSessionNo && k.Protocol == ProtocolV2 {
		return fmt.Errorf("load-session=no: expected with protocol=1 or negotiate only (v2 has session/resume)")
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
	return func(k Knobs, open StoreOpener, env Env) Machine {
		m := e.factory(k, open, env)
		switch k.Protocol {
		case ProtocolV1:
			return SpeakV1(m, k.LoadSession == LoadSessionYes)
		case ProtocolNegotiate:
			return Negotiate(m, k.LoadSession == LoadSessionYes)
		}
		return m
	}, nil
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
