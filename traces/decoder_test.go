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
	"testing"
)

// A Decoder gives the events Read gives, one at a time into a reused Event.
func TestDecoderGivesWhatReadGives(t *testing.T) {
	l := sampleLog()
	data := encode(t, l)
	d := NewDecoder(bytes.NewReader(data), "sample.ndjson")
	h, err := d.Header()
	if err != nil || !reflect.DeepEqual(h, l.Header) {
		t.Fatalf("header %+v, %v", h, err)
	}
	read, err := Read(bytes.NewReader(data), "sample.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var e Event
	for i := range l.Events {
		if err := d.Next(&e); err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(e, read.Events[i]) {
			t.Fatalf("event %d: got %+v, want %+v", i+1, e, read.Events[i])
		}
	}
	if err := d.Next(&e); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
	if d.Events() != int64(len(l.Events)) {
		t.Fatalf("Events() = %d, want %d", d.Events(), len(l.Events))
	}
}

// A line over the limit is refused with the limit in a one-line message,
// without reading the rest of it into memory: a file of zeros with no
// newline is not a trace.
func TestDecoderRefusesALineOverTheLimit(t *testing.T) {
	for _, tc := range []struct {
		name, input, want string
	}{
		{"header", strings.Repeat("\x00", 5000), "zeros:1: line longer than 1000 bytes, expected the header (one JSON object per line)"},
		{"event", hdr + `{"t":0,"seq":1,"kind":"heal","note":"` + strings.Repeat("x", 2000) + "\"}\n", "zeros:2: line longer than 1000 bytes, expected an event (one JSON object per line)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tc.input), "zeros")
			d.MaxLine = 1000
			var e Event
			err := d.Next(&e)
			var re *ReadError
			if !errors.As(err, &re) || err.Error() != tc.want {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	// A line of exactly the limit is fine.
	line := `{"t":0,"seq":1,"kind":"heal"}`
	d := NewDecoder(strings.NewReader(hdr+line+"\n"), "exact")
	d.MaxLine = max(len(line), len(hdr)-1)
	var e Event
	if err := d.Next(&e); err != nil {
		t.Fatal(err)
	}
}

// The limit holds for lines longer than the read buffer too.
func TestDecoderLimitsLongLines(t *testing.T) {
	d := NewDecoder(io.LimitReader(zeros{}, 10<<20), "big")
	d.MaxLine = 1 << 20
	_, err := d.Header()
	if err == nil || err.Error() != "big:1: line longer than 1048576 bytes, expected the header (one JSON object per line)" {
		t.Fatalf("got %v", err)
	}
	if cap(d.long) > 0 {
		t.Fatalf("the decoder still holds %d bytes of the refused line", cap(d.long))
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Checks a reader passes in are told as the format's own errors are: the
// file, the line, what the header or which event it was.
func TestCheckErrorsNameTheFileAndLine(t *testing.T) {
	l := sampleLog()
	data := encode(t, l)
	refuse := errors.New(`field "x": refused`)
	for _, tc := range []struct {
		name   string
		checks Checks
		want   string
	}{
		{"header", Checks{Header: func(*Header) error { return refuse }}, `s.ndjson:1: header: field "x": refused`},
		{"second event", Checks{Event: func(e *Event) error {
			if e.Seq == 2 {
				return refuse
			}
			return nil
		}}, "s.ndjson:3: " + l.Events[1].Kind + ` event: field "x": refused`},
	} {
		_, err := readChecked(bytes.NewReader(data), "s.ndjson", tc.checks)
		var re *ReadError
		if !errors.As(err, &re) || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
	if _, err := readChecked(bytes.NewReader(data), "s.ndjson", Checks{Header: func(*Header) error { return nil }, Event: func(*Event) error { return nil }}); err != nil {
		t.Errorf("checks that pass: %v", err)
	}
}

// Names that recur from line to line (a link, its endpoints, a Client, a
// note) are read once and kept (lineScanner.recurring): read again, plain
// or escaped, they are the values encoding/json reads, and a trace of more
// distinct names than the table holds is read right past its bound.
func TestDecoderReadsRecurringNamesAsJSONDoes(t *testing.T) {
	var lines strings.Builder
	lines.WriteString(hdr)
	links := []string{`"l1"`, `"l\u0031"`, `"l1"`, `"l\u00e9"`, `"lé"`, `"l\"q"`, `"l\"q"`, `"l\ud800"`, `"l\ud800"`,
		`"a\\b"`, `"a\b"`, `"a\\b"`, "\"l\xff\"", `"l\ufffd"`, "\"l\xff\"",
		`"` + strings.Repeat("long", 40) + `"`, `"` + strings.Repeat("long", 40) + `"`}
	for i := range maxNames + 100 {
		links = append(links, `"link-`+strconv.Itoa(i)+`"`)
	}
	links = append(links, `"l1"`, `"link-0"`, `"link-`+strconv.Itoa(maxNames+99)+`"`)
	for i, l := range links {
		fmt.Fprintf(&lines, `{"t":0,"seq":%d,"kind":"connect","link":%s,"from":"c","to":"a"}`+"\n", i+1, l)
	}
	d := NewDecoder(strings.NewReader(lines.String()), "names")
	var e Event
	for i, l := range links {
		if err := d.Next(&e); err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
		var want string
		if err := json.Unmarshal([]byte(l), &want); err != nil {
			t.Fatal(err)
		}
		if e.Link != want || e.From != "c" || e.To != "a" {
			t.Fatalf("event %d: link %q from %q to %q, want %q from \"c\" to \"a\"", i+1, e.Link, e.From, e.To, want)
		}
	}
	if n := len(d.sc.names); n != maxNames {
		t.Errorf("%d names kept, want the table full at %d", n, maxNames)
	}
	if _, kept := d.sc.names[strings.Repeat("long", 40)]; kept {
		t.Errorf("a name of %d bytes was kept, at most %d", 160, maxNameLen)
	}
}
