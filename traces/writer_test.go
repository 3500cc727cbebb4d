package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// trickyStrings are strings encoding/json escapes in all its ways.
var trickyStrings = []string{
	"",
	"plain",
	`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"text":"hi"}}`,
	`quote " and backslash \ and slash /`,
	"controls \x00\x01\x07\b\t\n\v\f\r\x1b\x1f end",
	"del \x7f",
	"html <script>&amp;</script> > <",
	"non-ASCII é ß 日本語 😀",
	"line separators \u2028 \u2029 and nel \u0085",
	"invalid utf-8 \xff \xc3 \xed\xa0\x80 \xf4\x90\x80\x80 end\xe2\x82",
	"replacement char \ufffd itself",
	"\xff",
	"\u2028",
	"trailing backslash \\",
}

// genTricky draws strings rich in the characters JSON escapes.
func genTricky() *rapid.Generator[string] {
	special := []rune{'"', '\\', '/', '<', '>', '&', '\n', '\r', '\t', '\b', '\f', 0, 1, 0x1f, 0x7f, 0x80, 0x85, 0xff,
		0x2028, 0x2029, 0xfffd, 'a', 'Z', ' ', 'é', '😀', utf8MaxRune}
	return rapid.OneOf(
		rapid.SampledFrom(trickyStrings),
		rapid.String(),
		rapid.StringOf(rapid.SampledFrom(special)),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
		rapid.Map(rapid.SliceOf(rapid.SampledFrom([]byte{0x80, 0xbf, 0xc3, 0xe2, 0xed, 0xf0, 0xf4, 0xff, '"', '\\', 'a', '<'})),
			func(b []byte) string { return string(b) }),
	)
}

const utf8MaxRune = '\U0010FFFF'

// genAnyEvent draws an Event with every field set at random (or left
// empty), whatever the kind. It walks Event's fields by reflection, so a new
// field is covered as soon as it is added, and a field of a new type fails
// the test until the encoder and this generator learn it.
func genAnyEvent(t *rapid.T) Event {
	var e Event
	v := reflect.ValueOf(&e).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		name := v.Type().Field(i).Name
		if v.Type().Field(i).Tag.Get("json") == "-" {
			continue // never written (Event.Digest)
		}
		empty := rapid.Bool().Draw(t, name+"Empty")
		switch f.Kind() {
		case reflect.String:
			if !empty {
				f.SetString(genTricky().Draw(t, name))
			}
		case reflect.Int, reflect.Int64:
			if !empty {
				f.SetInt(rapid.Int64Range(int64(minInt(f)), int64(maxInt(f))).Draw(t, name))
			}
		case reflect.Bool:
			f.SetBool(!empty)
		default:
			t.Fatalf("Event.%s has type %s, which this test (and AppendEvent) must learn", name, f.Type())
		}
	}
	return e
}

func minInt(f reflect.Value) int64 { return -1 << (f.Type().Bits() - 1) }
func maxInt(f reflect.Value) int64 { return 1<<(f.Type().Bits()-1) - 1 }

func TestAppendEventMatchesJSONMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := genAnyEvent(t)
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		got := AppendEvent(nil, &e)
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendEvent differs from json.Marshal\n got: %s\nwant: %s", got, want)
		}
	})
}

func TestAppendEventTrickyStrings(t *testing.T) {
	for _, s := range trickyStrings {
		e := Event{T: -1, Seq: 1 << 62, Kind: s, Link: s, Frame: s, Note: s, Option: -7, LostUnsynced: true}
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendEvent(nil, &e); !bytes.Equal(got, want) {
			t.Errorf("string %q:\n got: %s\nwant: %s", s, got, want)
		}
	}
	// Every byte value and every 2-byte sequence, alone and in context.
	for b := 0; b < 256; b++ {
		for _, s := range []string{string([]byte{byte(b)}), "x" + string([]byte{byte(b)}) + "y", string([]byte{byte(b), 0x80}), string([]byte{0xe2, 0x80, byte(b)})} {
			e := Event{Kind: s, Frame: s}
			want, _ := json.Marshal(e)
			if got := AppendEvent(nil, &e); !bytes.Equal(got, want) {
				t.Fatalf("bytes %x:\n got: %s\nwant: %s", s, got, want)
			}
		}
	}
}

