// This file holds the schema half of the check: validating a message against
// its compiled schema and choosing, from the validator's tree of errors, the
// one to report.

package conform

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

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
