package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// frameCase is one entry of testdata/frames.json: a frame (as JSON, or as
// raw text when it is not JSON), the direction it is sent in, the method a
// response answers, and the problems expected as "RULE POINTER".
type frameCase struct {
	Name   string          `json:"name"`
	Dir    string          `json:"dir"`
	Method string          `json:"method"`
	Frame  json.RawMessage `json:"frame"`
	Text   string          `json:"text"`
	Want   []string        `json:"want"`
}

func TestFramesFromFixtures(t *testing.T) {
	b, err := os.ReadFile("testdata/frames.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []frameCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	good := 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			frame := []byte(c.Text)
			if c.Frame != nil {
				var buf bytes.Buffer
				json.Compact(&buf, c.Frame)
				frame = buf.Bytes()
			}
			ps := Frame(c.Dir, frame, c.Method)
			got := []string{}
			for _, p := range ps {
				got = append(got, p.Rule+" "+p.Pointer)
				if p.Msg == "" || p.Dir != c.Dir {
					t.Errorf("problem without a message or with the wrong dir: %+v", p)
				}
			}
			if !slices.Equal(got, c.Want) {
				t.Errorf("got %q, want %q\n%s", got, c.Want, strings.Join(render(ps), "\n"))
			}
		})
		if len(c.Want) == 0 {
			good++
		}
	}
	if good == 0 || good == len(cases) {
		t.Fatalf("fixtures need both good (%d) and bad (%d) frames", good, len(cases)-good)
	}
}

func render(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// The messages say what was expected, not only where.
func TestSchemaProblemsSayWhatWasExpected(t *testing.T) {
	for _, tc := range []struct {
		dir, method, frame string
		want               []string
	}{
		{"c2a", "", `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":""}}`,
			[]string{"session/prompt request (params: PromptRequest)", "minLength", "want 1"}},
		{"a2c", "session/prompt", `{"jsonrpc":"2.0","id":4,"result":{}}`,
			[]string{"response to session/prompt (result: PromptResponse)", "messageId"}},
		{"a2c", "", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message"}}}`,
			[]string{"session/update notification", "messageId"}},
	} {
		ps := Frame(tc.dir, []byte(tc.frame), tc.method)
		if len(ps) != 1 {
			t.Fatalf("%s: got %q, want one problem", tc.frame, render(ps))
		}
		for _, w := range tc.want {
			if !strings.Contains(ps[0].Msg, w) {
				t.Errorf("%s: message %q lacks %q", tc.frame, ps[0].Msg, w)
			}
		}
	}
}

func send(link, dir, frame string) traces.Event {
	return traces.Event{Kind: traces.KindSend, Link: link, Dir: dir, Frame: frame}
}

// trace numbers the events as a trace would.
func trace(events ...traces.Event) []traces.Event {
	for i := range events {
		events[i].Seq = int64(i + 1)
		events[i].T = int64(i)
		if events[i].From == "" {
			events[i].From, events[i].To = "c1", "a1"
		}
	}
	return events
}

const (
	initC2A   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"0"}}}`
	initA2C   = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2,"info":{"name":"a","version":"0"}}}`
	promptC2A = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":"k"}}`
	closeC2A  = `{"jsonrpc":"2.0","id":3,"method":"session/close","params":{"sessionId":"s"}}`
	emptyA2C2 = `{"jsonrpc":"2.0","id":2,"result":{}}`
	emptyA2C3 = `{"jsonrpc":"2.0","id":3,"result":{}}`
)

// Each rule fires on a crafted trace, with the event's seq, link and dir:
// a checker that cannot fail is a defect.
func TestEveryRuleFiresOnACraftedTrace(t *testing.T) {
	events := trace(
		send("L1", "c2a", initC2A),
		send("L1", "a2c", initA2C),
		send("L1", "c2a", promptC2A),
		send("L1", "c2a", closeC2A),
		send("L1", "a2c", emptyA2C3), // answers session/close: {} is its result
		send("L1", "a2c", emptyA2C2), // answers session/prompt: messageId missing
		send("L1", "c2a", `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"idempotency_key":"k"}}`),
		send("L1", "c2a", `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"_meta":{"idempotencyKey":"k"}}}`),
		send("L1", "c2a", `{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"/w","idempotencyKey":"k"}}`),
		send("L1", "a2c", `{"jsonrpc":"2.0","id":5,"result":{"messageId":"m","idempotencyKey":"k"}}`),
		send("L1", "c2a", `{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}`), // id 2 again on L1
		send("L1", "c2a", `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":""}}`),
		send("L1", "c2a", `{"jsonrpc":"2.0",`),
		send("L1", "c2a", `{"jsonrpc":"2.0"}`),
		traces.Event{Kind: traces.KindDeliver, Link: "L1", Dir: "c2a", Frame: `{"jsonrpc":"2.0"}`}, // only sends are checked
	)
	want := []string{
		"seq 6 link L1 dir a2c: schema /result",
		"seq 7 link L1 dir c2a: key-spelling /params/idempotency_key",
		"seq 8 link L1 dir c2a: key-in-meta /params/_meta/idempotencyKey",
		"seq 9 link L1 dir c2a: key-wrong-method /params/idempotencyKey",
		"seq 10 link L1 dir a2c: key-misplaced /result/idempotencyKey",
		"seq 11 link L1 dir c2a: id-reused /id",
		"seq 12 link L1 dir c2a: schema /params/idempotencyKey",
		"seq 13 link L1 dir c2a: json ",
		"seq 14 link L1 dir c2a: jsonrpc ",
	}
	ps := Trace(events)
	var got []string
	rules := map[string]bool{}
	for _, p := range ps {
		got = append(got, strings.Join([]string{"seq", strconv.FormatInt(p.Seq, 10), "link", p.Link, "dir", p.Dir + ":", p.Rule, p.Pointer}, " "))
		rules[p.Rule] = true
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s\nproblems:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), strings.Join(render(ps), "\n"))
	}
	for _, r := range []string{RuleJSON, RuleJSONRPC, RuleSchema, RuleKeySpelling, RuleKeyInMeta, RuleKeyWrongMethod, RuleKeyMisplaced, RuleIDReused} {
		if !rules[r] {
			t.Errorf("rule %s never fired", r)
		}
	}
	if s := ps[5].String(); !strings.Contains(s, "id 2 was already used") || !strings.Contains(s, "seq 3, session/prompt") {
		t.Errorf("id-reused message does not name the first use: %s", s)
	}
}

