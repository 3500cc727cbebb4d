package traces

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file decodes event lines quickly. An event line is a flat JSON object
// whose values are strings, numbers and booleans, so a small scanner does the
// job of encoding/json without its per-value overhead. It accepts exactly
// what encoding/json accepts for such an object (FuzzScanMatchesJSON checks
// this) and decodes strings the same way, invalid UTF-8 and lone surrogates
// included.

// lineScanner reads one line holding one JSON object.
type lineScanner struct {
	data []byte
	pos  int
	buf  []byte // scratch space for unescaping strings
	// The format-2 event fields (eventFormat sets them): msg is the field
	// (by position) a "msg" JSON value is read into, 0 for none; bytes
	// marks the fields whose strings keep bytes that are not UTF-8 (lone
	// \udc80-\udcff escapes); deny marks the fields this format lacks.
	msg   int
	bytes uint64
	deny  uint64
	// optional marks the fields this format may leave out though they
	// are not omitempty (format 2's seq); present marks the fields the
	// last line decoded had.
	optional uint64
	present  uint64
	// repeat marks the fields whose values recur from line to line (kind,
	// dir and outcome, a link's name, its endpoints, a Client's, a note),
	// kept once each in names (seeded with interned), up to maxNames of
	// them, so that a line allocates none of them.
	repeat uint64
	names  map[string]string
}

// maxNames bounds a scanner's table of recurring names: a trace names a
// few hundred links and processes per thousand submissions, and a table
// that could grow with a hostile trace's every value must not.
const maxNames = 1 << 14

// maxNameLen bounds the length of a name the table keeps: names are ids
// and short words, and the table must hold no more than a few lines do.
const maxNameLen = 128

// eventRepeat is lineScanner.repeat for Event.
var eventRepeat = func() uint64 {
	si := infoFor(eventType)
	var mask uint64
	for _, name := range []string{"kind", "link", "from", "to", "client", "note"} {
		mask |= 1 << si.byName[name]
	}
	for name := range fieldValues {
		mask |= 1 << si.byName[name]
	}
	return mask
}()

// eventFormat sets the scanner up for the events of a trace of format.
func (s *lineScanner) eventFormat(format int) {
	s.msg, s.bytes, s.deny, s.optional = 0, 0, 0, 0
	si := infoFor(eventType)
	s.repeat = eventRepeat
	if format == FormatV1 {
		s.deny = 1 << si.byName["send"]
		return
	}
	s.msg = si.byName["frame"]
	s.bytes = 1 << s.msg
	s.optional = 1 << si.byName["seq"]
}

// interned holds the values of kind, dir and outcome, which are on almost
// every line: every scanner's table of recurring names starts with them.
var interned = func() map[string]string {
	m := map[string]string{}
	for _, s := range kindSpecs {
		m[s.kind] = s.kind
	}
	for _, vs := range fieldValues {
		for _, v := range vs {
			m[v] = v
		}
	}
	return m
}()

// jsonSyntaxError is invalid JSON on a line: it is reported without the name of
// the field it was found in.
type jsonSyntaxError struct{ msg string }

func (e *jsonSyntaxError) Error() string { return e.msg }

// syntaxErr reports invalid JSON at pos: what says what is wrong and what
// was expected.
func (s *lineScanner) syntaxErr(what string) error {
	if s.pos >= len(s.data) {
		return &jsonSyntaxError{"invalid JSON: unexpected end of line, expected one complete JSON object per line"}
	}
	return &jsonSyntaxError{fmt.Sprintf("invalid JSON at byte %d: %s", s.pos+1, what)}
}

