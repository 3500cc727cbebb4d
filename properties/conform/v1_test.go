package conform

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// v1Fixture is a hand-written trace of a v1 Client and Agent: initialize,
// session/new, a prompt answered with chunks and a stop reason, then on a
// new process session/load replaying the conversation and answering {}.
const v1Fixture = "testdata/v1.ndjson"

// schemaV1SHA256 pins the embedded v1 schema, so a change to it is seen on
// any clone, with or without the workspace's copy of the SDK's file.
const schemaV1SHA256 = "ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189"

// The embedded v1 schema is the SDK's file, byte for byte, and it is the v1
// one: v1's field names and methods, and no idempotencyKey (the RFD is not
// added to it, so its absence is the SDK's).
func TestEmbeddedV1SchemaIsTheSDKs(t *testing.T) {
	sum := sha256.Sum256(schemaV1JSON)
	if got := hex.EncodeToString(sum[:]); got != schemaV1SHA256 {
		t.Errorf("schema.v1.unstable.json has sha256 %s, want %s (the file of @agentclientprotocol/sdk 2.4.0): it was edited, or updated without this pin", got, schemaV1SHA256)
	}
	for _, want := range []string{`"x-method": "session/load"`, `"x-method": "session/set_mode"`, `"x-method": "fs/read_text_file"`, `"clientCapabilities"`, `"agentInfo"`} {
		if !bytes.Contains(schemaV1JSON, []byte(want)) {
			t.Errorf("the v1 schema lacks %s: is it v1's?", want)
		}
	}
	if bytes.Contains(schemaV1JSON, []byte(`"idempotencyKey"`)) {
		t.Error("the v1 schema defines idempotencyKey: the package doc says v1 has no key")
	}
	spec, err := os.ReadFile("../../../shared/spec/acp-v1/schema.unstable.json")
	if err != nil {
		t.Skip("the workspace's copy of the v1 schema is not here:", err)
	}
	if !bytes.Equal(schemaV1JSON, spec) {
		t.Fatal("conform/schema.v1.unstable.json differs from shared/spec/acp-v1/schema.unstable.json: copy it again, unchanged, and update the pin")
	}
}

func readV1Fixture(t *testing.T) []traces.Event {
	t.Helper()
	log, err := traces.ReadFile(v1Fixture)
	if err != nil {
		t.Fatal(err)
	}
	return log.Events
}

// The fixture is v1 by its initialize, lints clean against the v1 schema,
// and is full of problems against v2's: the version chosen matters.
func TestV1TraceConformsToV1AndNotToV2(t *testing.T) {
	events := readV1Fixture(t)
	n := Negotiated(events)
	if n.Version != V1 || n.Seq != 4 || n.Why != "the Agent answered initialize with protocolVersion 1" {
		t.Fatalf("Negotiated = %+v, want v1 from the Agent's answer at seq 4", n)
	}
	// The fixture shows what it claims to, so lint clean means something.
	var frames []string
	for _, e := range events {
		if e.Kind == traces.KindSend {
			frames = append(frames, e.Frame)
		}
	}
	all := strings.Join(frames, "\n")
	for _, want := range []string{`"method":"session/new"`, `"mcpServers":[]`, `"method":"session/load"`, `"sessionUpdate":"user_message_chunk"`, `"sessionUpdate":"agent_message_chunk"`, `{"stopReason":"end_turn"}`, `"loadSession":true`, `"clientInfo"`, `"agentInfo"`} {
		if !strings.Contains(all, want) {
			t.Errorf("the fixture has no %s", want)
		}
	}

	if ps := TraceVersion(V1, events); len(ps) != 0 {
		t.Fatalf("as v1:\n%s", strings.Join(render(ps), "\n"))
	}
	ps := TraceVersion(V2, events)
	got := map[string]bool{}
	for _, p := range ps {
		got[p.Rule+" "+p.Pointer+" "+p.Msg] = true
	}
	for _, want := range []string{
		"schema /params initialize request (params: InitializeRequest): missing property 'info'",
		"schema /result response to session/prompt (result: PromptResponse): missing property 'messageId'",
		"schema /params/update session/update notification (params: UpdateSessionNotification): missing property 'messageId'",
	} {
		if !got[want] {
			t.Errorf("as v2, no %q in:\n%s", want, strings.Join(render(ps), "\n"))
		}
	}
	if !slices.Equal(ps, Trace(events)) {
		t.Error("Trace and TraceVersion(V2) disagree")
	}
}

