package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// This file is a strict JSON decoder for the trace's structs: it rejects
// unknown and repeated fields, values of the wrong type, null where the
// writer never writes null, and missing fields that json.Marshal always
// writes (those without omitempty). Its errors are single lines that name the
// field and say what was expected.

// structField is one JSON field of a struct.
type structField struct {
	name      string
	index     int
	omitempty bool
}

// structInfo describes the JSON fields of a struct type.
type structInfo struct {
	fields []structField
	byName map[string]int // JSON name -> position in fields
	names  string         // "a, b, c": every field, for messages
	always string         // the fields without omitempty, for messages
}

var structInfos sync.Map // reflect.Type -> *structInfo

func infoFor(t reflect.Type) *structInfo {
	if si, ok := structInfos.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{byName: map[string]int{}}
	var names, always []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		sf := structField{name: name, index: i}
		for opt := range strings.SplitSeq(opts, ",") {
			if opt == "omitempty" {
				sf.omitempty = true
			}
		}
		si.byName[name] = len(si.fields)
		si.fields = append(si.fields, sf)
		names = append(names, name)
		if !sf.omitempty {
			always = append(always, name)
		}
	}
	si.names = strings.Join(names, ", ")
	si.always = strings.Join(always, ", ")
	actual, _ := structInfos.LoadOrStore(t, si)
	return actual.(*structInfo)
}

// eachMember calls fn for every member of the JSON object in data, in order,
// with the value's raw bytes. It fails if data is not exactly one JSON
// object, possibly surrounded by white space.
func eachMember(data []byte, fn func(key string, val json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("got %s, expected a JSON object", shown(bytes.TrimSpace(data)))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(err)
		}
		key, ok := tok.(string)
		if !ok {
			return errors.New("invalid JSON: expected a field name")
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return syntaxError(err)
		}
		if err := fn(key, val); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return syntaxError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON object, expected one JSON object per line")
	}
	return nil
}

func syntaxError(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("invalid JSON: unexpected end of line, expected one complete JSON object per line")
	}
	return fmt.Errorf("invalid JSON: %s, expected one JSON object per line", strings.TrimPrefix(err.Error(), "json: "))
}

// decodeStruct decodes the JSON object data into the struct v. If present is
// not nil, present[i] reports whether field i (in infoFor order) was there.
func decodeStruct(data []byte, v reflect.Value, present []bool) error {
	si := infoFor(v.Type())
	if present == nil {
		present = make([]bool, len(si.fields))
	}
	err := eachMember(data, func(key string, val json.RawMessage) error {
		i, ok := si.byName[key]
		if !ok {
			return fmt.Errorf("unknown field %s, expected one of %s", quoted(key), si.names)
		}
		if present[i] {
			return fmt.Errorf("field %s appears twice, expected each field once", quoted(key))
		}
		present[i] = true
		if err := decodeValue(val, v.Field(si.fields[i].index)); err != nil {
			return fmt.Errorf("field %s: %w", quoted(key), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, f := range si.fields {
		if !present[i] && !f.omitempty {
			return fmt.Errorf("missing field %q, expected fields %s", f.name, si.always)
		}
	}
	return nil
}

// decodeValue decodes the JSON value raw (already known to be valid JSON)
// into v.
func decodeValue(raw []byte, v reflect.Value) error {
	t := v.Type()
	c := byte(0)
	if len(raw) > 0 {
		c = raw[0]
	}
	isNumber := c == '-' || (c >= '0' && c <= '9')
	switch t.Kind() {
	case reflect.String:
		if c != '"' {
			return fmt.Errorf("expected a string, got %s", shown(raw))
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("expected a string, got %s", shown(raw))
		}
		v.SetString(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !isNumber {
			return fmt.Errorf("expected a number, got %s", shown(raw))
		}
		n, err := strconv.ParseInt(string(raw), 10, t.Bits())
		if err != nil {
			return intError(raw, t, "an integer")
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !isNumber {
			return fmt.Errorf("expected a number, got %s", shown(raw))
		}
		n, err := strconv.ParseUint(string(raw), 10, t.Bits())
		if err != nil {
			return intError(raw, t, "a non-negative integer")
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		if !isNumber {
			return fmt.Errorf("expected a number, got %s", shown(raw))
		}
		f, err := strconv.ParseFloat(string(raw), t.Bits())
		if err != nil {
			return fmt.Errorf("got %s, expected a number that fits in a float%d", shown(raw), t.Bits())
		}
		v.SetFloat(f)
	case reflect.Bool:
		switch string(raw) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return fmt.Errorf("expected true or false, got %s", shown(raw))
		}
	case reflect.Map:
		// json.Marshal writes a nil map as null.
		if string(raw) == "null" {
			v.SetZero()
			return nil
		}
		if c != '{' || t.Key().Kind() != reflect.String {
			return fmt.Errorf("expected an object, got %s", shown(raw))
		}
		m := reflect.MakeMap(t)
		err := eachMember(raw, func(key string, val json.RawMessage) error {
			k := reflect.ValueOf(key).Convert(t.Key())
			if m.MapIndex(k).IsValid() {
				return fmt.Errorf("key %s appears twice, expected each key once", quoted(key))
			}
			e := reflect.New(t.Elem()).Elem()
			if err := decodeValue(val, e); err != nil {
				return fmt.Errorf("key %s: %w", quoted(key), err)
			}
			m.SetMapIndex(k, e)
			return nil
		})
		if err != nil {
			return err
		}
		v.Set(m)
	case reflect.Slice:
		// json.Marshal writes a nil slice as null.
		if string(raw) == "null" {
			v.SetZero()
			return nil
		}
		if c != '[' {
			return fmt.Errorf("expected an array, got %s", shown(raw))
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return fmt.Errorf("expected an array, got %s", shown(raw))
		}
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i, el := range elems {
			if err := decodeValue(el, s.Index(i)); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		v.Set(s)
	case reflect.Struct:
		if c != '{' {
			return fmt.Errorf("expected an object, got %s", shown(raw))
		}
		return decodeStruct(raw, v, nil)
	default:
		// Only reached if a trace struct gains a field of a new type.
		return fmt.Errorf("cannot decode into a Go %s, expected a field type the trace reader knows", t)
	}
	return nil
}

// intError explains why the JSON number raw does not fit the integer type t.
func intError(raw []byte, t reflect.Type, what string) error {
	if bytes.ContainsAny(raw, ".eE") || (raw[0] == '-' && what != "an integer") {
		return fmt.Errorf("got %s, expected %s", shown(raw), what)
	}
	return fmt.Errorf("got %s, expected %s that fits in %d bits", shown(raw), what, t.Bits())
}

// maxShown is how many bytes of a value an error message shows.
const maxShown = 40

// shown returns raw JSON for an error message: cut short, valid UTF-8, and
// without line breaks.
func shown(raw []byte) string {
	s := string(raw)
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return oneLine(strings.ToValidUTF8(s, "\uFFFD"))
}

// quoted returns s as a Go-quoted string, cut short if long.
func quoted(s string) string {
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "..."
	}
	return strconv.Quote(s)
}

// oneLine replaces control characters so that s fits on one line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, `\x%02x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || r == '\u0085'
}
