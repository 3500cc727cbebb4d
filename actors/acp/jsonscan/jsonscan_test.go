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
