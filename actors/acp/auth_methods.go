package acp

import (
	stdjson "encoding/json"
	"strings"
)

// AuthMethodsOf is the authMethods of an initialize result, as encoding/json
// reads raw into an InitializeResult: none when raw does not decode. A
// result that cannot name them is not decoded: with no escape and no byte
// beyond ASCII, encoding/json matches a member to the field only by an
// ASCII case fold of "authMethods", so a result without one has none. The
// decode was a tenth of a Client's work on every connection (issue 33).
func AuthMethodsOf(raw []byte) []AuthMethod {
	if !mayName(raw, "authmethods") {
		return nil
	}
	var res InitializeResult
	if stdjson.Unmarshal(raw, &res) != nil {
		return nil
	}
	return res.AuthMethods
}

// mayName reports whether JSON text b may hold a member that encoding/json
// matches to a field named lower (ASCII, lower case): it does unless b is
// plain ASCII with no escape and no ASCII case fold of lower.
func mayName(b []byte, lower string) bool {
	for _, c := range b {
		if c == '\\' || c >= 0x80 {
			return true
		}
	}
	// An ASCII lower-casing keeps every byte's place: a fold of lower in
	// b is lower in the lower-cased b.
	return strings.Contains(strings.ToLower(string(b)), lower)
}
