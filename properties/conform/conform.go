// Package conform says whether a frame, or every frame of a trace, conforms
// to ACP v2 plus the prompt-idempotency RFD's idempotencyKey.
//
// The check has two halves. The schema half validates each JSON-RPC message
// against the official ACP v2 JSON Schema (embedded, compiled once) with
// github.com/santhosh-tekuri/jsonschema/v6: a request or notification
// against its method's params definition (PromptRequest for session/prompt,
// ...), a response against the result definition of the method of the
// request it answers, an error response against the schema's Error. The
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
// # What the schema allows that a reader might not expect
//
// The schema's objects do not forbid unknown members, and its request
// unions end in an extension member that accepts any params. So a method
// the schema does not define for a direction is checked only as a JSON-RPC
// envelope, and a misspelled idempotency_key is schema-valid: the lint rules
// exist for that.
package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

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
)

// keyField is the RFD's member name.
const keyField = "idempotencyKey"

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

// Frame checks one frame (a JSON-RPC message or a batch of them) sent in
// dir, traces.ClientToAgent or traces.AgentToClient, and returns its
// problems, none when it conforms. method is the method of the request a
// response answers; it applies to every response in the frame, and "" checks
// a response against the schema's union of all results. Frame knows nothing
// of the connection, so it reports RuleIDReused only within a batch; Trace
// reports it across a link.
func Frame(dir string, frame []byte, method string) []Problem {
	c := conn{fixed: method, hasFixed: true}
	return c.check(0, dir, frame)
}

// Trace checks every frame a trace's send events carry. It pairs each
// response with the request it answers by link, id and direction, so the
// response is validated against that method's result, and it reports a
// request id one side uses twice on one link. Problems come in event order.
func Trace(events []traces.Event) []Problem {
	var out []Problem
	conns := map[string]*conn{}
	for _, e := range events {
		if e.Kind != traces.KindSend {
			continue
		}
		c := conns[e.Link]
		if c == nil {
			c = &conn{}
			conns[e.Link] = c
		}
		for _, p := range c.check(e.Seq, e.Dir, []byte(e.Frame)) {
			p.Seq, p.Link = e.Seq, e.Link
			out = append(out, p)
		}
	}
	return out
}

// IsProbe reports whether p, found by Trace in events, is about one of the
// malformed keys acpsim's observer sends on purpose after a run, to see the
// Agent refuse each with -32602 (client.MalformedKeys): a schema problem at
// /params/idempotencyKey of a session/prompt request from traces.Observer.
// Such a problem is correct for lint to report, and expected in every
// acpsim trace; a checker of acpsim's own frames leaves it out.
func IsProbe(p Problem, events []traces.Event) bool {
	if p.Rule != RuleSchema || p.Pointer != "/params/idempotencyKey" || p.Dir != traces.ClientToAgent {
		return false
	}
	i := int(p.Seq - 1) // where a trace as read has it
	if i < 0 || i >= len(events) || events[i].Seq != p.Seq {
		i = slices.IndexFunc(events, func(e traces.Event) bool { return e.Seq == p.Seq })
	}
	if i < 0 || events[i].Kind != traces.KindSend || events[i].From != traces.Observer {
		return false
	}
	var f struct {
		Method string `json:"method"`
	}
	return json.Unmarshal([]byte(events[i].Frame), &f) == nil && f.Method == "session/prompt"
}

// conn is what one connection's checks remember: the requests each side
// sent, by direction and id.
type conn struct {
	sent     map[string]sentReq // dir + " " + id text → the request
	fixed    string             // Frame's method for every response
	hasFixed bool
}

type sentReq struct {
	seq    int64
	method string
}

// jsonrpcMsg is one JSON-RPC message of a frame, decoded.
type jsonrpcMsg struct {
	ptr    string // its pointer in the frame: "" or "/i" in a batch
	obj    map[string]any
	kind   string
	method string // the request or notification method, or the answered one
	id     string // JSON text of the id, "" when absent
}

