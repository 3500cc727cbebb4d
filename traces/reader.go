package traces

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// kindSpec says which fields an event of one kind must have. A string field
// is set when it is not empty, a number when it is greater than 0.
type kindSpec struct {
	kind     string
	required []string
	when     []condition
	// requiredAt are required's places in Event (fieldsAt), found once:
	// looking each name up for every line was a tenth of reading one.
	requiredAt []int
}

// condition requires more fields when field has value.
type condition struct {
	field, value string
	required     []string
	fieldAt      int
	requiredAt   []int
}

// fieldsAt are the places in si of the fields names, -1 for a name that is
// none of its fields.
func fieldsAt(si *structInfo, names ...string) []int {
	at := make([]int, len(names))
	for i, name := range names {
		at[i] = -1
		if j, ok := si.byName[name]; ok {
			at[i] = j
		}
	}
	return at
}

// valueCheck is a field that, when set, must hold one of values.
type valueCheck struct {
	name   string
	at     int // its place in the struct's structInfo
	values []string
}

// valueChecks are the checks of allowed, in the order of its names.
func valueChecks(si *structInfo, allowed map[string][]string) []valueCheck {
	var checks []valueCheck
	for _, name := range sortedKeys(allowed) {
		at := fieldsAt(si, name)[0]
		if at < 0 {
			panic("traces: a table of allowed values names an unknown field " + strconv.Quote(name))
		}
		checks = append(checks, valueCheck{name, at, allowed[name]})
	}
	return checks
}

var frameFields = []string{"link", "from", "to", "dir", "frame"}

// kindSpecs is the table the reader checks events against, from the
// comments on the Kind constants, in their order.
var kindSpecs = []kindSpec{
	{kind: KindSubmit, required: []string{"client", "sub", "text"}},
	{kind: KindSend, required: frameFields},
	{kind: KindDeliver, required: frameFields},
	{kind: KindDrop, required: append(frameFields[:len(frameFields):len(frameFields)], "note")},
	{kind: KindConnect, required: []string{"link", "from", "to"}},
	{kind: KindDisconnect, required: []string{"link"}},
	{kind: KindKill, required: []string{"from", "note"}},
	{kind: KindRestart, required: []string{"from"}},
	// An inserted outcome names its messageId in ACP v2; in v1 the
	// prompt's answer names none, so the field is not required here.
	{kind: KindOutcome, required: []string{"client", "sub", "outcome"}},
	{kind: KindHeal},
	{kind: KindEnd, required: []string{"note"}},
	{kind: KindChoose, required: []string{"decision", "site", "option"}},
	{kind: KindInsert, required: []string{"session", "messageId", "text"}},
	{kind: KindTimer, required: []string{"to", "note"}},
	{kind: KindStream, required: []string{"link", "note"}},
	{kind: KindRoute, required: []string{"link", "from", "to"}},
}

// fieldValues lists the values allowed for a field whenever it is set.
var fieldValues = map[string][]string{
	"dir":     {ClientToAgent, AgentToClient},
	"outcome": {OutcomeInserted, OutcomeFailed, OutcomeUnknown, OutcomeAbandoned},
}

// headerValues lists the values allowed for a header field.
var headerValues = map[string][]string{
	"source":   {SourceSeed, SourceSchedule},
	"observed": {ObservedAtProxy, ObservedAtTap},
}

var (
	eventValueChecks  = valueChecks(infoFor(eventType), fieldValues)
	headerValueChecks = valueChecks(infoFor(headerType), headerValues)
)

var (
	specByKind = func() map[string]*kindSpec {
		si := infoFor(eventType)
		m := make(map[string]*kindSpec, len(kindSpecs))
		for i := range kindSpecs {
			spec := &kindSpecs[i]
			spec.requiredAt = fieldsAt(si, spec.required...)
			for j := range spec.when {
				c := &spec.when[j]
				c.fieldAt, c.requiredAt = fieldsAt(si, c.field)[0], fieldsAt(si, c.required...)
			}
			m[spec.kind] = spec
		}
		return m
	}()
	kindList = func() string {
		var names []string
		for _, s := range kindSpecs {
			names = append(names, s.kind)
		}
		return strings.Join(names, ", ")
	}()
	eventType  = reflect.TypeFor[Event]()
	headerType = reflect.TypeFor[Header]()
)

