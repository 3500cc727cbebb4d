package acp

import (
	stdjson "encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// AuthMethodsOf reads what encoding/json reads, for results with and
// without the member, its name in any case, escaped, or folded from
// beyond ASCII.
func TestAuthMethodsOfReadsAsEncodingJSON(t *testing.T) {
	names := []string{"authMethods", "AUTHMETHODS", "authmethods", `auth\u004dethods`, "authMethodſ", "authMethod", "auth_methods", "methods"}
	rapid.Check(t, func(t *rapid.T) {
		raw := `{"protocolVersion":` + rapid.SampledFrom([]string{"2", "1", "2", "1", `"2"`}).Draw(t, "version") +
			`,"info":{"name":"` + rapid.SampledFrom([]string{"acpsim-reference", "é", `a\"b`}).Draw(t, "name") + `","version":"0"},"capabilities":{}`
		if rapid.Bool().Draw(t, "member") {
			raw += `,"` + rapid.SampledFrom(names).Draw(t, "as") + `":` +
				rapid.SampledFrom([]string{`[{"type":"agent","methodId":"token","name":"Token"}]`, `[{"type":"agent","methodId":"token","name":"Token"}]`, `[]`, `null`, `7`}).Draw(t, "methods")
		}
		raw += "}"
		var res InitializeResult
		var want []AuthMethod
		if stdjson.Unmarshal([]byte(raw), &res) == nil {
			want = res.AuthMethods
		}
		if got := AuthMethodsOf([]byte(raw)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: AuthMethodsOf %v, encoding/json %v", raw, got, want)
		}
	})
}

// The reference Agent's result is not decoded: the property above would
// hold of a function that always decodes.
func TestAuthMethodsOfSkipsAResultWithoutThem(t *testing.T) {
	raw := Result(NumID(1), InitializeResult{ProtocolVersion: ProtocolVersion, Info: Implementation{Name: "acpsim-reference", Version: "0"}})
	env, ok := ScanEnvelope(string(raw))
	if !ok || mayName([]byte(env.Result), "authmethods") {
		t.Fatalf("the reference Agent's initialize result %s would be decoded", raw)
	}
}

// encoding/json finds the member escaped, and folded from beyond ASCII:
// so does AuthMethodsOf.
func TestAuthMethodsOfFindsWhatEncodingJSONFinds(t *testing.T) {
	for _, name := range []string{"authMethods", "AuthMethods", `auth\u004dethods`, "authMethodſ"} {
		raw := `{"protocolVersion":2,"` + name + `":[{"type":"agent","methodId":"token","name":"Token"}]}`
		if got := AuthMethodsOf([]byte(raw)); len(got) != 1 || got[0].MethodID != "token" {
			t.Errorf("%s: AuthMethodsOf %v, want the token method", raw, got)
		}
	}
}
