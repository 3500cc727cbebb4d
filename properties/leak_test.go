package properties

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
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
	x := &keyIndex{all: map[string]*keyInfo{}, byLen: map[int]*lenIndex{}, own: strings.Clone}
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

// The index finds every one of many keys of one length, and no key that was
// never added, while its bit filter grows past its first size.
func TestKeyIndexFindsEveryKeyAsItGrows(t *testing.T) {
	x := newKeyIndex(0, strings.Clone)
	key := func(i int) string { return fmt.Sprintf("key-%016x-%016x", i*7919, i) }
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
	if li := x.byLen[len(key(0))]; li.logBits <= minFilterLog {
		t.Fatalf("the filter never grew: %d bits for 5000 keys", 1<<li.logBits)
	}
}
