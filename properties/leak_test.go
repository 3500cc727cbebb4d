package properties

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// A key leaks when the Agent writes it after a Client first sent it, as a
// whole string or a delimited token; a long key anywhere inside a string.
func TestKeyLeakRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		trace single
		leak  bool
	}{
		{"a one-character key is not leaked by words with an e", single{key: "e",
			early: agentSays(agentMessage(`"welcome: let me see the tree"`)),
			extra: agentSays(agentMessage(`"here we are, e-mail me: need edits?"`))}, false},
		{"a one-character key echoed as a whole string value leaks", single{key: "e",
			extra: agentSays(agentMessage(`"e"`))}, true},
		{"a one-character key is not leaked by the article of a sentence", single{key: "a",
			extra: agentSays(agentMessage(`"idempotencyKey must be a string"`))}, false},
		{"a four-character key echoed as a token leaks", single{key: "k3y9",
			extra: agentSays(agentMessage(`"retrying with key k3y9, as before"`))}, true},
		{"a one-character key the Agent wrote before the Client sent it is the Agent's own", single{key: "e",
			early: agentSays(agentMessage(`"e"`))}, false},
		{"a long key the Agent wrote before the Client sent it is the Agent's own", single{
			early: agentSays(agentMessage(`"` + K1 + `"`))}, false},
		{"a long key inside a longer string leaks", single{
			extra: agentSays(agentMessage(`"retry-` + K1 + `-again"`))}, true},
		{"a short key inside a word does not", single{key: "ref",
			extra: agentSays(agentMessage(`"I prefer the referee's ref-count"`))}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.trace.build().check()
			var leaks []Anomaly
			for _, a := range r.Anomalies {
				if a.Kind == KeyLeak {
					leaks = append(leaks, a)
				} else {
					t.Errorf("unexpected %s: %s", a.Kind, a.Explanation)
				}
			}
			if tc.leak != (len(leaks) == 1) || len(leaks) > 1 {
				t.Fatalf("want leak %v, got %d key-leaks\n%s", tc.leak, len(leaks), dump(r))
			}
			if tc.leak && !strings.Contains(leaks[0].Explanation, "the Agent wrote it inside a string value") {
				t.Fatalf("explanation: %s", leaks[0].Explanation)
			}
		})
	}
}

