// Package jsonscan slices raw values out of a JSON document without copies
// or reflection, and declines whatever a decoder could read differently: a
// key escaped, repeated or equal to a wanted key but for case, anything
// malformed. Almost every ACP frame is one Object with plainly spelled keys
// and its readers need a handful of fields from it; a caller whose scan is
// declined decodes the document for real, so both paths read every frame
// the same way (acp's and properties' fuzz tests hold them to it).
package jsonscan

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// PlainString returns the value of a raw JSON string that needs no
// unescaping; ok is false for anything else (null included).
func PlainString(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || strings.IndexByte(raw, '\\') >= 0 {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	if !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}

// StringField decodes a raw JSON value into a string the way the acp codec
// does for a string field: a string is unescaped, null and absence give "",
// and ok is false for any other type.
func StringField(raw string) (string, bool) {
	if raw == "" || raw == "null" {
		return "", true
	}
	if s, ok := PlainString(raw); ok {
		return s, true
	}
	if raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return "", false
	}
	return s, true
}

// FieldsOf finds the raw values of keys in the JSON object obj. A value that
// is null or not an Object leaves every value empty, as decoding it into a
// struct would. ok is false when the caller must decode obj for real. obj
// always comes out of a frame already found valid, whose strings hold no
// control bytes (those were escaped), so strings are skipped quickly.
func FieldsOf(obj string, keys []string, vals []string) bool {
	obj = strings.TrimSpace(obj)
	if obj == "" || obj == "null" {
		return true
	}
	if obj[0] != '{' {
		return false
	}
	end, ok := Object(obj, 0, keys, vals, 0, true)
	return ok && end == len(obj)
}

// HasControl reports whether s holds a byte below 0x20. Without one, a string
// token ends at its first unescaped quote and needs no byte-by-byte check.
func HasControl(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8])) // one load: the conversion copies nothing
		// A byte below 0x20 borrows into its high bit; bytes with the high
		// bit already set are excluded by ^x.
		if (x-0x20*ones)&^x&highs != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 {
			return true
		}
	}
	return false
}

// foldsTo reports whether a decoder matching keys case-insensitively could
// take key for the ASCII name want.
func foldsTo(key, want string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return strings.EqualFold(key, want)
		}
	}
	return asciiFoldsTo(key, want)
}

// asciiFoldsTo is foldsTo for a key known to be ASCII.
func asciiFoldsTo(key, want string) bool {
	if len(key) != len(want) {
		return false
	}
	for i := 0; i < len(key); i++ {
		a, b := key[i]|0x20, want[i]|0x20
		if a != b || a < 'a' || a > 'z' {
			if key[i] != want[i] {
				return false
			}
		}
	}
	return true
}

// SkipWS returns the index of the first byte at or after s[i] that is not
// JSON whitespace.
func SkipWS(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// MaxDepth bounds nesting; deeper frames go to the real decoder.
const MaxDepth = 64

// Object scans the object starting at s[i] and stores the raw value of each
// wanted key in vals. It fails on malformed JSON and on any key that could
// make a decoder pick a different value: escaped, repeated, or a case
// variant of a wanted key. It returns the index after the object. depth is
// the nesting of the object (0 at the top, up to MaxDepth); noCtl promises
// that s holds no control byte (HasControl is false), so that strings are
// skipped by their quotes.
func Object(s string, i int, keys []string, vals []string, depth int, noCtl bool) (int, bool) {
	if i >= len(s) || s[i] != '{' || depth > MaxDepth {
		return i, false
	}
	i = SkipWS(s, i+1)
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		kEnd, esc, ok := stringEnd(s, i, noCtl)
		if !ok || esc {
			return i, false
		}
		key := s[i+1 : kEnd-1]
		i = SkipWS(s, kEnd)
		if i >= len(s) || s[i] != ':' {
			return i, false
		}
		i = SkipWS(s, i+1)
		vEnd, ok := valueEnd(s, i, depth+1, noCtl)
		if !ok {
			return i, false
		}
		ascii := true // then only a key of the wanted length can fold to it
		for j := 0; j < len(key) && ascii && len(keys) > 0; j++ {
			ascii = key[j] < utf8.RuneSelf
		}
		for k, want := range keys {
			if key == want {
				if vals[k] != "" {
					return i, false
				}
				vals[k] = s[i:vEnd]
			} else if ascii && len(key) == len(want) && asciiFoldsTo(key, want) || !ascii && foldsTo(key, want) {
				return i, false
			}
		}
		i = SkipWS(s, vEnd)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i = SkipWS(s, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// stringEnd returns the index after the string token starting at s[i] and
// whether it holds escapes.
func stringEnd(s string, i int, noCtl bool) (end int, esc, ok bool) {
	if noCtl {
		// Most strings are short: a plain loop beats a call to IndexByte.
		j := i + 1
		for lim := min(len(s), j+32); j < lim && s[j] != '"' && s[j] != '\\'; j++ {
		}
		if j < len(s) && s[j] == '"' {
			return j + 1, false, true
		}
		if j < len(s) && s[j] != '\\' {
			if q := strings.IndexByte(s[j:], '"'); q >= 0 && strings.IndexByte(s[j:j+q], '\\') < 0 {
				return j + q + 1, false, true
			}
		}
	}
	for j := i + 1; j < len(s); {
		// Skip plain bytes in a tight loop; stop at a quote, an escape or a
		// control character.
		for j < len(s) && s[j] >= 0x20 && s[j] != '"' && s[j] != '\\' {
			j++
		}
		if j >= len(s) {
			break
		}
		switch c := s[j]; {
		case c == '"':
			return j + 1, esc, true
		case c == '\\':
			esc = true
			if j+1 >= len(s) {
				return j, esc, false
			}
			switch s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(s) || !isHex4(s[j+2:j+6]) {
					return j, esc, false
				}
				j += 6
			default:
				return j, esc, false
			}
		default: // a control character
			return j, esc, false
		}
	}
	return len(s), esc, false
}

func isHex4(h string) bool {
	for i := 0; i < 4; i++ {
		c := h[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// valueEnd returns the index after the JSON value starting at s[i].
func valueEnd(s string, i, depth int, noCtl bool) (int, bool) {
	if i >= len(s) || depth > MaxDepth {
		return i, false
	}
	switch c := s[i]; {
	case c == '"':
		end, _, ok := stringEnd(s, i, noCtl)
		return end, ok
	case c == '{':
		return Object(s, i, nil, nil, depth, noCtl)
	case c == '[':
		i = SkipWS(s, i+1)
		if i < len(s) && s[i] == ']' {
			return i + 1, true
		}
		for {
			end, ok := valueEnd(s, i, depth+1, noCtl)
			if !ok {
				return end, false
			}
			i = SkipWS(s, end)
			if i >= len(s) {
				return i, false
			}
			switch s[i] {
			case ',':
				i = SkipWS(s, i+1)
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == 't':
		return literal(s, i, "true")
	case c == 'f':
		return literal(s, i, "false")
	case c == 'n':
		return literal(s, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return numberEnd(s, i)
	}
	return i, false
}

func literal(s string, i int, lit string) (int, bool) {
	if strings.HasPrefix(s[i:], lit) {
		return i + len(lit), true
	}
	return i, false
}

func numberEnd(s string, i int) (int, bool) {
	digits := func() bool {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if !digits() {
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}