// Ids are scoped to a link and a direction: the same id on another link,
// or from the other side, is not a reuse; a response pairs only with a
// request of its own link.
func TestIDsAreScopedToLinkAndDirection(t *testing.T) {
	events := trace(
		send("L1", "c2a", promptC2A),
		send("L2", "c2a", promptC2A), // same id, other link
		send("L1", "a2c", `{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s","title":"Run it?","options":[{"optionId":"o","name":"Allow","kind":"allow_once"}]}}`), // the Agent's own id 2
		send("L2", "a2c", `{"jsonrpc":"2.0","id":2,"result":{"messageId":"m"}}`),
		send("L3", "a2c", emptyA2C2), // L3 saw no request: checked against the union of results
	)
	if ps := Trace(events); len(ps) != 0 {
		t.Fatalf("got problems:\n%s", strings.Join(render(ps), "\n"))
	}
}

// The embedded schema is the SDK's file, byte for byte, as acpsim's other
// copy of it is; the RFD's field is added in code, not in the file.
func TestEmbeddedSchemaIsTheSDKs(t *testing.T) {
	other, err := os.ReadFile("../../actors/acp/testdata/spec/schema.unstable.json")
	if err != nil {
		t.Skip("acp's copy of the schema is not here:", err)
	}
	if !bytes.Equal(schemaJSON, other) {
		t.Fatal("conform/schema.unstable.json differs from actors/acp/testdata/spec/schema.unstable.json: update them together")
	}
	if bytes.Contains(schemaJSON, []byte(`"idempotencyKey"`)) {
		t.Fatal("the schema defines idempotencyKey itself now: drop addIdempotencyKey")
	}
}

func TestUnknownDirectionIsAProblem(t *testing.T) {
	ps := Frame("sideways", []byte(initC2A), "")
	if len(ps) != 1 || ps[0].Rule != RuleJSONRPC {
		t.Fatalf("got %q", render(ps))
	}
}

// A frame noted as a probe is fine when its key is malformed and the Agent
// refused it with -32602; the same malformed frame without the note is a
// schema problem, a probe the Agent accepted or answered otherwise is a probe
// problem, and so is a probe whose key is well-formed.
func TestProbesMustBeMalformedAndRefused(t *testing.T) {
	prompt := func(id int, key string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"acpsim probe: this key is malformed"}],"idempotencyKey":%s}}`, id, key)
	}
	probe := func(id int, key string) traces.Event {
		e := send("observer:a1#3", "c2a", prompt(id, key))
		e.Note = traces.NoteProbe
		return e
	}
	answer := func(body string) traces.Event { return send("observer:a1#3", "a2c", body) }
	refused := func(id int) traces.Event {
		return answer(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"invalid params"}}`, id))
	}
	for _, tc := range []struct {
		name   string
		events []traces.Event
		want   []string // rules, in order
	}{
		{"malformed and refused", []traces.Event{
			probe(5, `""`), probe(6, `5`), probe(7, `{"key":"k"}`), refused(5), refused(6), refused(7)}, nil},
		{"never answered: bad-reply's, not lint's", []traces.Event{probe(5, `""`)}, nil},
		{"not noted", []traces.Event{send("c1:a1#1", "c2a", prompt(5, `""`)), refused(5)}, []string{RuleSchema}},
		{"accepted", []traces.Event{probe(5, `5`), answer(`{"jsonrpc":"2.0","id":5,"result":{"messageId":"m1","stopReason":"end_turn"}}`)}, []string{RuleProbe}},
		{"refused with another code", []traces.Event{probe(5, `5`), answer(`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"internal"}}`)}, []string{RuleProbe}},
		{"well-formed", []traces.Event{probe(5, `"k1"`), refused(5)}, []string{RuleProbe}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := Trace(trace(tc.events...))
			var rules []string
			for _, p := range ps {
				rules = append(rules, p.Rule)
			}
			if !slices.Equal(rules, tc.want) {
				t.Fatalf("rules %q, want %q:\n%s", rules, tc.want, render(ps))
			}
		})
	}
}
