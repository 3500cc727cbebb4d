// This file holds the line scanner's JSON strings: scanning one, still
// escaped, and unescaping it as encoding/json does.

package traces

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// plainByte marks the bytes a string may hold as they are: not the closing
// quote, not a backslash, not a control character. A table lookup per byte
// runs faster than the switch, and frames inside events are mostly plain.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// rawString scans the JSON string at pos and returns its bytes between the
// quotes, still escaped.
func (s *lineScanner) rawString() ([]byte, error) {
	s.pos++ // the opening quote
	start := s.pos
	data := s.data
	for s.pos < len(data) {
		for s.pos < len(data) && plainByte[data[s.pos]] {
			s.pos++
		}
		if s.pos == len(data) {
			break
		}
		c := data[s.pos]
		switch {
		case c == '"':
			raw := data[start:s.pos]
			s.pos++
			return raw, nil
		case c == '\\':
			s.pos++
			switch s.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				s.pos++
				for range 4 {
					if !isHex(s.peek()) {
						return nil, s.syntaxErr("invalid \\u escape in a string, expected 4 hex digits")
					}
					s.pos++
				}
			default:
				return nil, s.syntaxErr("invalid escape in a string, expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
			}
		default: // c < 0x20
			return nil, s.syntaxErr(fmt.Sprintf("%s in a string, expected it escaped", s.shownByte()))
		}
	}
	return nil, s.syntaxErr("")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// unquote decodes the escaped string contents raw (from rawString) as
// encoding/json does: invalid UTF-8 and unpaired surrogates become U+FFFD,
// except that with keepBytes a lone \udc80-\udcff is the byte 0x80-0xff
// (appendQuoted's escape of a byte that is not UTF-8).
// ASCII between escapes is copied a run at a time: a frame inside an event
// escapes every quote it has, and appending byte by byte took a fifth of
// reading a trace.
func (s *lineScanner) unquote(raw []byte, keepBytes bool) string {
	if !containsByte(raw, '\\') && utf8.Valid(raw) {
		return string(raw)
	}
	b := s.buf[:0]
	for i := 0; i < len(raw); {
		j := i
		for j < len(raw) && raw[j] != '\\' && raw[j] < utf8.RuneSelf {
			j++
		}
		b = append(b, raw[i:j]...)
		if j < len(raw) && raw[j] != '\\' { // not ASCII
			r, size := utf8.DecodeRune(raw[j:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\uFFFD"...)
			} else {
				b = append(b, raw[j:j+size]...)
			}
			i = j + size
			continue
		}
		i = j
		if i == len(raw) {
			break
		}
		switch raw[i+1] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(raw[i+2 : i+6])
			i += 6
			if keepBytes && r >= 0xdc80 && r <= 0xdcff {
				b = append(b, byte(r-0xdc00))
				continue
			}
			if utf16.IsSurrogate(r) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, hex4(raw[i+2:i+6])); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // '"', '\\', '/'
			b = append(b, raw[i+1])
		}
		i += 2
	}
	s.buf = b
	return string(b)
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
