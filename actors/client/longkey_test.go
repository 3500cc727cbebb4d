package client

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// longKeyByRune is longKey as it was first written, one code point at a
// time: the reference the faster one is held to.
func longKeyByRune(uuid string, to func(byte) rune) string {
	var b strings.Builder
	for i := 0; i < maxKeyLength; i++ {
		b.WriteRune(to(uuid[i%len(uuid)]))
	}
	return b.String()
}

func TestLongKeyIsTheUUIDsCodePointsOverAndOver(t *testing.T) {
	forms := []func(byte) rune{func(b byte) rune { return rune(b) }, shifted(0xE0), shifted(0x1F600), func(byte) rune { return -1 }}
	rapid.Check(t, func(t *rapid.T) {
		uuid := rapid.StringMatching(`[0-9a-f-]{1,40}`).Draw(t, "uuid")
		to := forms[rapid.IntRange(0, len(forms)-1).Draw(t, "form")]
		got, want := longKey(uuid, to), longKeyByRune(uuid, to)
		if got != want {
			t.Fatalf("longKey(%q) = %q, one rune at a time %q", uuid, got, want)
		}
		if n := utf8.RuneCountInString(got); n != maxKeyLength {
			t.Fatalf("%d code points, want %d", n, maxKeyLength)
		}
	})
}
