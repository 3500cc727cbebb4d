package conform

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is the official ACP v2 schema, unchanged; see the package doc
// for why the unstable one.
//
//go:embed schema.unstable.json
var schemaJSON []byte

// schemaV1JSON is the official ACP v1 schema, unchanged, the unstable one
// for the same reason as v2's.
//
//go:embed schema.v1.unstable.json
var schemaV1JSON []byte

// MaxKeyLength is the RFD's upper bound on an idempotencyKey, in Unicode
// code points (JSON Schema's maxLength counts code points).
const MaxKeyLength = 255

// Message kinds: the part of a JSON-RPC message a schema is picked by.
const (
	kindRequest      = "request"
	kindNotification = "notification"
	kindResult       = "result"
	kindError        = "error"
)

// target is what one compiled schema checks: a message of kind, sent in
// dir, of method ("" for a method the schema does not define for dir, or
// a response whose request is unknown).
type target struct{ dir, kind, method string }

// compiled is one version's schema, patched and compiled once for the
// process.
type compiled struct {
	schemas map[target]*jsonschema.Schema
	// defs names the $defs entry each method's params or result is checked
	// against, for messages.
	defs map[target]string
}

// schemaSource is one version's embedded schema and what loading it adds.
type schemaSource struct {
	raw []byte
	// url names the schema for the compiler; nothing is fetched.
	url string
	// patch changes the $defs before they are compiled: v2 gets the RFD's
	// field, v1 nothing, since the RFD extends v2 only.
	patch func(defs map[string]any) error

	once sync.Once
	c    *compiled
	err  error
}

// sources are the schemas by protocol version. Each compiles on first use
// only: a run that never meets a v1 trace never pays for v1's.
var sources = map[int]*schemaSource{
	V1: {raw: schemaV1JSON, url: "https://acpsim.invalid/acp-v1/schema.unstable.json"},
	V2: {raw: schemaJSON, url: "https://acpsim.invalid/acp-v2/schema.unstable.json", patch: addIdempotencyKey},
}

// load returns the compiled schema of a protocol version; the embedded
// copies are part of the binary, so an error here is a build defect (or a
// version with no schema), reported on every call.
func load(version int) (*compiled, error) {
	src := sources[version]
	if src == nil {
		return nil, fmt.Errorf("conform: no ACP schema for protocol version %d: expected %d or %d", version, V1, V2)
	}
	src.once.Do(func() { src.c, src.err = compile(src.raw, src.url, src.patch) })
	return src.c, src.err
}

// sides maps a method definition's x-side (who handles the method) to the
// direction its requests and notifications travel. "protocol" methods
// ($/cancel_request) go both ways. "proxy" methods are sent by a conductor
// to the proxy it runs, which is the Client side of that hop.
var sides = map[string][]string{
	"agent":    {"c2a"},
	"client":   {"a2c"},
	"protocol": {"c2a", "a2c"},
	"proxy":    {"c2a"},
}

// unions are the schema's own catch-all definitions per direction, used
// for methods the schema does not define (its Ext* members accept any
// params) and for responses whose request is unknown.
var unions = map[string]map[string]string{
	"c2a": {kindRequest: "ClientRequest", kindNotification: "ClientNotification", kindResult: "ClientResponse", kindError: "ClientResponse"},
	"a2c": {kindRequest: "AgentRequest", kindNotification: "AgentNotification", kindResult: "AgentResponse", kindError: "AgentResponse"},
}