// ReadError is an error found while reading a trace. Its message is one line:
// "NAME:LINE: what is wrong, what was expected", or "NAME: ..." when it is
// about the file as a whole (Line 0).
type ReadError struct {
	Name string
	Line int
	Msg  string
	Err  error // the underlying I/O error, if any
}

func (e *ReadError) Error() string {
	if e.Line == 0 {
		return oneLine(e.Name + ": " + e.Msg)
	}
	return oneLine(e.Name + ":" + strconv.Itoa(e.Line) + ": " + e.Msg)
}

func (e *ReadError) Unwrap() error { return e.Err }

// ReadFile reads the trace in the file at path. See Read.
func ReadFile(path string) (*Log, error) { return ReadFileChecked(path, Checks{}) }

// ReadFileChecked reads the trace in the file at path, with checks. See
// Read.
func ReadFileChecked(path string, checks Checks) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, &ReadError{Name: path, Msg: "is a directory, expected a trace file"}
	}
	return readChecked(f, path, checks)
}

// Read reads a whole trace from r (a Decoder reads it one event at a time),
// checking it strictly: the header comes first with a supported format (1
// or 2); every line is one JSON object with only known fields of the right
// types; events are numbered 1, 2, 3, ... with time never going backwards;
// every event has a known kind and the fields that kind needs (in format 2
// a delivery's taken from the send it names, which must be in flight); and
// the file ends with a newline. name is used in error messages, which are
// *ReadError.
func Read(r io.Reader, name string) (*Log, error) { return readChecked(r, name, Checks{}) }

func readChecked(r io.Reader, name string, checks Checks) (*Log, error) {
	d := NewDecoder(r, name)
	d.Checks = checks
	log := &Log{}
	var err error
	if log.Header, err = d.Header(); err != nil {
		return nil, err
	}
	for {
		log.Events = append(log.Events, Event{})
		switch err := d.Next(&log.Events[len(log.Events)-1]); err {
		case nil:
		case io.EOF:
			log.Events = log.Events[:len(log.Events)-1]
			if len(log.Events) == 0 {
				log.Events = nil
			}
			return log, nil
		default:
			return nil, err
		}
	}
}

func decodeHeader(line []byte, h *Header) error {
	// The format comes first: a file of another format may have other
	// fields, and that is what its reader should hear about.
	var format json.RawMessage
	err := eachMember(line, func(key string, val json.RawMessage) error {
		if key == "format" {
			format = val
		}
		return nil
	})
	if err != nil {
		return err
	}
	if format == nil {
		return fmt.Errorf(`missing field "format", expected the first line to be the header ({"format":%d,...})`, FormatVersion)
	}
	var f int
	if err := decodeValue(format, reflect.ValueOf(&f).Elem()); err != nil {
		return fmt.Errorf(`field "format": %w`, err)
	}
	if f != FormatVersion && f != FormatV1 {
		return fmt.Errorf("unsupported format %d, expected %d or %d", f, FormatV1, FormatVersion)
	}
	if err := decodeStruct(line, reflect.ValueOf(h).Elem(), nil); err != nil {
		return err
	}
	v := reflect.ValueOf(h).Elem()
	if err := checkValues(v, infoFor(headerType), headerValueChecks); err != nil {
		return err
	}
	if _, _, err := h.Contract.RetainLast(); err != nil {
		return fmt.Errorf(`field "contract": %w`, err)
	}
	if err := CheckSessionContract(h.Contract.Sessions); err != nil {
		return fmt.Errorf(`field "contract": %w`, err)
	}
	return nil
}

// seqField is Event's seq among the scanner's fields.
var seqField = uint64(1) << infoFor(eventType).byName["seq"]