// Broken v1 frames are problems under v1, each at its event, naming the
// field and what was expected.
func TestBrokenV1TraceFailsAsV1(t *testing.T) {
	events := readV1Fixture(t)
	edit := func(seq int64, from, to string) {
		t.Helper()
		e := &events[seq-1]
		if e.Seq != seq || !strings.Contains(e.Frame, from) {
			t.Fatalf("seq %d is not the frame with %s: %s", seq, from, e.Frame)
		}
		e.Frame = strings.Replace(e.Frame, from, to, 1)
	}
	edit(5, `,"mcpServers":[]`, ``)                                                  // session/new
	edit(10, `{"stopReason":"end_turn"}`, `{}`)                                      // session/prompt's answer
	edit(19, `"result":{}`, `"result":null`)                                         // session/load's answer
	edit(17, `"user_message_chunk"`, `"user_message"`)                               // v2's name for it
	edit(16, `"sessionId":"sess-1",`, `"sessionId":"sess-1","idempotency_key":"k",`) // no key rule in v1
	want := []string{
		"seq 5 link c1:a1#1 dir c2a: schema: session/new request (params: NewSessionRequest): missing property 'mcpServers' (at /params)",
		"seq 10 link c1:a1#1 dir a2c: schema: response to session/prompt (result: PromptResponse): missing property 'stopReason' (at /result)",
		"seq 17 link c1:a1#2 dir a2c: schema: session/update notification (params: SessionNotification): ",
		"seq 19 link c1:a1#2 dir a2c: schema: response to session/load (result: LoadSessionResponse): got null, want object (at /result)",
	}
	ps := TraceVersion(V1, events)
	got := render(ps)
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], want[i])
		}
	}
	// The same misspelt key is a problem where the RFD applies.
	var spelling bool
	for _, p := range TraceVersion(V2, events) {
		spelling = spelling || p.Rule == RuleKeySpelling
	}
	if !spelling {
		t.Error("as v2, the misspelt key is not reported")
	}
}

// v1's own methods are checked against their own definitions, in their
// direction; v2 defines none of them, so it checks them only as envelopes.
func TestV1MethodsAreCheckedAgainstV1Definitions(t *testing.T) {
	for _, tc := range []struct {
		dir, method, frame, want string
	}{
		{"c2a", "", `{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{}}`, "authenticate request (params: AuthenticateRequest): missing property 'methodId'"},
		{"c2a", "", `{"jsonrpc":"2.0","id":1,"method":"session/set_mode","params":{"sessionId":"s"}}`, "session/set_mode request (params: SetSessionModeRequest): missing property 'modeId'"},
		{"c2a", "", `{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s","cwd":"/w"}}`, "session/load request (params: LoadSessionRequest): missing property 'mcpServers'"},
		{"a2c", "", `{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s"}}`, "fs/read_text_file request (params: ReadTextFileRequest): missing property 'path'"},
		{"a2c", "", `{"jsonrpc":"2.0","id":1,"method":"terminal/create","params":{"sessionId":"s"}}`, "terminal/create request (params: CreateTerminalRequest): missing property 'command'"},
		{"c2a", "terminal/output", `{"jsonrpc":"2.0","id":1,"result":{}}`, "response to terminal/output (result: TerminalOutputResponse): missing properties 'output', 'truncated'"},
	} {
		ps := FrameVersion(V1, tc.dir, []byte(tc.frame), tc.method)
		if len(ps) != 1 || !strings.Contains(ps[0].Msg, tc.want) {
			t.Errorf("%s as v1: got %q, want one problem %q", tc.frame, render(ps), tc.want)
		}
		if ps := FrameVersion(V2, tc.dir, []byte(tc.frame), tc.method); len(ps) != 0 {
			t.Errorf("%s as v2: got %q, want none (v2 does not define the method)", tc.frame, render(ps))
		}
	}
	// And the other way: v2's answer to a prompt is not v1's.
	ps := FrameVersion(V1, "a2c", []byte(`{"jsonrpc":"2.0","id":1,"result":{"messageId":"m"}}`), "session/prompt")
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, "missing property 'stopReason'") {
		t.Errorf("a v2 prompt answer as v1: got %q", render(ps))
	}
}

