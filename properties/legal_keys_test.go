package properties

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
)

// Keys at the edges of the legal space: 255 code points however many bytes
// or UTF-16 units they take, one code point, an explicit null and none at
// all (what a hop that turns an omitted key into "" gets refused).
var legalEdgeKeys = map[string]any{
	"255 four-byte code points (1,020 bytes, 510 UTF-16 units)": strings.Repeat("😀", 255),
	"255 two-byte code points (510 bytes)":                      strings.Repeat("é", 255),
	"255 ASCII code points":                                     strings.Repeat("k", 255),
	"one code point":                                            "Ā",
	"explicit null":                                             json.RawMessage("null"),
	"omitted":                                                   noKey,
}

// An Agent that counts a key's length in bytes or UTF-16 units refuses a
// legal key with -32602; its Client tells the user the prompt failed, which
// no other rule questions. The refusal is a bad-reply; the same key
// inserted is healthy.
func TestLegalKeyRefusedIsBadReply(t *testing.T) {
	for name, key := range legalEdgeKeys {
		t.Run(name, func(t *testing.T) {
			r := single{key: key, errCode: acp.CodeInvalidParams, emptyReplay: true}.build().check()
			if got := kindsOf(r); len(got) != 1 || got[0] != BadReply {
				t.Fatalf("refused: got %v, want [%s]\n%s", got, BadReply, dump(r))
			}
			if k, ok := key.(string); ok {
				if want := keyMeasures(k); !strings.Contains(r.Anomalies[0].Explanation, want) {
					t.Errorf("explanation does not measure the key (%s):\n%s", want, r.Anomalies[0].Explanation)
				}
			}
			if g := (single{key: key}.build().check()); !g.OK() || g.Inconclusive {
				t.Fatalf("inserted: got %v (inconclusive %v)\n%s", kindsOf(g), g.Inconclusive, dump(g))
			}
		})
	}
}

// The one -32602 the RFD allows a legal key: a recorded key sent again with
// another prompt ("rejects the request with -32602"). The same refusal
// without the earlier prompt is a bad-reply.
func TestRecordedKeyWithOtherPromptMayBeRefused(t *testing.T) {
	build := func(earlier bool) *Report {
		b := newTB("all")
		b.connect(L1)
		if earlier {
			b.submit("c1", "s0", "the first prompt")
			id := b.prompt(L1, "s0", S1, "the first prompt", K1)
			b.insert(S1, "M0", "the first prompt")
			b.answer(L1, id, "M0")
			b.userMsg(L1, S1, "M0", "the first prompt")
			b.turn(L1, S1, "O0")
			b.outcome("c1", "s0", "inserted", "M0")
		}
		b.submit("c1", "s1", "another prompt")
		id := b.prompt(L1, "s1", S1, "another prompt", K1)
		b.fail(L1, id, acp.CodeInvalidParams)
		b.outcome("c1", "s1", "failed", "")
		var replay []msg
		if earlier {
			replay = []msg{{id: "M0", text: "the first prompt"}}
		}
		b.observe("a1#1", sess{id: S1, msgs: replay})
		return b.check()
	}
	if r := build(true); !r.OK() {
		t.Errorf("a key recorded for another prompt, refused: got %v\n%s", kindsOf(r), dump(r))
	}
	if r := build(false); len(kindsOf(r)) != 1 || kindsOf(r)[0] != BadReply {
		t.Errorf("a fresh key refused: got %v, want [%s]\n%s", kindsOf(r), BadReply, dump(r))
	}
}

// A legal key refused twice (the request answered -32602 again) is one
// refusal, beside the bad reply of answering twice.
func TestALegalKeyRefusedTwiceIsOneRefusal(t *testing.T) {
	r := single{errCode: acp.CodeInvalidParams, emptyReplay: true, extra: func(b *tb) {
		b.fail(L1, acp.NumID(2), acp.CodeInvalidParams) // the prompt's id: initialize was 1
	}}.build().check()
	refusals, twice := 0, 0
	for _, a := range r.Anomalies {
		switch {
		case strings.Contains(a.Explanation, "carried the legal idempotencyKey"):
			refusals++
		case strings.Contains(a.Explanation, "got 2 responses"):
			twice++
		}
	}
	if refusals != 1 || twice != 1 {
		t.Fatalf("%d refusals and %d answered twice, want 1 and 1\n%s", refusals, twice, dump(r))
	}
}
