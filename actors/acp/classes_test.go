package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
)

// specDir holds the v2 schemas (npm @agentclientprotocol/sdk 2.4.0,
// Apache-2.0) and the draft RFD, copied into the repository so the test runs
// on any clone; testdata/spec/README.md says where they come from.
const specDir = "testdata/spec"

// schemaMethod is what the schemas say about one x-method: which message
// kinds carry it, handled by which side, and in which schema files.
type schemaMethod struct {
	kinds    map[string]bool // "Request/agent", "Notification/client", …
	inStable bool
}

// readSchemas collects every x-method of schema.json and schema.unstable.json.
// A missing or unreadable file fails the test: the table is only checked
// against the schemas it claims to cover, never against nothing.
func readSchemas(t *testing.T) map[string]*schemaMethod {
	t.Helper()
	out := map[string]*schemaMethod{}
	for _, file := range []string{"schema.json", "schema.unstable.json"} {
		path := filepath.Join(specDir, file)
		b, err := os.ReadFile(path)
		if err != nil {
			abs, _ := filepath.Abs(path)
			t.Fatalf("the retry-class table is checked against the v2 schemas, and %s cannot be read (%v); expected it at %s", file, err, abs)
		}
		var doc struct {
			Defs map[string]struct {
				Method string `json:"x-method"`
				Side   string `json:"x-side"`
			} `json:"$defs"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		n := 0
		for name, def := range doc.Defs {
			if def.Method == "" {
				continue
			}
			kind := ""
			for _, k := range []string{"Request", "Response", "Notification"} {
				if strings.HasSuffix(name, k) {
					kind = k
				}
			}
			if kind == "" {
				t.Fatalf("%s: $defs/%s has x-method %q but is neither a Request, a Response nor a Notification", file, name, def.Method)
			}
			if kind == "Response" {
				continue // a response has its request's method and side
			}
			m := out[def.Method]
			if m == nil {
				m = &schemaMethod{kinds: map[string]bool{}}
				out[def.Method] = m
			}
			m.kinds[kind+"/"+def.Side] = true
			m.inStable = m.inStable || file == "schema.json"
			n++
		}
		if n == 0 {
			t.Fatalf("%s: no x-method found; the schema's layout changed", path)
		}
	}
	return out
}

// wantDirection is the direction the schemas' x-side values give: x-side
// names the side that handles the message.
func wantDirection(kinds map[string]bool) acp.Direction {
	keys := make([]string, 0, len(kinds))
	for k := range kinds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	switch strings.Join(keys, " ") {
	case "Request/agent":
		return acp.ClientToAgent
	case "Request/client":
		return acp.AgentToClient
	case "Notification/agent":
		return acp.ClientNotification
	case "Notification/client":
		return acp.AgentNotification
	case "Notification/protocol":
		return acp.EitherNotification
	case "Request/proxy":
		return acp.ConductorToProxy
	case "Notification/proxy Request/proxy":
		return acp.ProxyEnvelope
	case "Notification/agent Request/client":
		return acp.MCPTunnel
	}
	return acp.Direction("unknown: " + strings.Join(keys, " "))
}

func TestEveryMethodOfBothSchemasHasItsRows(t *testing.T) {
	schema := readSchemas(t)
	rows := map[string][]acp.MethodClass{}
	for _, c := range acp.Classes() {
		rows[c.Method] = append(rows[c.Method], c)
	}
	for method := range schema {
		want := 1
		if method == acp.MethodSessionPrompt {
			want = 2 // without a key and with one
		}
		if got := len(rows[method]); got != want {
			t.Errorf("%s: %d row(s), want %d", method, got, want)
		}
	}
	for method, rs := range rows {
		s := schema[method]
		if s == nil {
			t.Errorf("%s: a row for a method in neither schema", method)
			continue
		}
		for _, c := range rs {
			if want := wantDirection(s.kinds); c.Direction != want {
				t.Errorf("%s: direction %q, the schemas' x-side says %q", c.Name(), c.Direction, want)
			}
			if c.Unstable == s.inStable {
				t.Errorf("%s: Unstable=%v, but in schema.json=%v", c.Name(), c.Unstable, s.inStable)
			}
		}
	}
	if p := rows[acp.MethodSessionPrompt]; len(p) == 2 && p[0].Keyed == p[1].Keyed {
		t.Errorf("session/prompt: both rows have Keyed=%v, want one of each", p[0].Keyed)
	}
}

func TestEveryRowIsComplete(t *testing.T) {
	rfd, err := os.ReadFile(filepath.Join(specDir, "rfd-prompt-idempotency.txt"))
	if err != nil {
		t.Fatalf("rows sourced to the RFD are checked against its text, which cannot be read: %v", err)
	}
	for _, c := range acp.Classes() {
		if c.Class.Meaning() == "" {
			t.Errorf("%s: unknown class %q (known: %v)", c.Name(), c.Class, acp.RetryClasses())
		}
		if c.Source != acp.SourceRFD && c.Source != acp.SourceAcpsim {
			t.Errorf("%s: unknown source %q", c.Name(), c.Source)
		}
		r := strings.TrimSpace(c.Reason)
		if r == "" || !strings.HasSuffix(r, ".") || strings.Contains(strings.TrimSuffix(r, "."), ". ") {
			t.Errorf("%s: reason %q is not one sentence", c.Name(), c.Reason)
		}
		if c.Source == acp.SourceRFD && !strings.Contains(string(rfd), c.Method) {
			t.Errorf("%s: sourced to the RFD, whose text never names it", c.Name())
		}
		// Nothing answers a notification, so there is no lost response to
		// resend after.
		if strings.Contains(string(c.Direction), "notification") && !strings.Contains(string(c.Direction), "request") && c.Class != acp.ClassNever {
			t.Errorf("%s: a notification with class %s, want never", c.Name(), c.Class)
		}
	}
}

// The RFD's own findings: one keyed method, two duplicating ones besides the
// unkeyed prompt, and the three repeat behaviours it names.
func TestTheRFDsAudit(t *testing.T) {
	for _, tc := range []struct {
		method string
		keyed  bool
		class  acp.RetryClass
	}{
		{"session/prompt", true, acp.ClassKeyed},
		{"session/prompt", false, acp.ClassDuplicating},
		{"session/new", false, acp.ClassDuplicating},
		{"session/fork", false, acp.ClassDuplicating},
		{"session/close", false, acp.ClassAsIs},
		{"session/delete", false, acp.ClassAsIs},
		{"session/resume", false, acp.ClassAsIs},
	} {
		c, ok := acp.ClassOf(tc.method, tc.keyed)
		if !ok || c.Class != tc.class || c.Source != acp.SourceRFD || c.Keyed != tc.keyed {
			t.Errorf("ClassOf(%q, %v) = %+v, %v; want class %s from the RFD", tc.method, tc.keyed, c, ok, tc.class)
		}
	}
	keyed := 0
	for _, c := range acp.Classes() {
		if c.Class == acp.ClassKeyed {
			keyed++
		}
	}
	if keyed != 1 {
		t.Errorf("%d keyed rows; the RFD's audit finds exactly one keyed method", keyed)
	}
}

func TestClassOf(t *testing.T) {
	// No other method takes a key: a keyed lookup gets its only row.
	if c, ok := acp.ClassOf("session/list", true); !ok || c.Class != acp.ClassAsIs || c.Keyed {
		t.Errorf("ClassOf(session/list, keyed) = %+v, %v", c, ok)
	}
	if _, ok := acp.ClassOf("session/load", false); ok {
		t.Error("session/load (removed in v2) has a class")
	}
	all := acp.Classes()
	if !sort.SliceIsSorted(all, func(i, j int) bool { return all[i].Method < all[j].Method }) {
		t.Error("Classes() is not sorted by method")
	}
	all[0].Class = "mutated"
	if acp.Classes()[0].Class == "mutated" {
		t.Error("Classes() shares its backing array with the table")
	}
	names := map[string]bool{}
	for _, c := range acp.Classes() {
		if names[c.Name()] {
			t.Errorf("two rows named %q", c.Name())
		}
		names[c.Name()] = true
	}
}
