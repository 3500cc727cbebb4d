package acp

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp/jsonscan"
)

// The idempotencyKey: how long it may be, how it is written, and how an
// Agent reads it (PromptParams.Key), once per byte where it can be: the
// simulation's Clients probe the limit with keys of 255 code points in up
// to 1,020 bytes.

// MaxKeyLength is the RFD's upper bound on an idempotencyKey, counted in
// Unicode code points as JSON Schema's maxLength counts.
const MaxKeyLength = 255

// KeyLengthUnit names the unit MaxKeyLength is counted in; traces record it.
const KeyLengthUnit = "codepoints"

// KeyJSON is the raw field value for key k.
func KeyJSON(k string) json.RawMessage { return quotePlain(k) }

// Key validates the idempotencyKey: omitted and null mean no key (present is
// false); a string of 1..255 code points is a key; anything else is -32602.
func (p *PromptParams) Key() (key string, present bool, err *Error) {
	raw := p.IdempotencyKey
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] != '"' {
		return "", false, Errorf(CodeInvalidParams, "invalid params: idempotencyKey must be a string of 1 to %d characters", MaxKeyLength)
	}
	if !validUnicode(raw) {
		// Decoding would turn every lone surrogate and invalid byte into
		// U+FFFD, so two different keys would name one submission.
		return "", false, Errorf(CodeInvalidParams, "invalid params: idempotencyKey must be valid Unicode (no lone surrogates, no invalid UTF-8)")
	}
	if plain, ok := PlainKey(string(raw)); ok {
		key = plain
	} else if err := json.Unmarshal(raw, &key); err != nil {
		return "", false, Errorf(CodeInvalidParams, "invalid params: idempotencyKey: %v", err)
	}
	if !ValidKeyFits(key) { // key is valid UTF-8: validUnicode read raw
		return "", false, Errorf(CodeInvalidParams, "invalid params: idempotencyKey must be 1 to %d characters, got %d", MaxKeyLength, utf8.RuneCountInString(key))
	}
	return key, true, nil
}

// PlainKey is the key the raw idempotencyKey token tok holds when it is a
// whole JSON string with nothing to unescape (no quote, backslash or
// control byte inside): the usual key, read without the decoder, as a
// substring of tok. tok must be valid UTF-8 (Key has validUnicode read it;
// a digest's strings are), and so is the key; whether it fits is
// ValidKeyFits's to say. The checker reads keys with it as Key does.
func PlainKey(tok string) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", false
	}
	key := tok[1 : len(tok)-1]
	if strings.IndexByte(key, '\\') >= 0 || strings.IndexByte(key, '"') >= 0 || jsonscan.HasControl(key) {
		return "", false
	}
	return key, true
}

// KeyFits reports whether key is 1 to MaxKeyLength characters (code
// points) long, as the RFD allows, counted as utf8.RuneCountInString
// counts them (an invalid byte is one). No more bytes than the limit is no
// more characters either, and more than four bytes a character's worth
// (1,020) is more characters: only a key in between is counted.
func KeyFits(key string) bool {
	n := len(key)
	return n >= 1 && (n <= MaxKeyLength || n <= utf8.UTFMax*MaxKeyLength && utf8.RuneCountInString(key) <= MaxKeyLength)
}

// ValidKeyFits is KeyFits for a key known to be valid UTF-8 (as Key reads
// one, or as jsonscan.PlainString returns it): its code points are its
// bytes that begin one, counted eight at a time, where RuneCountInString
// decodes every code point of a key of 255 of them in up to a thousand
// bytes, which a simulation's Clients send to probe the limit. On invalid
// UTF-8 its answer is not KeyFits's (a lone continuation byte counts for
// none): its callers know their keys valid.
func ValidKeyFits(key string) bool {
	n := len(key)
	if n <= MaxKeyLength || n > utf8.UTFMax*MaxKeyLength {
		return n >= 1 && n <= MaxKeyLength
	}
	const tops = 0x8080808080808080
	conts, i := 0, 0
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64([]byte(key[i : i+8]))
		conts += bits.OnesCount64(x &^ (x << 1) & tops) // 10xxxxxx: a continuation byte
	}
	for ; i < n; i++ {
		if key[i]&0xc0 == 0x80 {
			conts++
		}
	}
	return n-conts <= MaxKeyLength
}

// validUnicode reports whether a JSON string literal decodes without loss:
// its bytes are UTF-8 and every \u escape of a surrogate is part of a pair.
func validUnicode(lit []byte) bool {
	if !utf8.Valid(lit) {
		return false
	}
	for i := 0; i < len(lit); i++ {
		// From escape to escape (a key may be a thousand bytes, and most
		// have none).
		j := bytes.IndexByte(lit[i:], '\\')
		if j < 0 {
			break
		}
		if i += j; i+1 >= len(lit) {
			continue
		}
		if lit[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(lit, i+2)
		switch {
		case !ok:
			return false
		case r >= 0xD800 && r < 0xDC00:
			if i+11 >= len(lit) || lit[i+6] != '\\' || lit[i+7] != 'u' {
				return false
			}
			if lo, ok := hex4(lit, i+8); !ok || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return false
		default:
			i += 5
		}
	}
	return true
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
