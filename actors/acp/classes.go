package acp

import "sort"

// RetryClass is one of the prompt-idempotency RFD's four retry classes: what
// a sender may do with a request whose response it never saw. The RFD gives
// every method one; its method-audit tables did not survive, so the table
// below restates them (Source says whose word each row is).
type RetryClass string

// The RFD's retry classes.
const (
	// ClassAsIs: safe to send again as is (same params, a new JSON-RPC id).
	ClassAsIs RetryClass = "as-is"
	// ClassKeyed: safe to send again with the same idempotencyKey.
	ClassKeyed RetryClass = "keyed"
	// ClassDuplicating: a resend creates a second effect.
	ClassDuplicating RetryClass = "duplicating"
	// ClassNever: not resent (notifications, responses, connection-bound
	// handshakes).
	ClassNever RetryClass = "never"
)

// RetryClasses lists the four classes, from the safest resend to none.
func RetryClasses() []RetryClass {
	return []RetryClass{ClassAsIs, ClassKeyed, ClassDuplicating, ClassNever}
}

// Meaning is the RFD's one-line definition of the class ("" for an unknown
// class, so a typo in the table cannot pass as a class).
func (c RetryClass) Meaning() string {
	switch c {
	case ClassAsIs:
		return "safe to send again as is"
	case ClassKeyed:
		return "safe to send again with the same idempotencyKey"
	case ClassDuplicating:
		return "a resend creates a second effect"
	case ClassNever:
		return "not resent: notifications, responses, connection-bound handshakes"
	}
	return ""
}

// Direction says who sends a method and whether it is answered. The schemas
// say it with x-side (the side that handles the message) on each request,
// response and notification type; two methods exist both as a request and as
// a notification, so they get a direction of their own.
type Direction string

// Directions of the v2 methods.
const (
	ClientToAgent      Direction = "client→agent request"
	AgentToClient      Direction = "agent→client request"
	ClientNotification Direction = "client→agent notification"
	AgentNotification  Direction = "agent→client notification"
	EitherNotification Direction = "notification, either side"
	// ConductorToProxy is proxy/initialize: the conductor's handshake with
	// a proxy component (unstable proxy chains).
	ConductorToProxy Direction = "conductor→proxy request"
	// ProxyEnvelope is proxy/successor: a request or a notification between
	// a proxy and the conductor, either way, wrapping one message.
	ProxyEnvelope Direction = "proxy↔conductor request or notification"
	// MCPTunnel is mcp/message: the Agent's MCP requests to the Client, and
	// the Client's notifications for them back to the Agent.
	MCPTunnel Direction = "agent→client request; client→agent notification"
)

// Source says whose word a row's class is.
type Source string

// Sources of a row.
const (
	// SourceRFD: the RFD's text states the class or the repeat behaviour
	// that gives it.
	SourceRFD Source = "RFD"
	// SourceAcpsim: acpsim's reasoning from the schema's method text,
	// following acp-v2-notes §6; the RFD's audit table for it was lost.
	SourceAcpsim Source = "acpsim"
)

// MethodClass is one row of the retry-class table.
type MethodClass struct {
	// Method is the x-method value in the v2 schemas.
	Method string
	// Keyed marks the row for requests that carry an idempotencyKey; only
	// session/prompt has one, and it has a row for each case.
	Keyed     bool
	Direction Direction
	Class     RetryClass
	// Reason is one sentence: what a repeat does that gives the class.
	Reason string
	Source Source
	// Unstable is true for methods only in schema.unstable.json.
	Unstable bool
}

// Name is the method with "(keyed)" or "(no key)" for the two session/prompt
// rows, so every row has a distinct name in reports.
func (c MethodClass) Name() string {
	switch {
	case c.Keyed:
		return c.Method + " (keyed)"
	case hasKeyedRow(c.Method):
		return c.Method + " (no key)"
	}
	return c.Method
}

