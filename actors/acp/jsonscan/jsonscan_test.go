package jsonscan

import (
	"reflect"
	"strings"
	"testing"
)

func TestFieldsOf(t *testing.T) {
	keys := []string{"sessionId", "idempotencyKey"}
	tests := []struct {
		obj  string
		vals []string
		ok   bool
	}{
		{`{"sessionId":"S","idempotencyKey":"k","x":1}`, []string{`"S"`, `"k"`}, true},
		{`{"sessionId":"S"}`, []string{`"S"`, ``}, true},
		{`{"idempotencyKey":null}`, []string{``, `null`}, true},
		{`null`, []string{``, ``}, true},
		{`[1]`, []string{``, ``}, false},
		{`{"SessionId":"S"}`, []string{``, ``}, false},
		{`{"sessionId":"S","sessionId":"T"}`, []string{`"S"`, ``}, false},
		{`{"session\u0049d":"S"}`, []string{``, ``}, false},
	}
	for _, tt := range tests {
		vals := make([]string, 2)
		ok := FieldsOf(tt.obj, keys, vals)
		if ok != tt.ok || ok && !reflect.DeepEqual(vals, tt.vals) {
			t.Errorf("FieldsOf(%s) = %q %v, want %q %v", tt.obj, vals, ok, tt.vals, tt.ok)
		}
	}
}

func TestHasControl(t *testing.T) {
	for _, s := range []string{"", "a", "0123456789abcdef", "\x1f", "0123456\x00", "01234567\x19x", "\xff\xfe\xa0\x80\x20\x21\x7f\x9f", "é€\u2028 ok", strings.Repeat("x", 40) + "\t"} {
		want := false
		for i := 0; i < len(s); i++ {
			want = want || s[i] < 0x20
		}
		if got := HasControl(s); got != want {
			t.Errorf("HasControl(%q) = %v", s, got)
		}
	}
}

// HasControl finds a byte below 0x20 wherever it is, eight bytes at a time
// or in the tail, among bytes of every other value, and allocates nothing.
func TestHasControlFindsEveryControlByte(t *testing.T) {
	for n := 0; n <= 19; n++ {
		for _, fill := range []byte{' ', 'k', 0x7f, 0x80, 0xff} {
			for at := -1; at < n; at++ {
				for c := range 256 {
					b := make([]byte, n)
					for i := range b {
						b[i] = fill
					}
					if at >= 0 {
						b[at] = byte(c)
					}
					want := at >= 0 && c < 0x20
					if got := HasControl(string(b)); got != want {
						t.Fatalf("HasControl(%q) = %t, expected %t", b, got, want)
					}
				}
			}
		}
	}
	key := strings.Repeat("k", 1000)
	if n := testing.AllocsPerRun(100, func() { HasControl(key) }); n != 0 {
		t.Errorf("HasControl allocates %v times a call, expected none", n)
	}
}