func compile(raw []byte, url string, patch func(defs map[string]any) error) (*compiled, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("conform: schema: %v", err)
	}
	root, _ := doc.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	if defs == nil {
		return nil, fmt.Errorf("conform: schema has no $defs")
	}
	if patch != nil {
		if err := patch(defs); err != nil {
			return nil, err
		}
	}

	// Each message shape gets a definition of its own next to the
	// official ones: the JSON-RPC envelope around the method's params or
	// result definition, so errors point into the whole frame.
	c := &compiled{schemas: map[target]*jsonschema.Schema{}, defs: map[target]string{}}
	var names []string
	entry := make(map[target]string)
	add := func(t target, def map[string]any) {
		name := fmt.Sprintf("conform-%d", len(names))
		names = append(names, name)
		defs[name] = def
		entry[t] = name
	}
	jsonrpc := map[string]any{"type": "string", "enum": []any{"2.0"}}
	for name, d := range defs {
		def, _ := d.(map[string]any)
		method, _ := def["x-method"].(string)
		side, _ := def["x-side"].(string)
		if method == "" {
			continue
		}
		if _, ok := sides[side]; !ok {
			// Skipping it would check the method as an unknown one, quietly.
			return nil, fmt.Errorf("conform: schema: %s (%s) has x-side %q: expected one of agent, client, protocol, proxy", name, method, side)
		}
		ref := map[string]any{"$ref": "#/$defs/" + name}
		required := []any{"jsonrpc"}
		props := map[string]any{"jsonrpc": jsonrpc}
		var k, member string
		switch {
		case strings.HasSuffix(name, "Request"):
			k, member = kindRequest, "params"
			props["id"] = map[string]any{"$ref": "#/$defs/RequestId"}
			required = append(required, "id", "method")
		case strings.HasSuffix(name, "Notification"):
			k, member = kindNotification, "params"
			required = append(required, "method")
		case strings.HasSuffix(name, "Response"):
			k, member = kindResult, "result"
			props["id"] = map[string]any{"$ref": "#/$defs/RequestId"}
			required = append(required, "id", "result")
		default:
			continue
		}
		props[member] = ref
		if k == kindResult {
			// A response travels against its request's direction.
			for _, dir := range sides[side] {
				t := target{reverse(dir), k, method}
				add(t, map[string]any{"type": "object", "properties": props, "required": required})
				c.defs[t] = name
			}
			continue
		}
		props["method"] = map[string]any{"const": method}
		if req, _ := def["required"].([]any); len(req) > 0 {
			required = append(required, member) // no params cannot carry what is required
		}
		for _, dir := range sides[side] {
			t := target{dir, k, method}
			add(t, map[string]any{"type": "object", "properties": props, "required": required})
			c.defs[t] = name
		}
	}
	for dir, byKind := range unions {
		for k, name := range byKind {
			add(target{dir, k, ""}, map[string]any{
				"type": "object", "properties": map[string]any{"jsonrpc": jsonrpc}, "required": []any{"jsonrpc"},
				"allOf": []any{map[string]any{"$ref": "#/$defs/" + name}},
			})
			c.defs[target{dir, k, ""}] = name
		}
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("conform: schema: %v", err)
	}
	for t, name := range entry {
		s, err := comp.Compile(url + "#/$defs/" + name)
		if err != nil {
			return nil, fmt.Errorf("conform: schema for %s %s %q: %v", t.dir, t.kind, t.method, err)
		}
		c.schemas[t] = s
	}
	return c, nil
}

// addIdempotencyKey adds the RFD's field to PromptRequest, as its plan
// says: "an optional, nullable idempotencyKey ... an IdempotencyKey string
// type with a length of 1 to 255". Omitted and null mean no key.
func addIdempotencyKey(defs map[string]any) error {
	pr, _ := defs["PromptRequest"].(map[string]any)
	props, _ := pr["properties"].(map[string]any)
	if props == nil {
		return fmt.Errorf("conform: schema has no PromptRequest.properties to add idempotencyKey to")
	}
	if _, ok := props["idempotencyKey"]; ok {
		// The schema has the field now: it is the authority, and this
		// patch (and the package doc) are out of date.
		return fmt.Errorf("conform: schema already defines PromptRequest.idempotencyKey; drop the patch")
	}
	defs["IdempotencyKey"] = map[string]any{
		"description": "An opaque, case-sensitive string of 1 to 255 characters (prompt-idempotency RFD).",
		"type":        "string",
		"minLength":   json.Number("1"),
		"maxLength":   json.Number(fmt.Sprint(MaxKeyLength)),
	}
	props["idempotencyKey"] = map[string]any{
		"anyOf": []any{map[string]any{"$ref": "#/$defs/IdempotencyKey"}, map[string]any{"type": "null"}},
	}
	return nil
}

func reverse(dir string) string {
	if dir == "c2a" {
		return "a2c"
	}
	return "c2a"
}