// classTable is every x-method of schema.json and schema.unstable.json, both
// directions, with its class. It is data, not a switch, so the test can hold
// it against the schemas row by row and the CLI can print it as it stands.
var classTable = []MethodClass{
	{Method: "$/cancel_request", Direction: EitherNotification, Class: ClassNever, Source: SourceAcpsim,
		Reason: "A notification naming a request id of its own connection: after a reconnect it names nothing, and the Agent answers the cancelled request anyway."},
	{Method: "auth/login", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim,
		Reason: "It ends in the authenticated state whether it ran once or twice; a repeat may only show the login flow again."},
	{Method: "auth/logout", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim,
		Reason: "It ends in the logged-out state whether it ran once or twice."},
	{Method: "auth/status", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim, Unstable: true,
		Reason: "The schema says it queries the authentication state without changing it, so a repeat only reads it again."},
	{Method: "auth/status_update", Direction: AgentNotification, Class: ClassNever, Source: SourceAcpsim, Unstable: true,
		Reason: "A notification; the Client asks auth/status for the current state instead of waiting for a resend."},
	{Method: "elicitation/complete", Direction: AgentNotification, Class: ClassNever, Source: SourceAcpsim,
		Reason: "A notification; nothing answers it, so there is nothing to lose and resend."},
	{Method: "elicitation/create", Direction: AgentToClient, Class: ClassDuplicating, Source: SourceAcpsim,
		Reason: "A resend asks the user a second time; after a reconnect the Agent asks afresh if it still needs the input."},
	{Method: "initialize", Direction: ClientToAgent, Class: ClassNever, Source: SourceAcpsim,
		Reason: "A per-connection handshake: it is sent once on every new connection, never resent on the same one."},
	{Method: "mcp/message", Direction: MCPTunnel, Class: ClassDuplicating, Source: SourceAcpsim, Unstable: true,
		Reason: "It carries an MCP request such as tools/call whose repeat can act twice, and the RFD leaves MCP retries to MCP, so ACP cannot promise a safe resend."},
	{Method: "providers/disable", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim, Unstable: true,
		Reason: "It ends with the provider disabled whether it ran once or twice."},
	{Method: "providers/list", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim, Unstable: true,
		Reason: "Read-only."},
	{Method: "providers/set", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim, Unstable: true,
		Reason: "It replaces the provider's whole configuration, so a repeat writes the same value again."},
	{Method: "proxy/initialize", Direction: ConductorToProxy, Class: ClassNever, Source: SourceAcpsim, Unstable: true,
		Reason: "The conductor's per-connection handshake with a proxy, like initialize."},
	{Method: "proxy/successor", Direction: ProxyEnvelope, Class: ClassNever, Source: SourceAcpsim, Unstable: true,
		Reason: "A one-hop envelope: the original sender resends the wrapped message end to end under that message's own class, and a hop never resends the envelope."},
	{Method: "session/archive", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim, Unstable: true,
		Reason: "The schema says archiving an archived session succeeds, so a repeat leaves it archived."},
	{Method: "session/cancel", Direction: ClientNotification, Class: ClassNever, Source: SourceAcpsim,
		Reason: "A notification, and a late resend would cancel the work of a later prompt in the same session."},
	{Method: "session/close", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceRFD,
		Reason: "The RFD says session/close is idempotent: closing a closed session succeeds and changes nothing."},
	{Method: "session/delete", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceRFD,
		Reason: "The RFD says session/delete of a missing session succeeds, so a repeat finds it gone and succeeds."},
	{Method: "session/fork", Direction: ClientToAgent, Class: ClassDuplicating, Source: SourceRFD, Unstable: true,
		Reason: "The RFD's audit names it duplicating: every request creates a new session, and it gets no key."},
	{Method: "session/list", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim,
		Reason: "Read-only."},
	{Method: "session/new", Direction: ClientToAgent, Class: ClassDuplicating, Source: SourceRFD,
		Reason: "The RFD's audit names it duplicating: every request creates a new session, and it gets no key."},
	{Method: "session/prompt", Direction: ClientToAgent, Class: ClassDuplicating, Source: SourceRFD,
		Reason: "The RFD: without a key, a second request inserts a second user message and may run the work twice."},
	{Method: "session/prompt", Keyed: true, Direction: ClientToAgent, Class: ClassKeyed, Source: SourceRFD,
		Reason: "The RFD's one keyed method: the Agent inserts the message at most once per key and answers retries with the original messageId."},
	{Method: "session/request_permission", Direction: AgentToClient, Class: ClassDuplicating, Source: SourceAcpsim,
		Reason: "A resend asks the user a second time; after a reconnect the Agent asks afresh if it still needs the answer."},
	{Method: "session/resume", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceRFD,
		Reason: "The RFD says session/resume of an active session synchronizes it again, and replay is made of id-keyed messages that a second replay repeats."},
	{Method: "session/set_config_option", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim,
		Reason: "It sets an absolute value and returns the full state, so a repeat writes the same value (a stale resend can undo a newer change)."},
	{Method: "session/set_title", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim, Unstable: true,
		Reason: "It sets an absolute title, so a repeat stores the same title again."},
	{Method: "session/status", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim, Unstable: true,
		Reason: "The schema says it MUST NOT have side effects, so a repeat only reads the status again."},
	{Method: "session/unarchive", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim, Unstable: true,
		Reason: "The schema says unarchiving a session that is not archived succeeds, so a repeat leaves it unarchived."},
	{Method: "session/update", Direction: AgentNotification, Class: ClassNever, Source: SourceAcpsim,
		Reason: "A notification; a Client that missed updates recovers them with session/resume replay, not by a resend."},
	{Method: "terminal/cancel", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim,
		Reason: "It names one terminal, so a repeat cancels nothing else; it may get -32602 once the terminal has exited, which means the cancel is done."},
	{Method: "tool_call/cancel", Direction: ClientToAgent, Class: ClassAsIs, Source: SourceAcpsim,
		Reason: "It names one tool call, so a repeat cancels nothing else; it may get -32602 once the call is final, which means the cancel is done."},
}

func hasKeyedRow(method string) bool {
	for _, c := range classTable {
		if c.Keyed && c.Method == method {
			return true
		}
	}
	return false
}

// Classes returns the retry-class table sorted by method, a method's
// unkeyed row before its keyed one. The slice is a copy.
func Classes() []MethodClass {
	out := append([]MethodClass(nil), classTable...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Method != out[j].Method {
			return out[i].Method < out[j].Method
		}
		return !out[i].Keyed && out[j].Keyed
	})
	return out
}

// ClassOf returns the row of method: for session/prompt the keyed or the
// unkeyed one as keyed says. Other methods have one row whatever keyed says,
// since no other method takes a key and an unknown field changes nothing.
// ok is false for a method in neither schema.
func ClassOf(method string, keyed bool) (MethodClass, bool) {
	var found *MethodClass
	for i := range classTable {
		c := &classTable[i]
		if c.Method != method {
			continue
		}
		if c.Keyed == keyed {
			return *c, true
		}
		found = c
	}
	if found == nil || found.Keyed {
		// A method whose only row is keyed has no answer for an unkeyed
		// request; no such method exists, but the table must not lie.
		return MethodClass{}, false
	}
	return *found, true
}
