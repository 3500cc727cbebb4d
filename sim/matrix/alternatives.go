package matrix

import "github.com/acpsim/acpsim/sim/design"

// Alternative is one approach the RFD weighs against its own, as a Client
// policy and an Agent design the simulator runs: acpsim matrix
// --alternatives puts them side by side on the same seeds, faults and
// links.
type Alternative struct {
	// Name labels the row.
	Name string
	// Policy is the Clients' policy spec, Design the Agent's.
	Policy string
	Design design.Design
	// Stores is what a Client must keep per pending submission to recover.
	Stores string
	// RFD is the passage of the RFD it measures, quoted.
	RFD string
}

// alt is a design of the alternatives table.
func alt(name string, settings ...design.Setting) design.Design {
	return design.Design{Name: name, Why: "an alternative of the RFD", Settings: settings}
}

// Alternatives are the RFD's alternatives, in the order it names them,
// after its own proposal.
var Alternatives = []Alternative{
	{Name: "the RFD", Policy: "keyed", Design: design.Builtin[0], Stores: "a key per pending submission",
		RFD: `"The Client generates the key and sends the same key on every attempt. The Agent inserts the user message at most once for that key and answers retries with the messageId of the original."`},
	{Name: "retry classes only", Policy: "classes-only", Design: design.Builtin[0], Stores: "nothing (a prompt is never resent)",
		RFD: `"Document retry classes only. This is the smallest change and still worth doing, but it leaves session/prompt unsafe to retry, which is the case that costs users the most."`},
	{Name: "today: naive resend", Policy: "naive", Design: design.Builtin[0], Stores: "each pending prompt",
		RFD: `Status quo: "The Client retries, and the first message was inserted. The Agent now has two user messages and does the work twice."`},
	{Name: "resolve by lookup", Policy: "lookup", Design: design.Builtin[0], Stores: "each pending prompt's text",
		RFD: `"Resolve by lookup instead of retry ... Replay may omit live-only or discarded messages, matching by content is unreliable, and the Client still couldn't tell 'not inserted yet' from 'never arrived'."`},
	{Name: "lookup, live-only commands", Policy: "lookup", Design: alt("live-only", design.Setting{Key: "live-only", Value: "/"}), Stores: "each pending prompt's text",
		RFD: `the same, where "replay may omit live-only ... messages"`},
	{Name: "no prompt comparison (RFD minimum), a Client reusing keys", Policy: "reuse-key", Design: alt("compare-retry", design.Setting{Key: "compare", Value: "retry"}), Stores: "a key per pending submission",
		RFD: `"Agents are not required to compare prompts." An Agent that doesn't notice "answers as for a retry and inserts nothing."`},
	{Name: "stricter: prompt comparison, a Client reusing keys", Policy: "reuse-key", Design: alt("compare-reject", design.Setting{Key: "compare", Value: "reject"}), Stores: "a key per pending submission",
		RFD: `"Stricter rules. Agents would compare a retry's prompt with the original ..." (an Agent that notices "rejects it with -32602")`},
	{Name: "stricter: a dedicated error for a reused key, a Client reusing keys", Policy: "reuse-key", Design: alt("compare-error", design.Setting{Key: "compare", Value: "error"}), Stores: "a key per pending submission",
		RFD: `"Why is there no error for a reused key? ... A dedicated error code would also need a rule for intermediaries that rewrite prompts. An Agent that does notice a different prompt rejects it with -32602."`},
	{Name: "stricter: a fixed key window (1 s here, as 24 h to a Client away for a day)", Policy: "keyed", Design: alt("key-window-1s", design.Setting{Key: "key-window", Value: "1s"}), Stores: "a key per pending submission",
		RFD: `"Why is there no time window? Payments APIs keep a key for a fixed time, such as Stripe's 24 hours ... Tying the key to the message needs no number"`},
	{Name: "key and message not in one transaction", Policy: "keyed", Design: alt("binding-after-turn", design.Setting{Key: "binding", Value: "after-turn"}), Stores: "a key per pending submission",
		RFD: `"Stricter rules ... write the key and the message in one transaction." (here the binding is written when the turn ends)`},
	{Name: "Client-chosen messageId", Policy: "keyed", Design: alt("message-id-is-key", design.Setting{Key: "message-ids", Value: "key"}), Stores: "a messageId per pending submission",
		RFD: `"Let the Client choose the messageId. A Client-chosen ID would deduplicate prompts. The Message ID RFD rejected Client-generated message IDs."`},
	{Name: "409: a retry of a held prompt polls", Policy: "keyed", Design: alt("in-progress-conflict", design.Setting{Key: "in-progress", Value: "conflict"}), Stores: "a key per pending submission",
		RFD: `"HTTP APIs answer a retry of an in-progress request with 409 and expect the client to poll. ACP requests can stay pending, so the Agent answers the retry when it answers the original."`},
	{Name: "a key on session/new too, bound in the store", Policy: "keyed-create", Design: alt("create-keys-store", design.Setting{Key: "create-keys", Value: "store"}), Stores: "a key per pending submission and per session being created",
		RFD: `"Why not key session/new and session/fork? ... A duplicate is cheap. It is an unused session, not repeated work."`},
	{Name: "a key on session/new too, kept in memory (an adapter)", Policy: "keyed-create", Design: alt("create-keys-memory", design.Setting{Key: "create-keys", Value: "memory"}), Stores: "a key per pending submission and per session being created",
		RFD: `"Adapters could not keep the promise ... an adapter could only remember the key until it restarts. On stdio, a restart is the only time the key would be needed."`},
}

