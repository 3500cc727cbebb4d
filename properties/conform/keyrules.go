// This file holds the lint half's idempotencyKey rules, which the schema cannot
// express: the key only directly in a session/prompt request's params, never
// in _meta, never misspelled.

package conform

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/traces"
)

// keyField is the RFD's member name.
const keyField = "idempotencyKey"

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