func TestKeyIndex(t *testing.T) {
	x := newKeyIndex(0, strings.Clone, nil)
	const long = "1f0c9e2a-7b7d-4c1e" // 18 code points: found anywhere
	for _, k := range []string{"abcd", "bcde", "Key-1", "é", "zzzzzzzzzz", long} {
		x.add(k)
	}
	tests := []struct {
		s    string
		want []string
	}{
		// A short key counts only as a delimited token.
		{"xxabcdexx", nil},
		{"abcd bcde", []string{"abcd", "bcde"}},
		{"(abcd),bcde.", []string{"abcd", "bcde"}},
		{"abcd-bcde", nil},
		{"key-1", nil},
		{"Key-1", []string{"Key-1"}},
		// The shortest (1 to 3 code points) only as the whole string.
		{"café", nil},
		{"caf é", nil},
		{"é", []string{"é"}},
		{"ab", nil},
		{"", nil},
		{"zzzzzzzzz", nil},
		{"zzzzzzzzzzz", nil},
		// A long one anywhere in a string.
		{"retry-" + long + "x", []string{long}},
		{long, []string{long}},
	}
	for _, tt := range tests {
		var got []string
		x.find(tt.s, func(k *keyInfo) { got = append(got, k.key) })
		slices.Sort(got)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("find(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestEachString(t *testing.T) {
	type tok struct {
		s   string
		key bool
	}
	var got []tok
	eachString(`{"a\u0062" : ["x\"y", {"k":1}], "é":"\ud83d\ude00"}`, func(s string, k bool) { got = append(got, tok{s, k}) })
	want := []tok{{"ab", true}, {`x"y`, false}, {"k", true}, {"é", true}, {"😀", false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// The index finds every one of many keys, and no key that was never added,
// while its filters grow past their first size: long keys by their grams,
// UUID-shaped ones at their dashes.
func TestKeyIndexFindsEveryKeyAsItGrows(t *testing.T) {
	for _, shape := range []struct {
		name string
		key  func(i int) string
		bits func(x *keyIndex) uint
	}{
		{"long", func(i int) string { return fmt.Sprintf("%016x-key-%d", uint64(i)*0x9E3779B97F4A7C15, i) },
			func(x *keyIndex) uint { return x.grams.filter.logBits }},
		{"uuid", func(i int) string {
			h := uint64(i) * 0x9E3779B97F4A7C15
			return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", h>>32, h>>16&0xffff, h&0xffff, i&0xffff, i)
		}, func(x *keyIndex) uint { return x.uuidFirst.logBits }},
	} {
		t.Run(shape.name, func(t *testing.T) { keyIndexGrows(t, shape.key, shape.bits) })
	}
}

func keyIndexGrows(t *testing.T, key func(int) string, bits func(*keyIndex) uint) {
	x := newKeyIndex(0, strings.Clone, nil)
	for i := range 5000 {
		x.add(key(i))
		for _, j := range []int{0, i / 2, i} {
			var got []string
			x.find("prefix "+key(j)+" suffix", func(k *keyInfo) { got = append(got, k.key) })
			if len(got) != 1 || got[0] != key(j) {
				t.Fatalf("after %d keys, find(%q) = %v", i+1, key(j), got)
			}
		}
		var got []string
		x.find("prefix "+key(i+1)+" suffix", func(k *keyInfo) { got = append(got, k.key) })
		if len(got) != 0 {
			t.Fatalf("after %d keys, found %v, never added", i+1, got)
		}
	}
	if b := bits(x); b <= minFilterLog {
		t.Fatalf("the filter never grew: %d bits for 5000 keys", 1<<b)
	}
}

// find reports what a scan of every length, then every position, then
// every key reports, in that order: keys of every length from 1 to 160
// bytes, many sharing their first bytes, in strings built from them.
func TestKeyIndexFindsAsAScanOfEveryLength(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]string{"a", "b", "-", " ", "é", "😀", "0"})
		pieceOf := func(least int) *rapid.Generator[string] {
			return rapid.Custom(func(t *rapid.T) string {
				return strings.Join(rapid.SliceOfN(alphabet, least, 40).Draw(t, "runes"), "")
			})
		}
		// UUIDs of few digits: keys, their case variants and other UUIDs
		// meet in one string (the index finds UUID keys by their dashes).
		uuid := rapid.Custom(func(t *rapid.T) string {
			var b strings.Builder
			for i := range uuidLen {
				if i == 8 || i == 13 || i == 18 || i == 23 {
					b.WriteByte('-')
				} else {
					b.WriteString(rapid.SampledFrom([]string{"a", "A", "0"}).Draw(t, "digit"))
				}
			}
			return b.String()
		})
		piece := rapid.OneOf(pieceOf(1), pieceOf(1), uuid)
		// Keys all longer than a gram leave no short key to find.
		keyPiece := rapid.OneOf(pieceOf(rapid.SampledFrom([]int{1, 1, 9, 12, 20}).Draw(t, "shortest key")), uuid)
		keys := rapid.SliceOfNDistinct(keyPiece, 1, 30, func(s string) string { return s }).Draw(t, "keys")
		// Some keys come with a handle, as the simulator's do, some are
		// read from bytes, some both ways: each is one key either way.
		handles := map[string]int32{}
		x := newKeyIndex(0, strings.Clone, func(s string) (int32, bool) { h, ok := handles[s]; return h, ok })
		byHandle := rapid.SliceOfN(rapid.IntRange(0, 3), len(keys), len(keys)).Draw(t, "how")
		for i, k := range keys {
			if byHandle[i] > 0 {
				handles[k] = int32(i + 1)
			}
		}
		for i, k := range keys {
			switch byHandle[i] {
			case 0:
				x.add(k)
			case 1:
				x.addByHandle(int32(i+1), k)
			case 2:
				ki := x.add(k)
				if x.addByHandle(int32(i+1), k) != ki || x.get(k) != ki {
					t.Fatalf("key %q read from bytes, then with its handle, is two keys", k)
				}
			case 3:
				ki := x.addByHandle(int32(i+1), k)
				if x.add(k) != ki || x.get(k) != ki {
					t.Fatalf("key %q with its handle, then read from bytes, is two keys", k)
				}
			}
		}
		var parts []string
		for range rapid.IntRange(1, 6).Draw(t, "parts") {
			if rapid.Bool().Draw(t, "key?") {
				parts = append(parts, rapid.SampledFrom(keys).Draw(t, "key"))
			} else {
				parts = append(parts, piece.Draw(t, "other"))
			}
		}
		s := strings.Join(parts, rapid.SampledFrom([]string{"", " ", "x"}).Draw(t, "sep"))
		var want []string
		for n := 1; n <= len(s); n++ {
			for i := 0; i+n <= len(s); i++ {
				if ki := x.get(s[i : i+n]); ki != nil && ki.leaksAt(s, i) {
					want = append(want, ki.key)
				}
			}
		}
		var got []string
		x.find(s, func(k *keyInfo) { got = append(got, k.key) })
		if !slices.Equal(got, want) {
			t.Fatalf("find(%q) = %q, want %q", s, got, want)
		}
	})
}

// The leak scan of a digested frame skips its literal strings (member names,
// "2.0", a block's type) only while no Client key is found in one: a Client
// whose key is "sessionUpdate" gets the same report from the digest as from
// the bytes, and the report has the leak.
func TestLeakScanOfADigestSkipsLiteralsOnlyWhileNoKeyIsOne(t *testing.T) {
	for _, tc := range []struct {
		key  string
		leak bool
	}{{K1, false}, {"sessionUpdate", true}, {"text", true}, {"2.0", true}, {"type", true}} {
		t.Run(tc.key, func(t *testing.T) {
			frame, d := acp.UpdateFrameDigest(S1, acp.MessageUpdate(acp.UpdateAgentMessage, "O9", "working on it"))
			b := single{key: tc.key, extra: agentSays(string(frame))}.build()
			handDigest(t, b, frame, &d)
			typed := b.check()
			for i := range b.evs {
				b.evs[i].Digest = nil
			}
			fromBytes := b.check()
			if got, want := dump(typed), dump(fromBytes); got != want {
				t.Fatalf("the digest's report:\n%s\nthe bytes':\n%s", got, want)
			}
			leaks := 0
			for _, a := range typed.Anomalies {
				if a.Kind == KeyLeak {
					leaks++
				}
			}
			if (leaks > 0) != tc.leak {
				t.Fatalf("%d key-leaks, want leak %v\n%s", leaks, tc.leak, dump(typed))
			}
		})
	}
}

// A digested frame the Agent writes that names the key field (a prompt of
// its own, which no model Agent sends) leaks it as the bytes do: the scan of
// a digest's varying strings leaves such a frame to the whole walk.
func TestLeakScanOfADigestThatNamesTheKeyField(t *testing.T) {
	frame, d := acp.RequestDigest("9", acp.MethodSessionPrompt, acp.PromptParams{SessionID: S1, Prompt: []acp.ContentBlock{acp.Text("and you?")}, IdempotencyKey: acp.KeyJSON("agent-own-key"), KeyText: "agent-own-key"})
	b := single{key: K1, extra: agentSays(string(frame))}.build()
	handDigest(t, b, frame, &d)
	typed := b.check()
	for i := range b.evs {
		b.evs[i].Digest = nil
	}
	if got, want := dump(typed), dump(b.check()); got != want {
		t.Fatalf("the digest's report:\n%s\nthe bytes':\n%s", got, want)
	}
	field := false
	for _, a := range typed.Anomalies {
		field = field || a.Kind == KeyLeak && strings.Contains(a.Explanation, keyField)
	}
	if !field {
		t.Fatalf("no key-leak names the field %s:\n%s", keyField, dump(typed))
	}
}

// handDigest gives the one send of frame in b its digest d, with the very
// bytes the digest was made with, as the simulator hands them over.
func handDigest(t *testing.T, b *tb, frame []byte, d *acp.Digest) {
	t.Helper()
	digested := 0
	for i := range b.evs {
		if e := &b.evs[i]; e.Kind == traces.KindSend && e.Frame == string(frame) {
			e.Frame, e.Digest = unsafe.String(unsafe.SliceData(frame), len(frame)), d
			digested++
		}
	}
	if digested != 1 {
		t.Fatalf("%d frames carry the digest, want 1", digested)
	}
}
