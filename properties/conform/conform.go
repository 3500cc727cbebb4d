// Package conform says whether a frame, or every frame of a trace, conforms
// to ACP v2 plus the prompt-idempotency RFD's idempotencyKey, or to ACP v1
// when that is what the trace's peers negotiated.
//
// The check has two halves. The schema half validates each JSON-RPC message
// against the official ACP v2 JSON Schema (embedded, compiled once; v1's
// likewise, when first needed) with github.com/santhosh-tekuri/jsonschema/v6:
// a request or notification against its method's params definition
// (PromptRequest for session/prompt, ...), a response against the result
// definition of the method of the request it answers, an error response
// against the schema's Error. The
// lint half is the rules the schema cannot express: where the key may
// appear (only directly in a session/prompt request's params, spelled
// idempotencyKey, never in _meta) and that one side never sends two
// requests with the same id on one connection.
//
// # Which schema
//
// The embedded copy is schema.unstable.json from @agentclientprotocol/sdk
// 2.4.0, the schema that SDK ships for v2, not the stable schema.json.
// acpsim's Agents and Clients speak session/fork (and advertise
// capabilities.session.fork), which only the unstable schema defines; every
// other method acpsim uses (initialize, session/new, session/resume,
// session/list, session/close, session/delete, session/prompt,
// session/cancel, session/update, auth/login, auth/logout,
// $/cancel_request) is in both, and where the two define the same thing the
// unstable one only adds optional fields and variants. Validating against
// the stable schema would report every fork as an unknown method while
// saying nothing more about the rest.
//
// The RFD's field is added to PromptRequest when the schema is loaded, as
// the RFD's plan words it: optional, nullable, a string of 1 to 255
// characters (JSON Schema counts code points). The embedded file stays
// byte for byte the SDK's. When the upstream schema gains the field, loading
// fails on purpose, so the patch is dropped rather than silently shadowing
// the official definition.
//
// # ACP v1
//
// Most published Agents and Clients speak ACP v1, and a v1 trace held to
// v2's schema is a page of problems that say only "this is not v2". So
// FrameVersion and TraceVersion check against the official v1 schema too,
// and Negotiated reads which version a trace's initialize settled on. The
// v1 copy is schema.v1.unstable.json from the same SDK release, unstable
// for the same reason as v2's: the SDK's own v1 API is built on it, so an
// Agent written with it may answer session/fork, session/archive or
// session/status, which only the unstable schema defines, while for what
// both define the unstable one only adds optional fields and variants.
// The RFD extends v2, so v1 is not patched with idempotencyKey and its
// frames get no key rules and no probe rule; JSON-RPC's rules (RuleJSON,
// RuleJSONRPC, RuleIDReused) hold in both.
//
// # What the schema allows that a reader might not expect
//
// The schema's objects do not forbid unknown members, and its request
// unions end in an extension member that accepts any params. So a method
// the schema does not define for a direction is checked only as a JSON-RPC
// envelope, and a misspelled idempotency_key is schema-valid: the lint rules
// exist for that.
package conform

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/traces"
)

// Rules a Problem can break.
const (
	// RuleJSON: the frame is not JSON.
	RuleJSON = "json"
	// RuleJSONRPC: the frame is JSON but not a JSON-RPC message or batch:
	// neither a request, a notification nor a response.
	RuleJSONRPC = "jsonrpc"
	// RuleSchema: the message does not validate against the schema.
	RuleSchema = "schema"
	// RuleKeySpelling: a member spelled like the key but not
	// idempotencyKey (idempotency_key, IdempotencyKey, ...): a receiver
	// reading idempotencyKey sees no key.
	RuleKeySpelling = "key-spelling"
	// RuleKeyInMeta: idempotencyKey inside a _meta object. The key is a
	// params field; implementations must not assign meaning to _meta keys
	// they do not know, and an Agent must never echo a key.
	RuleKeyInMeta = "key-in-meta"
	// RuleKeyWrongMethod: idempotencyKey in a message of a method other
	// than session/prompt (a response counts as its request's method).
	RuleKeyWrongMethod = "key-wrong-method"
	// RuleKeyMisplaced: idempotencyKey in a session/prompt message, but not
	// directly in a request's params (nested in a block, in the result).
	RuleKeyMisplaced = "key-misplaced"
	// RuleIDReused: one side sent two requests with the same id on one
	// connection, so a response cannot say which it answers.
	RuleIDReused = "id-reused"
	// RuleProbe: a request the trace notes as a probe (traces.NoteProbe,
	// malformed on purpose) whose key is well-formed, or which the Agent
	// did not refuse with -32602. A probe's own schema problem at its key
	// is expected and not reported.
	RuleProbe = "probe"
)