func (c *conn) check(seq int64, dir string, frame []byte) []Problem {
	var ps []Problem
	problem := func(rule, ptr, format string, args ...any) {
		ps = append(ps, Problem{Dir: dir, Rule: rule, Pointer: ptr, Msg: fmt.Sprintf(format, args...)})
	}
	if dir != traces.ClientToAgent && dir != traces.AgentToClient {
		problem(RuleJSONRPC, "", "direction %q: expected %q or %q", dir, traces.ClientToAgent, traces.AgentToClient)
		return ps
	}
	cs, err := load()
	if err != nil {
		problem(RuleSchema, "", "%v", err)
		return ps
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(frame))
	if err != nil {
		problem(RuleJSON, "", "not JSON: %v", err)
		return ps
	}
	var msgs []jsonrpcMsg
	switch v := v.(type) {
	case map[string]any:
		msgs = []jsonrpcMsg{{obj: v}}
	case []any:
		if len(v) == 0 {
			problem(RuleJSONRPC, "", "an empty batch: expected at least one message")
		}
		for i, e := range v {
			ptr := "/" + strconv.Itoa(i)
			obj, ok := e.(map[string]any)
			if !ok {
				problem(RuleJSONRPC, ptr, "a batch entry that is not an object: expected a JSON-RPC message")
				continue
			}
			msgs = append(msgs, jsonrpcMsg{ptr: ptr, obj: obj})
		}
	default:
		problem(RuleJSONRPC, "", "a JSON %s: expected a JSON-RPC message (an object) or a batch (an array)", jsonType(v))
		return ps
	}
	for i := range msgs {
		m := &msgs[i]
		if !classify(m) {
			problem(RuleJSONRPC, m.ptr, "neither a request (method and id), a notification (method), nor a response (id and either result or error)")
			continue
		}
		if m.kind == kindRequest && m.id != "" && m.id != "null" {
			if c.sent == nil {
				c.sent = map[string]sentReq{}
			}
			k := dir + " " + m.id
			if prev, ok := c.sent[k]; ok {
				problem(RuleIDReused, m.ptr+"/id", "request id %s was already used by this side on this link (seq %d, %s): expected a new id per request", m.id, prev.seq, prev.method)
			}
			c.sent[k] = sentReq{seq, m.method}
		}
		if (m.kind == kindResult || m.kind == kindError) && m.id != "" {
			if c.hasFixed {
				m.method = c.fixed
			} else if r, ok := c.sent[reverse(dir)+" "+m.id]; ok {
				m.method = r.method
			}
		}
		if p, ok := cs.validate(dir, m); !ok {
			p.Dir = dir
			ps = append(ps, p)
		}
		ps = append(ps, keyProblems(dir, m)...)
	}
	return ps
}

// classify sets m's kind, method and id, and reports whether it is a
// JSON-RPC message at all.
func classify(m *jsonrpcMsg) bool {
	id, hasID := m.obj["id"]
	method, hasMethod := m.obj["method"]
	_, hasResult := m.obj["result"]
	_, hasError := m.obj["error"]
	if hasID {
		b, _ := json.Marshal(id)
		m.id = string(b)
	}
	m.method, _ = method.(string)
	switch {
	case hasMethod && hasID:
		m.kind = kindRequest
	case hasMethod:
		m.kind = kindNotification
	case hasID && hasResult && !hasError:
		m.kind = kindResult
	case hasID && hasError && !hasResult:
		m.kind = kindError
	default:
		return false
	}
	return true
}

// validate checks m against the schema for its kind and method.
func (cs *compiled) validate(dir string, m *jsonrpcMsg) (Problem, bool) {
	t := target{dir, m.kind, m.method}
	if m.kind == kindError {
		t.method = ""
	}
	s := cs.schemas[t]
	if s == nil {
		t.method = ""
		s = cs.schemas[t]
	}
	err := s.Validate(m.obj)
	if err == nil {
		return Problem{}, true
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return Problem{Rule: RuleSchema, Pointer: m.ptr, Msg: err.Error()}, false
	}
	leaf := pickLeaf(ve)
	return Problem{
		Rule:    RuleSchema,
		Pointer: m.ptr + pointer(leaf.InstanceLocation),
		Msg:     describe(t, m.method, cs.defs[t]) + ": " + leaf.ErrorKind.LocalizedString(printer),
	}, false
}

var printer = message.NewPrinter(language.English)

// describe names what a message was checked against, for a Problem.
func describe(t target, method, def string) string {
	switch {
	case t.kind == kindError:
		return fmt.Sprintf("error response (%s)", def)
	case t.method == "" && (t.kind == kindResult) && method != "":
		return fmt.Sprintf("response to %s, which the schema does not define for this direction (%s)", method, def)
	case t.method == "" && t.kind == kindResult:
		return fmt.Sprintf("response to an unknown request (%s)", def)
	case t.method == "":
		return fmt.Sprintf("%s %q, which the schema does not define for this direction (%s)", t.kind, method, def)
	case t.kind == kindResult:
		return fmt.Sprintf("response to %s (result: %s)", t.method, def)
	}
	return fmt.Sprintf("%s %s (params: %s)", t.method, t.kind, def)
}

