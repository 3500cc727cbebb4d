package clientcheck

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/properties"
)

// wire builds the frames of a Client's connections: each conn opens with
// initialize and either session/new (conn 1) or session/resume of "s1",
// then sends the prompts given, keyed as given ("" for none).
type wire struct {
	frames []Frame
	seq    int64
	last   int64 // the id of the last prompt sent
}

func (w *wire) add(conn int, dir, frame string) {
	w.seq++
	w.frames = append(w.frames, Frame{Conn: conn, Dir: dir, Bytes: []byte(frame), Seq: w.seq})
}

func (w *wire) open(conn int) *wire {
	if conn == 1 {
		w.add(conn, "c2a", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
		w.add(conn, "a2c", `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`)
		return w
	}
	w.add(conn, "c2a", `{"jsonrpc":"2.0","id":1,"method":"session/resume","params":{"sessionId":"s1","cwd":"/"}}`)
	return w
}

func (w *wire) prompt(conn int, text, key string) *wire {
	k := ""
	if key != "" {
		k = fmt.Sprintf(`,"idempotencyKey":%s`, key)
	}
	w.last = w.seq + 10
	w.add(conn, "c2a", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":%q}]%s}}`, w.last, text, k))
	return w
}

// cancel sends $/cancel_request for the last prompt on conn.
func (w *wire) cancel(conn int) *wire {
	w.add(conn, "c2a", fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":%d}}`, w.last))
	return w
}

// answer answers the last prompt on conn: with messageId id, or with error
// code when id is "".
func (w *wire) answer(conn int, id string, code int) *wire {
	if id != "" {
		w.add(conn, "a2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"messageId":%q}}`, w.last, id))
		return w
	}
	w.add(conn, "a2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":%d,"message":"refused"}}`, w.last, code))
	return w
}

func kinds(as []Anomaly) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Kind)
	}
	return out
}

func msg(id, text string) Message { return Message{Session: "s1", ID: id, Text: text} }

func TestCheckNamesEachBrokenRule(t *testing.T) {
	subs := []Submission{{"s1", "hello"}}
	cases := []struct {
		name string
		h    History
		want []string
	}{
		{"a keyed retry after a crash, inserted once", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", `"k1"`).frames,
			Transcript: []Message{msg("m1", "hello")}}, nil},
		{"an unkeyed resend inserted twice", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m2"}},
			Frames:     new(wire).open(1).prompt(1, "hello", "").open(2).prompt(2, "hello", "").frames,
			Transcript: []Message{msg("m1", "hello"), msg("m2", "hello")}}, []string{properties.Duplicate, UnkeyedResend}},
		{"a keyed submission resent without its key, inserted once", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", "").frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{UnkeyedResend}},
		{"a keyed submission resent with null for its key", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", "null").frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{UnkeyedResend}},
		{"two submissions of one text, one keyed and one not, each sent once", History{Subs: []Submission{{"s1", "hello"}, {"s2", "hello"}},
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}, {ID: "s2", Outcome: Inserted, MessageID: "m2"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).prompt(1, "hello", "").frames,
			Transcript: []Message{msg("m1", "hello"), msg("m2", "hello")}}, nil},
		{"a new key on the retry", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m2"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", `"k2"`).frames,
			Transcript: []Message{msg("m1", "hello"), msg("m2", "hello")}}, []string{properties.Duplicate, KeyChanged}},
		{"a prompt on a new connection before resume", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).prompt(2, "hello", `"k1"`).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{ResendBeforeResume}},
		{"told inserted, not in the transcript", History{Subs: subs,
			Told:   []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).frames}, []string{properties.Lost}},
		{"never told, never inserted", History{Subs: subs,
			Frames: new(wire).open(1).frames}, []string{properties.Lost}},
		{"never told, inserted", History{Subs: subs,
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).frames, Transcript: []Message{msg("m1", "hello")}}, []string{properties.Unresolved}},
		{"told failed, inserted", History{Subs: subs,
			Told:   []Told{{ID: "s1", Outcome: Failed, Error: "connection lost"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).frames, Transcript: []Message{msg("m1", "hello")}}, []string{properties.Phantom}},
		{"told failed, then unknown, inserted: the user saw the failure", History{Subs: subs,
			Told:   []Told{{ID: "s1", Outcome: Failed, Error: "-32603"}, {ID: "s1", Outcome: Unknown}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).frames, Transcript: []Message{msg("m1", "hello")}}, []string{properties.Phantom}},
		{"told failed, then inserted", History{Subs: subs,
			Told:   []Told{{ID: "s1", Outcome: Failed, Error: "-32603"}, {ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).frames, Transcript: []Message{msg("m1", "hello")}}, []string{properties.Phantom}},
		{"told failed, then unknown, not inserted", History{Subs: subs,
			Told:   []Told{{ID: "s1", Outcome: Failed, Error: "-32603"}, {ID: "s1", Outcome: Unknown}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).frames}, nil},
		{"the same inserted told again after a restart", History{Subs: subs,
			Told:   []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}, {ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).frames, Transcript: []Message{msg("m1", "hello")}}, nil},
		{"told inserted as two messages", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}, {ID: "s1", Outcome: Inserted, MessageID: "m2"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).frames,
			Transcript: []Message{msg("m1", "hello"), msg("m2", "hello")}}, []string{properties.Duplicate, properties.WrongID}},
		{"told unknown, inserted: the user knows to look", History{Subs: subs,
			Told:   []Told{{ID: "s1", Outcome: Unknown}},
			Frames: new(wire).open(1).prompt(1, "hello", `"k1"`).frames, Transcript: []Message{msg("m1", "hello")}}, nil},
		{"told another message's id", History{Subs: []Submission{{"s1", "hello"}, {"s2", "bye"}},
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}, {ID: "s2", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).prompt(1, "bye", `"k2"`).frames,
			Transcript: []Message{msg("m1", "hello"), msg("m2", "bye")}}, []string{properties.WrongID}},
		{"the same text twice, one key", History{Subs: []Submission{{"s1", "hello"}, {"s2", "hello"}},
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}, {ID: "s2", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).prompt(1, "hello", `"k1"`).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{properties.WrongID, KeyReused}},
		{"the same text twice, two keys", History{Subs: []Submission{{"s1", "hello"}, {"s2", "hello"}},
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}, {ID: "s2", Outcome: Inserted, MessageID: "m2"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).prompt(1, "hello", `"k2"`).frames,
			Transcript: []Message{msg("m1", "hello"), msg("m2", "hello")}}, nil},
		{"the same text twice, sent once", History{Subs: []Submission{{"s1", "hello"}, {"s2", "hello"}},
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{properties.Lost}},
		{"one key for two texts", History{Subs: []Submission{{"s1", "hello"}, {"s2", "bye"}},
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}, {ID: "s2", Outcome: Failed}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"k1"`).prompt(1, "bye", `"k1"`).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{KeyReused}},
		{"a malformed key", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `""`).prompt(1, "hello", `7`).frames,
			Transcript: []Message{msg("m1", "hello")}}, []string{KeyChanged, KeyMalformed, KeyMalformed}},
		{"a key of 255 code points, 765 bytes", History{Subs: subs,
			Told:       []Told{{ID: "s1", Outcome: Inserted, MessageID: "m1"}},
			Frames:     new(wire).open(1).prompt(1, "hello", `"`+strings.Repeat("€", 255)+`"`).frames,
			Transcript: []Message{msg("m1", "hello")}}, nil},
	}
	for _, c := range cases {
		got := Check(c.h)
		if !slices.Equal(kinds(got), c.want) {
			t.Errorf("%s: anomalies %q, want %q:\n%v", c.name, kinds(got), c.want, got)
		}
		for _, a := range got {
			if a.Rule() == "" || a.Explanation == "" {
				t.Errorf("%s: %s has no rule or no explanation", c.name, a.Kind)
			}
		}
	}
}