// Problem is one way a frame does not conform.
type Problem struct {
	// Seq is the send event's number in a trace, 0 for Frame.
	Seq int64
	// Link is the connection the frame was sent on ("" for Frame).
	Link string
	// Dir is traces.ClientToAgent or traces.AgentToClient.
	Dir string
	// Rule is one of the Rule constants.
	Rule string
	// Pointer is the JSON pointer (RFC 6901) of the offending value in the
	// frame; "" is the whole frame, and in a batch it starts with the
	// message's index.
	Pointer string
	// Msg says what is wrong and what was expected.
	Msg string
}

// String renders the problem on one line:
// "seq N link L dir D: RULE: message (at /pointer)". Parts that are not
// set (Seq 0, no Link, empty Pointer) are left out.
func (p Problem) String() string {
	var b strings.Builder
	if p.Seq != 0 {
		fmt.Fprintf(&b, "seq %d ", p.Seq)
	}
	if p.Link != "" {
		fmt.Fprintf(&b, "link %s ", p.Link)
	}
	fmt.Fprintf(&b, "dir %s: %s: %s", p.Dir, p.Rule, p.Msg)
	if p.Pointer != "" {
		fmt.Fprintf(&b, " (at %s)", p.Pointer)
	}
	return b.String()
}

// Protocol versions whose official schema the package embeds.
const (
	// V1 is ACP v1, what most published Agents and Clients speak. The
	// idempotency RFD extends v2, so a v1 frame is held to the schema and
	// to JSON-RPC's rules (RuleJSON, RuleJSONRPC, RuleIDReused) only.
	V1 = 1
	// V2 is ACP v2 with the RFD's idempotencyKey, and every rule.
	V2 = 2
)

// Frame checks one frame (a JSON-RPC message or a batch of them) sent in
// dir, traces.ClientToAgent or traces.AgentToClient, against ACP v2, and
// returns its problems, none when it conforms. method is the method of the
// request a response answers; it applies to every response in the frame,
// and "" checks a response against the schema's union of all results.
// Frame knows nothing of the connection, so it reports RuleIDReused only
// within a batch; Trace reports it across a link.
func Frame(dir string, frame []byte, method string) []Problem {
	return FrameVersion(V2, dir, frame, method)
}

// FrameVersion is Frame against the schema of protocol version V1 or V2.
// Under V1 the idempotency RFD's rules (the key rules and RuleProbe) are
// not applied: v1 has no idempotencyKey, and its schema is not patched
// with one. Another version is reported as a RuleSchema problem.
func FrameVersion(version int, dir string, frame []byte, method string) []Problem {
	c := conn{version: version, fixed: method, hasFixed: true}
	return c.check(0, dir, frame, false)
}

// Trace checks every frame a trace's send events carry against ACP v2. It
// pairs each response with the request it answers by link, id and
// direction, so the response is validated against that method's result,
// and it reports a request id one side uses twice on one link. Problems
// come in event order.
func Trace(events []traces.Event) []Problem {
	return TraceVersion(V2, events)
}

// TraceVersion is Trace against the schema of protocol version V1 or V2,
// with FrameVersion's rules for that version. Negotiated says which version
// a trace's peers settled on.
func TraceVersion(version int, events []traces.Event) []Problem {
	var out []Problem
	conns := map[string]*conn{}
	for _, e := range events {
		if e.Kind != traces.KindSend {
			continue
		}
		c := conns[e.Link]
		if c == nil {
			c = &conn{version: version}
			conns[e.Link] = c
		}
		for _, p := range c.check(e.Seq, e.Dir, []byte(e.Frame), e.Note == traces.NoteProbe) {
			p.Seq, p.Link = e.Seq, e.Link
			out = append(out, p)
		}
	}
	return out
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointer renders tokens as a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(t))
	}
	return b.String()
}