// pickLeaf chooses the error to report from a tree of them: the deepest in
// the instance, since the branch of a union that got furthest is the one
// the sender meant. The schema's unions are tagged (sessionUpdate, type,
// state, ...): a member whose tag does not match the instance's is not what
// the sender meant, so its errors are left out. A const, enum or not
// failure is reported only when nothing else failed.
func pickLeaf(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	var best, bestWeak *jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		causes := e.Causes
		if _, ok := e.ErrorKind.(*kind.AnyOf); ok {
			var meant []*jsonschema.ValidationError
			for _, c := range causes {
				if !tagMiss(c, len(e.InstanceLocation)+1) {
					meant = append(meant, c)
				}
			}
			if len(meant) > 0 {
				causes = meant
			}
		}
		for _, c := range causes {
			walk(c)
		}
		if len(causes) > 0 {
			return
		}
		switch e.ErrorKind.(type) {
		case *kind.Const, *kind.Enum, *kind.Not:
			if bestWeak == nil || len(e.InstanceLocation) > len(bestWeak.InstanceLocation) {
				bestWeak = e
			}
		default:
			if best == nil || len(e.InstanceLocation) > len(best.InstanceLocation) {
				best = e
			}
		}
	}
	walk(e)
	if best == nil {
		return bestWeak
	}
	return best
}

// tagMiss reports whether a union member failed on a constant one level
// below the union's instance: a member property, the tag.
func tagMiss(e *jsonschema.ValidationError, depth int) bool {
	if _, ok := e.ErrorKind.(*kind.Const); ok && len(e.InstanceLocation) == depth {
		return true
	}
	for _, c := range e.Causes {
		if tagMiss(c, depth) {
			return true
		}
	}
	return false
}

// keyProblems applies the key rules to every member of m.
func keyProblems(dir string, m *jsonrpcMsg) []Problem {
	var ps []Problem
	isPrompt := m.method == "session/prompt"
	var path []string
	add := func(rule, msg string) {
		ps = append(ps, Problem{Dir: dir, Rule: rule, Pointer: m.ptr + pointer(path), Msg: msg})
	}
	var walk func(v any, inMeta bool)
	walk = func(v any, inMeta bool) {
		switch v := v.(type) {
		case map[string]any:
			for name, e := range v {
				path = append(path, name)
				switch {
				case name == keyField && inMeta:
					add(RuleKeyInMeta, "idempotencyKey inside _meta: expected it directly in session/prompt params, and never in what an Agent sends")
				case name == keyField && !isPrompt:
					add(RuleKeyWrongMethod, fmt.Sprintf("idempotencyKey in %s: only session/prompt takes a key", what(m)))
				case name == keyField && (m.kind != kindRequest || dir != traces.ClientToAgent || len(path) != 2 || path[0] != "params"):
					add(RuleKeyMisplaced, fmt.Sprintf("idempotencyKey in %s: expected it only at /params/idempotencyKey of a Client's request", what(m)))
				case name != keyField && isKeySpelling(name):
					add(RuleKeySpelling, fmt.Sprintf("%q: expected the member name idempotencyKey; a receiver sees no key", name))
				}
				walk(e, inMeta || name == "_meta")
				path = path[:len(path)-1]
			}
		case []any:
			for i, e := range v {
				path = append(path, strconv.Itoa(i))
				walk(e, inMeta)
				path = path[:len(path)-1]
			}
		}
	}
	walk(m.obj, false)
	// Maps have no order; problems do, so runs print the same.
	slices.SortFunc(ps, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return ps
}

// what names a message for the key rules.
func what(m *jsonrpcMsg) string {
	switch {
	case m.kind == kindResult || m.kind == kindError:
		if m.method == "" {
			return "a response"
		}
		return "a response to " + m.method
	case m.method == "":
		return "a " + m.kind
	}
	return "a " + m.method + " " + m.kind
}

var separators = strings.NewReplacer("_", "", "-", "", " ", "")

// isKeySpelling reports whether name is idempotencyKey in another case or
// with separators: idempotency_key, IdempotencyKey, idempotency-key.
func isKeySpelling(name string) bool {
	if len(name) < len("idempotencykey") || len(name) > len("idempotency__key") {
		return false
	}
	return separators.Replace(strings.ToLower(name)) == "idempotencykey"
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

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}