// A duplicate names its cause from the keys its attempts carried: the Agent
// behind check-client honours keys, so a keyless resend or a new key is the
// Client's doing, and only one key inserted twice is the Agent's.
func TestDuplicateCitesItsCause(t *testing.T) {
	subs := []Submission{{"s1", "hello"}}
	two := []Message{msg("m1", "hello"), msg("m2", "hello")}
	told := []Told{{ID: "s1", Outcome: Inserted, MessageID: "m2"}}
	cases := []struct {
		name   string
		frames []Frame
		cite   string
	}{
		{"every attempt without a key (ACP v1, or a v2 Client that keys nothing)",
			new(wire).open(1).prompt(1, "hello", "").open(2).prompt(2, "hello", "").frames, duplicateUnkeyed},
		{"a new key on the retry", new(wire).open(1).prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", `"k2"`).frames, duplicateNewKeys},
		{"the retry without the key", new(wire).open(1).prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", "null").frames, Rules[UnkeyedResend]},
		{"one key, inserted twice: the Agent's", new(wire).open(1).prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", `"k1"`).frames, Rules[properties.Duplicate]},
		{"a refused first key, then two more", new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32603).prompt(1, "hello", `"k2"`).
			open(2).prompt(2, "hello", `"k3"`).frames, duplicateNewKeys},
		{"a refused first key, then one key twice", new(wire).open(1).prompt(1, "hello", `"k1"`).answer(1, "", -32603).prompt(1, "hello", `"k2"`).
			open(2).prompt(2, "hello", `"k2"`).frames, Rules[properties.Duplicate]},
	}
	// Two submissions of one text, in the transcript three times.
	twice := []Submission{{"s1", "hello"}, {"s2", "hello"}}
	three := append(two, msg("m3", "hello"))
	for _, c := range []struct {
		name   string
		frames []Frame
		cite   string
	}{
		{"one unkeyed, sent once, and one keyed, resent under its key: the Agent's",
			new(wire).open(1).prompt(1, "hello", "").prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", `"k1"`).frames, Rules[properties.Duplicate]},
		{"both unkeyed, each sent once: the Agent's", new(wire).open(1).prompt(1, "hello", "").prompt(1, "hello", "").frames, Rules[properties.Duplicate]},
		{"both unkeyed, one resent", new(wire).open(1).prompt(1, "hello", "").prompt(1, "hello", "").open(2).prompt(2, "hello", "").frames, duplicateUnkeyed},
		{"one unkeyed, one keyed and resent without its key", new(wire).open(1).prompt(1, "hello", "").prompt(1, "hello", `"k1"`).open(2).prompt(2, "hello", "").frames, Rules[UnkeyedResend]},
	} {
		var dup *Anomaly
		for _, a := range Check(History{Subs: twice, Told: []Told{{ID: "s1", Outcome: Unknown}, {ID: "s2", Outcome: Unknown}}, Frames: c.frames, Transcript: three}) {
			if a.Kind == properties.Duplicate {
				dup = &a
			}
		}
		if dup == nil || dup.Rule() != c.cite {
			t.Errorf("%s: duplicate %v, want it citing %q", c.name, dup, c.cite)
		}
	}
	for _, c := range cases {
		var dup *Anomaly
		for _, a := range Check(History{Subs: subs, Told: told, Frames: c.frames, Transcript: two}) {
			if a.Kind == properties.Duplicate {
				dup = &a
			}
		}
		if dup == nil {
			t.Errorf("%s: no duplicate", c.name)
			continue
		}
		if dup.Rule() != c.cite {
			t.Errorf("%s: cites %q, want %q", c.name, dup.Rule(), c.cite)
		}
	}
}