// In v1 a frame noted as a probe is an ordinary frame: there is no key to
// malform, and its answer need not be -32602.
func TestV1HasNoKeyRulesOrProbes(t *testing.T) {
	prompt := send("c1:a1#1", "c2a", `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"_meta":{"idempotencyKey":"k"}}}`)
	prompt.Note = traces.NoteProbe
	answer := send("c1:a1#1", "a2c", `{"jsonrpc":"2.0","id":5,"result":{"stopReason":"end_turn","messageId":"m"}}`)
	if ps := TraceVersion(V1, trace(prompt, answer)); len(ps) != 0 {
		t.Errorf("as v1: %q", render(ps))
	}
	var rules []string
	for _, p := range TraceVersion(V2, trace(prompt, answer)) {
		rules = append(rules, p.Rule)
	}
	if !slices.Contains(rules, RuleKeyInMeta) || !slices.Contains(rules, RuleProbe) {
		t.Errorf("as v2: rules %q, want key-in-meta and probe", rules)
	}
	// JSON-RPC's own rules hold in v1 too.
	reused := trace(send("L", "c2a", `{"jsonrpc":"2.0","id":1,"method":"session/cancel","params":{"sessionId":"s"}}`),
		send("L", "c2a", `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`),
		send("L", "c2a", `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`),
		send("L", "c2a", `{"jsonrpc":"2.0"}`))
	rules = nil
	for _, p := range TraceVersion(V1, reused) {
		rules = append(rules, p.Rule)
	}
	if !slices.Equal(rules, []string{RuleIDReused, RuleJSONRPC}) {
		t.Errorf("as v1: rules %q, want id-reused and jsonrpc", rules)
	}
}

func TestUnknownVersionIsAProblem(t *testing.T) {
	ps := FrameVersion(3, "c2a", []byte(initC2A), "")
	if len(ps) != 1 || ps[0].Rule != RuleSchema || !strings.Contains(ps[0].Msg, "no ACP schema for protocol version 3: expected 1 or 2") {
		t.Fatalf("got %q", render(ps))
	}
}

// The Agent's answer decides; with none, the Client's request speaks for
// it; with neither, v2. Only an answer to an initialize of its own link
// counts.
func TestNegotiated(t *testing.T) {
	const (
		askV1    = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
		answerV1 = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`
		answerV2 = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"a","version":"0"}}}`
	)
	for _, tc := range []struct {
		name    string
		events  []traces.Event
		version int
		why     string
		seq     int64
	}{
		{"nothing", trace(send("L", "c2a", promptC2A)), V2, "no initialize in the trace", 0},
		{"v2 both ways", trace(send("L", "c2a", initC2A), send("L", "a2c", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2}}`)), V2, "the Agent answered initialize with protocolVersion 2", 2},
		{"v1 both ways", trace(send("L", "c2a", askV1), send("L", "a2c", answerV1)), V1, "the Agent answered initialize with protocolVersion 1", 2},
		{"v1 field names", trace(send("L", "c2a", askV1), send("L", "a2c", `{"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":{}}}`)), V1,
			`the Agent answered initialize with "agentCapabilities" and no "capabilities" or "info" (v1 field names)`, 2},
		{"the Agent decides", trace(send("L", "c2a", askV1), send("L", "a2c", answerV2)), V2, "the Agent answered initialize with protocolVersion 2", 2},
		{"the first answer decides", trace(send("L", "c2a", initC2A), send("L", "a2c", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2}}`), send("M", "c2a", askV1), send("M", "a2c", answerV1)), V2,
			"the Agent answered initialize with protocolVersion 2", 2},
		{"no answer", trace(send("L", "c2a", askV1)), V1, "the Client asked initialize with protocolVersion 1, and no answer to it is in the trace", 1},
		{"a refusal is no answer", trace(send("L", "c2a", askV1), send("L", "a2c", `{"jsonrpc":"2.0","id":0,"error":{"code":-32603,"message":"no"}}`)), V1,
			"the Client asked initialize with protocolVersion 1, and no answer to it is in the trace", 1},
		{"an answer on another link", trace(send("L", "c2a", initC2A), send("M", "a2c", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`)), V2,
			"the Client asked initialize with protocolVersion 2, and no answer to it is in the trace", 1},
		{"in a batch", trace(send("L", "c2a", "["+askV1+"]"), send("L", "a2c", "["+answerV1+"]")), V1, "the Agent answered initialize with protocolVersion 1", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := Negotiated(tc.events)
			if n != (Negotiation{Version: tc.version, Why: tc.why, Seq: tc.seq}) {
				t.Errorf("got %+v, want {%d %q %d}", n, tc.version, tc.why, tc.seq)
			}
		})
	}
}