// decodeEvent decodes line into e, using sc (set up for the trace's format),
// and checks it: Seq must be seq, T at least prevT, and the fields must be
// those the kind needs. fl, for a format-2 trace, is its sends in flight:
// a deliver or drop that names its send gets that send's frame.
func decodeEvent(sc *lineScanner, line []byte, e *Event, seq, prevT int64, fl *flight) error {
	v := reflect.ValueOf(e).Elem()
	si := infoFor(eventType)
	sc.data, sc.pos = line, 0
	if err := sc.decodeFlat(v, si); err != nil {
		return err
	}
	spec := specByKind[e.Kind]
	if spec == nil {
		return fmt.Errorf("unknown kind %s, expected one of %s", quoted(e.Kind), kindList)
	}
	if e.Seq != seq {
		switch {
		case sc.present&seqField == 0: // format 2: numbered by its line
			e.Seq = seq
		case sc.optional&seqField != 0:
			return fmt.Errorf(`field "seq": got %d, expected %d, its line's number (format 2 numbers events by their lines: a line was removed or added)`, e.Seq, seq)
		default:
			return fmt.Errorf(`field "seq": got %d, expected %d (events are numbered 1, 2, 3, ... in order)`, e.Seq, seq)
		}
	}
	if e.T < prevT {
		if seq == 1 {
			return fmt.Errorf(`field "t": got %d, expected a time of at least 0`, e.T)
		}
		return fmt.Errorf(`field "t": got %d, expected at least %d (time never goes backwards)`, e.T, prevT)
	}
	if fl != nil {
		if err := fl.resolve(e); err != nil {
			return err
		}
	}
	if err := checkValues(v, si, eventValueChecks); err != nil {
		return err
	}
	if err := checkRequired(v, si, spec.kind, " event", spec.required, spec.requiredAt); err != nil {
		return err
	}
	for _, c := range spec.when {
		if c.fieldAt < 0 {
			return fmt.Errorf("%s event: the reader's condition names an unknown field %q", spec.kind, c.field)
		}
		fv := v.Field(si.fields[c.fieldAt].index)
		if fv.Kind() == reflect.String && fv.String() == c.value {
			what := fmt.Sprintf(" event with %s %q", c.field, c.value)
			if err := checkRequired(v, si, spec.kind, what, c.required, c.requiredAt); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkValues checks that the string fields of checks (in order) hold one
// of their allowed values when they are set.
func checkValues(v reflect.Value, si *structInfo, checks []valueCheck) error {
	for _, c := range checks {
		s := v.Field(si.fields[c.at].index).String()
		if s == "" || contains(c.values, s) {
			continue
		}
		return fmt.Errorf("field %q: got %s, expected %s", c.name, quoted(s), alternatives(c.values))
	}
	return nil
}

// sortedKeys returns the keys of m in order, so that checks run in the same
// order every time.
func sortedKeys(m map[string][]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// checkRequired checks that the fields named are set: a string not empty, a
// number greater than 0, a bool true. kind+what says what the event is (in
// two, so that a line that passes builds no message).
func checkRequired(v reflect.Value, si *structInfo, kind, what string, names []string, at []int) error {
	for k, name := range names {
		i := at[k]
		if i < 0 {
			// A table names a field Event does not have: TestKindSpecs
			// catches this.
			return fmt.Errorf("%s%s: the reader requires an unknown field %q", kind, what, name)
		}
		fv := v.Field(si.fields[i].index)
		switch fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if fv.Int() <= 0 {
				return fmt.Errorf("%s%s: field %q: got %d, expected a number greater than 0", kind, what, name, fv.Int())
			}
		default:
			if fv.IsZero() {
				return fmt.Errorf("%s%s: missing field %q, expected fields %s", kind, what, name, strings.Join(names, ", "))
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// alternatives returns `"a" or "b"`, or `one of "a", "b", "c"`.
func alternatives(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	if len(q) == 2 {
		return q[0] + " or " + q[1]
	}
	return "one of " + strings.Join(q, ", ")
}

// Strip returns a copy of events without those whose Kind is in drop (for
// example Bookkeeping), to show a verdict does not depend on them. Seq is
// kept as it was, so the copy may have gaps.
func Strip(events []Event, drop map[string]bool) []Event {
	out := make([]Event, 0, len(events))
	for _, e := range events {
		if !drop[e.Kind] {
			out = append(out, e)
		}
	}
	return out
}