// StatusQuo is ACP v1, the protocol most published software speaks, with
// the Clients of today, beside v2 with the RFD on the same seeds: the RFD's
// "Status quo" section in numbers (acpsim matrix --status-quo).
var StatusQuo = []Alternative{
	{Name: "v2 with the RFD", Policy: "keyed", Design: design.Builtin[0], Stores: "a key per pending submission",
		RFD: `"Each one is inserted once, and the Client gets the messageId it needs to reconcile its optimistic message." (Shiny future)`},
	{Name: "v1, the Client resends", Policy: "naive", Design: v1Design("v1"), Stores: "each pending prompt",
		RFD: `"The Client retries, and the first message was inserted. The Agent now has two user messages and does the work twice."`},
	{Name: "v1, the Client does not resend", Policy: "none", Design: v1Design("v1"), Stores: "nothing",
		RFD: `"The Client doesn't retry, and the message was never inserted. The user's input is dropped without an error."`},
	{Name: "v1, the Client does not resend and says it does not know", Policy: "classes-only", Design: v1Design("v1"), Stores: "nothing",
		RFD: `"If the response is lost, the submission's outcome remains uncertain" (an honest Client shows it)`},
	{Name: "v1, the Client looks the text up in session/load, then resends", Policy: "lookup", Design: v1Design("v1"), Stores: "each pending prompt's text",
		RFD: `"replay may omit live-only or discarded messages, and a retry can create another submission."`},
	{Name: "v1, sessions in the Agent's memory, the Client resends", Policy: "naive", Design: v1Design("v1-sessions-in-memory", design.Setting{Key: "sessions-in", Value: "memory"}), Stores: "each pending prompt",
		RFD: `"On stdio, the ambiguity needs a crash." (and the crash takes the session with it)`},
}

// v1Design is the reference Agent speaking ACP v1, with settings.
func v1Design(name string, settings ...design.Setting) design.Design {
	return design.Design{Name: name, Why: "ACP v1, the status quo", Settings: append([]design.Setting{{Key: "protocol", Value: "1"}}, settings...)}
}

// Preset is a matrix whose rows are named pairs, with its own table.
type Preset struct {
	// Flag is the matrix flag that runs it; Title heads its table.
	Flag, Title string
	Rows        []Alternative
}

// Presets are the matrices acpsim matrix runs by a flag.
var Presets = []Preset{
	{Flag: "alternatives", Title: "RFD alternatives", Rows: Alternatives},
	{Flag: "status-quo", Title: "the status quo (ACP v1) beside the RFD", Rows: StatusQuo},
}

// Pairs are the preset's rows as matrix rows.
func (p Preset) Pairs() []Pair {
	out := make([]Pair, len(p.Rows))
	for i, a := range p.Rows {
		out[i] = Pair{Label: a.Name, Policy: a.Policy, Design: a.Design}
	}
	return out
}

// Pair is one row of a matrix that is not a product: a policy with a
// design, under a label.
type Pair struct {
	Label  string
	Policy string
	Design Design
}

// AlternativePairs are the Alternatives as matrix rows.
func AlternativePairs() []Pair { return Presets[0].Pairs() }