func TestAppendEventZero(t *testing.T) {
	if got, want := string(AppendEvent(nil, &Event{})), `{"t":0,"seq":0,"kind":""}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestAppendEventNoAllocs(t *testing.T) {
	e := benchEvents[0]
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf = AppendEvent(buf[:0], &e) }); n != 0 {
		t.Errorf("AppendEvent allocates %v times per event, want 0", n)
	}
}

func TestWriterLines(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	h := sampleHeader()
	if err := w.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{T: 0, Seq: 1, Kind: KindSubmit, Client: "c1", Sub: "s1", Text: "hi <b>"},
		{T: 5, Seq: 2, Kind: KindSend, Link: "l1", From: "c1", To: "a1", Dir: ClientToAgent, Frame: "{\"x\":\"\n\"}"},
	}
	for i := range events {
		if err := w.WriteEvent(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != 0 {
		t.Errorf("wrote %d bytes before Flush, want them buffered", b.Len())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("want 3 newline-terminated lines, got %q", lines)
	}
	wantHeader, _ := json.Marshal(h)
	if lines[0] != string(wantHeader)+"\n" {
		t.Errorf("header line:\n got: %s\nwant: %s", lines[0], wantHeader)
	}
	for i, e := range events {
		// Format 2 leaves the seq out: it is the line's number.
		want, _ := json.Marshal(e)
		want = []byte(strings.Replace(string(want), fmt.Sprintf(`,"seq":%d`, e.Seq), "", 1))
		if lines[i+1] != string(want)+"\n" {
			t.Errorf("event line %d:\n got: %s\nwant: %s", i+1, lines[i+1], want)
		}
	}
	// Header maps come out sorted.
	if !strings.Contains(lines[0], `"rates":{"cut":0.05,"drop":0.1,"kill":0.01}`) {
		t.Errorf("header rates not sorted: %s", lines[0])
	}
}

func TestWriterMisuse(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	if err := w.WriteEvent(&Event{Kind: KindHeal}); err == nil {
		t.Error("WriteEvent before WriteHeader: want an error")
	}
	if err := w.WriteHeader(Header{Format: 0}); err == nil || !strings.Contains(err.Error(), "format 0") {
		t.Errorf("WriteHeader with format 0: got %v, want an error naming the format", err)
	}
	if err := w.WriteHeader(sampleHeader()); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(sampleHeader()); err == nil {
		t.Error("second WriteHeader: want an error")
	}
	if err := w.WriteEvent(nil); err == nil {
		t.Error("WriteEvent(nil): want an error")
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriterStickyError(t *testing.T) {
	w := NewWriter(&failWriter{})
	if err := w.WriteHeader(sampleHeader()); err != nil {
		t.Fatal(err) // buffered: no error yet
	}
	if err := w.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Flush: got %v, want disk full", err)
	}
	if err := w.WriteEvent(&Event{Kind: KindHeal}); err == nil {
		t.Error("WriteEvent after a failed Flush: want the error again")
	}
	var l Log
	l.Header = sampleHeader()
	l.Append(Event{Kind: KindHeal})
	if _, err := l.WriteTo(&failWriter{}); err == nil {
		t.Error("Log.WriteTo to a failing writer: want an error")
	}
}

func TestLogAppend(t *testing.T) {
	var l Log
	p := l.Append(Event{Seq: 99, Kind: KindHeal})
	if p.Seq != 1 || &l.Events[0] != p {
		t.Errorf("first Append: Seq %d, pointer to stored event %v", p.Seq, &l.Events[0] == p)
	}
	p = l.Append(Event{Kind: KindEnd, Note: "quiet"})
	p.T = 7
	if l.Events[1].Seq != 2 || l.Events[1].T != 7 {
		t.Errorf("second Append: got %+v", l.Events[1])
	}
}

func TestLogWriteToCount(t *testing.T) {
	l := sampleLog()
	var b bytes.Buffer
	n, err := l.WriteTo(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(b.Len()) {
		t.Errorf("WriteTo returned %d, wrote %d bytes", n, b.Len())
	}
}