func (s *lineScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end.
func (s *lineScanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// decodeFlat decodes the line into the struct v, whose JSON fields must all
// be strings, integers or booleans (at most 64 of them). It rejects unknown
// and repeated fields and missing fields that have no omitempty.
func (s *lineScanner) decodeFlat(v reflect.Value, si *structInfo) error {
	if len(si.fields) > 64 {
		return fmt.Errorf("%s has %d fields, expected at most 64 for the line scanner", si.names, len(si.fields))
	}
	var present uint64
	msgSeen := false
	next := 0
	s.skipSpace()
	if s.peek() != '{' {
		if s.pos >= len(s.data) {
			return s.syntaxErr("")
		}
		return fmt.Errorf("got %s, expected a JSON object", shown(s.data[s.pos:]))
	}
	s.pos++
	s.skipSpace()
	if s.peek() == '}' {
		s.pos++
	} else {
		for {
			s.skipSpace()
			if s.peek() != '"' {
				return s.syntaxErr(fmt.Sprintf("unexpected %s, expected a field name", s.shownByte()))
			}
			key, err := s.rawString()
			if err != nil {
				return err
			}
			s.skipSpace()
			if s.peek() != ':' {
				return s.syntaxErr(fmt.Sprintf("unexpected %s after a field name, expected ':'", s.shownByte()))
			}
			s.pos++
			s.skipSpace()
			// Fields usually come in struct order: look there first.
			i, ok := -1, false
			for j := next; j < len(si.fields); j++ {
				if si.fields[j].name == string(key) {
					i, ok = j, true
					break
				}
			}
			if !ok {
				i, ok = si.byName[string(key)]
			}
			if !ok && containsByte(key, '\\') {
				i, ok = si.byName[s.unquote(key, false)]
			}
			isMsg := false
			if !ok && s.msg > 0 && (string(key) == "msg" || containsByte(key, '\\') && s.unquote(key, false) == "msg") {
				i, ok, isMsg = s.msg, true, true
			}
			if !ok {
				if err := s.skipValue(); err != nil {
					return err
				}
				return fmt.Errorf("unknown field %s, expected one of %s", quoted(s.unquote(key, false)), s.fieldNames(si))
			}
			if s.deny&(1<<i) != 0 {
				if err := s.skipValue(); err != nil {
					return err
				}
				return fmt.Errorf("field %q: a field of format 2 in a trace whose header says format 1, expected the frame in full", si.fields[i].name)
			}
			if present&(1<<i) != 0 {
				if s.msg > 0 && i == s.msg && isMsg != msgSeen {
					return errors.New(`fields "frame" and "msg" both set, expected one of them (a frame is written under one)`)
				}
				name := si.fields[i].name
				if isMsg {
					name = "msg"
				}
				return fmt.Errorf("field %s appears twice, expected each field once", quoted(name))
			}
			present |= 1 << i
			msgSeen = msgSeen || isMsg
			next = i + 1
			switch {
			case isMsg:
				err = s.rawFrame(v.Field(si.fields[i].index))
			case s.bytes&(1<<i) != 0 && s.peek() == '"':
				var raw []byte
				if raw, err = s.rawString(); err == nil {
					v.Field(si.fields[i].index).SetString(s.unquote(raw, true))
				}
			case s.repeat&(1<<i) != 0 && s.peek() == '"':
				err = s.recurring(v.Field(si.fields[i].index))
			default:
				err = s.scalar(v.Field(si.fields[i].index))
			}
			if err != nil {
				if _, ok := err.(*jsonSyntaxError); ok {
					return err
				}
				name := si.fields[i].name
				if isMsg {
					name = "msg"
				}
				return fmt.Errorf("field %q: %w", name, err)
			}
			s.skipSpace()
			c := s.peek()
			if c == ',' {
				s.pos++
				continue
			}
			if c == '}' {
				s.pos++
				break
			}
			return s.syntaxErr(fmt.Sprintf("unexpected %s after a value, expected ',' or '}'", s.shownByte()))
		}
	}
	s.skipSpace()
	if s.pos < len(s.data) {
		return errors.New("unexpected data after the JSON object, expected one JSON object per line")
	}
	s.present = present
	for i, f := range si.fields {
		if present&(1<<i) == 0 && !f.omitempty && s.optional&(1<<i) == 0 {
			return fmt.Errorf("missing field %q, expected fields %s", f.name, si.always)
		}
	}
	return nil
}

// fieldNames lists the fields a line may have, for messages.
func (s *lineScanner) fieldNames(si *structInfo) string {
	if s.msg == 0 && s.deny == 0 {
		return si.names
	}
	var names []string
	for i, f := range si.fields {
		if s.deny&(1<<i) == 0 {
			names = append(names, f.name)
		}
		if s.msg > 0 && i == s.msg {
			names = append(names, "msg")
		}
	}
	return strings.Join(names, ", ")
}

// rawFrame reads the JSON object or array at pos into v as its bytes: a
// format-2 frame under "msg".
func (s *lineScanner) rawFrame(v reflect.Value) error {
	start := s.pos
	if c := s.peek(); c != '{' && c != '[' {
		if err := s.skipValue(); err != nil {
			return err
		}
		return fmt.Errorf("expected a JSON object or array (a frame), got %s", shown(s.data[start:s.pos]))
	}
	if err := s.skipContainer(); err != nil {
		return err
	}
	raw := s.data[start:s.pos]
	if !utf8.Valid(raw) {
		return errors.New(`invalid UTF-8, expected a frame that is valid UTF-8 (any other is written under "frame")`)
	}
	v.SetString(string(raw))
	return nil
}

func (s *lineScanner) shownByte() string {
	if s.pos >= len(s.data) {
		return "end of line"
	}
	c := s.data[s.pos]
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

// recurring reads a string field whose values recur (repeat): its value
// from names when it was read before.
func (s *lineScanner) recurring(v reflect.Value) error {
	start := s.pos
	raw, err := s.rawString()
	if err != nil {
		return err
	}
	if v.Kind() != reflect.String {
		return s.typeErr(v, start)
	}
	if str, ok := s.names[string(raw)]; ok {
		v.SetString(str)
		return nil
	}
	str := s.unquote(raw, false)
	if len(raw) <= maxNameLen && len(s.names) < maxNames {
		if s.names == nil {
			s.names = maps.Clone(interned)
		}
		key := str // the value is its own key unless it was escaped
		if str != string(raw) {
			key = string(raw)
		}
		s.names[key] = str
	}
	v.SetString(str)
	return nil
}

// scalar decodes the value at pos into v (a string, integer or bool).
func (s *lineScanner) scalar(v reflect.Value) error {
	start := s.pos
	c := s.peek()
	switch {
	case c == '"':
		raw, err := s.rawString()
		if err != nil {
			return err
		}
		if v.Kind() != reflect.String {
			return s.typeErr(v, start)
		}
		v.SetString(s.unquote(raw, false))
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		num, err := s.number()
		if err != nil {
			return err
		}
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n, err := strconv.ParseInt(string(num), 10, v.Type().Bits())
			if err != nil {
				return intError(num, v.Type(), "an integer")
			}
			v.SetInt(n)
			return nil
		}
		return s.typeErr(v, start)
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(s.data)-s.pos >= len(lit) && string(s.data[s.pos:s.pos+len(lit)]) == lit {
				s.pos += len(lit)
				if v.Kind() == reflect.Bool && lit != "null" {
					v.SetBool(lit == "true")
					return nil
				}
				return s.typeErr(v, start)
			}
		}
		return s.syntaxErr("invalid literal, expected true, false or null")
	case c == '{' || c == '[':
		if err := s.skipValue(); err != nil {
			return err
		}
		return s.typeErr(v, start)
	}
	return s.syntaxErr(fmt.Sprintf("unexpected %s, expected a value", s.shownByte()))
}

func (s *lineScanner) typeErr(v reflect.Value, start int) error {
	got := shown(s.data[start:s.pos])
	switch v.Kind() {
	case reflect.String:
		return fmt.Errorf("expected a string, got %s", got)
	case reflect.Bool:
		return fmt.Errorf("expected true or false, got %s", got)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Errorf("expected a number, got %s", got)
	}
	return fmt.Errorf("cannot decode into a Go %s, expected a field type the trace reader knows", v.Type())
}

// number scans a JSON number at pos and returns its bytes.
func (s *lineScanner) number() ([]byte, error) {
	start := s.pos
	digits := func() int {
		n := 0
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if s.peek() == '-' {
		s.pos++
	}
	if s.peek() == '0' {
		s.pos++
	} else if digits() == 0 {
		return nil, s.syntaxErr("invalid number, expected digits")
	}
	if s.peek() == '.' {
		s.pos++
		if digits() == 0 {
			return nil, s.syntaxErr("invalid number, expected digits")
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.peek(); c == '+' || c == '-' {
			s.pos++
		}
		if digits() == 0 {
			return nil, s.syntaxErr("invalid number, expected digits")
		}
	}
	return s.data[start:s.pos], nil
}
