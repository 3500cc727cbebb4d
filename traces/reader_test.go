package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func sampleHeader() Header {
	return Header{
		Format: FormatVersion, Tool: "acpsim test", Source: "seed", Seed: 7,
		Policy: "retry", Agent: "reference", Link: "stdio",
		Clients: 2, Sessions: 1, Prompts: 3,
		Rates:         map[string]float64{"drop": 0.1, "kill": 0.01, "cut": 0.05},
		Knobs:         map[string]string{"replay": "all"},
		Contract:      Contract{Retention: "all", LiveOnly: []string{"agent_thought_chunk"}},
		KeyLengthUnit: "bytes",
		Command:       "acpsim run --seed 7",
	}
}

// sampleLog has one event of every kind.
func sampleLog() *Log {
	l := &Log{Header: sampleHeader()}
	frame := `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"a \"quoted\" <b>"}]}}`
	l.Append(Event{T: 0, Kind: KindConnect, Link: "l1", From: "c1", To: "a1"})
	l.Append(Event{T: 0, Kind: KindSubmit, Client: "c1", Sub: "s1", Text: "hello\nworld"})
	l.Append(Event{T: 10, Kind: KindChoose, Decision: "drop", Site: "l1", Option: 1})
	l.Append(Event{T: 10, Kind: KindSend, Link: "l1", From: "c1", To: "a1", Dir: ClientToAgent, Frame: frame, Sub: "s1"})
	l.Append(Event{T: 12, Kind: KindDrop, Link: "l1", From: "c1", To: "a1", Dir: ClientToAgent, Frame: frame, Note: "fault"})
	l.Append(Event{T: 15, Kind: KindSend, Link: "l1", From: "a1", To: "c1", Dir: AgentToClient, Frame: frame})
	l.Append(Event{T: 20, Kind: KindDeliver, Link: "l1", From: "a1", To: "c1", Dir: AgentToClient, Frame: frame})
	l.Append(Event{T: 21, Kind: KindInsert, From: "a1", Session: "sess1", MessageID: "m1", Text: "hello\nworld"})
	l.Append(Event{T: 22, Kind: KindTimer, To: "c1", Note: "retry"})
	l.Append(Event{T: 30, Kind: KindKill, From: "a1", Note: "killed before sync", LostUnsynced: true})
	l.Append(Event{T: 30, Kind: KindDisconnect, Link: "l1", From: "c1", To: "a1", Note: "kill"})
	l.Append(Event{T: 40, Kind: KindRestart, From: "a1"})
	l.Append(Event{T: 50, Kind: KindHeal})
	l.Append(Event{T: 60, Kind: KindOutcome, Client: "c1", Sub: "s1", Outcome: OutcomeInserted, MessageID: "m1"})
	l.Append(Event{T: 61, Kind: KindOutcome, Client: "c2", Sub: "s2", Outcome: OutcomeUnknown})
	l.Append(Event{T: 70, Kind: KindEnd, Note: "quiet"})
	return l
}

// fataler is what *testing.T and *rapid.T both offer.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func encode(t fataler, l *Log) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := l.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withoutSend returns a copy of l with every event's Send 0: what the
// simulator holds of a trace the reader gives back.
func withoutSend(l *Log) *Log {
	c := &Log{Header: l.Header, Events: slices.Clone(l.Events)}
	for i := range c.Events {
		c.Events[i].Send = 0
	}
	return c
}

// sendsOf lists the Send of every event that has one, as "seq>send".
func sendsOf(l *Log) []string {
	var out []string
	for _, e := range l.Events {
		if e.Send != 0 {
			out = append(out, fmt.Sprintf("%d>%d", e.Seq, e.Send))
		}
	}
	return out
}

func TestRoundTripSample(t *testing.T) {
	for _, format := range []int{FormatV1, FormatVersion} {
		l := sampleLog()
		l.Header.Format = format
		data := encode(t, l)
		got, err := Read(bytes.NewReader(data), "sample.ndjson")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(withoutSend(got), l) {
			t.Fatalf("format %d: round trip differs:\n got: %+v\nwant: %+v", format, got, l)
		}
		want := []string{"5>4", "7>6"} // the drop and the deliver name their sends
		if format == FormatV1 {
			want = nil
		}
		if s := sendsOf(got); !slices.Equal(s, want) {
			t.Errorf("format %d: sends named %v, want %v", format, s, want)
		}
		// And the bytes are stable.
		if again := encode(t, got); !bytes.Equal(again, data) {
			t.Fatalf("format %d: re-encoding differs:\n%s\n%s", format, again, data)
		}
	}
}

func TestRoundTripNilAndEmpty(t *testing.T) {
	for _, h := range []Header{
		{Format: FormatVersion, Contract: Contract{Retention: "all"}},
		{Format: FormatVersion, Rates: map[string]float64{}, Knobs: map[string]string{}, Contract: Contract{Retention: "last 3", LiveOnly: []string{}}},
	} {
		l := &Log{Header: h}
		got, err := Read(bytes.NewReader(encode(t, l)), "h.ndjson")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, l) {
			t.Errorf("round trip differs:\n got: %#v\nwant: %#v", got, l)
		}
	}
}

// genValidLog draws a trace the reader must accept.
func genValidLog(t *rapid.T) *Log {
	text := rapid.String() // valid UTF-8: survives the JSON round trip as is
	nonEmpty := rapid.StringN(1, 20, -1)
	optional := func(label string) string {
		if rapid.Bool().Draw(t, label+"Set") {
			return text.Draw(t, label)
		}
		return ""
	}
	l := &Log{Header: Header{
		Format:        FormatVersion,
		Tool:          text.Draw(t, "tool"),
		Source:        rapid.SampledFrom([]string{"seed", "schedule"}).Draw(t, "source"),
		Seed:          rapid.Uint64().Draw(t, "seed"),
		Policy:        text.Draw(t, "policy"),
		Agent:         text.Draw(t, "agent"),
		Link:          text.Draw(t, "link"),
		Clients:       rapid.Int().Draw(t, "clients"),
		Sessions:      rapid.Int().Draw(t, "sessions"),
		Prompts:       rapid.Int().Draw(t, "prompts"),
		KeyLengthUnit: text.Draw(t, "unit"),
		Command:       text.Draw(t, "command"),
	}}
	if rapid.Bool().Draw(t, "ratesSet") {
		l.Header.Rates = rapid.MapOf(text, rapid.Float64Range(-1e300, 1e300)).Draw(t, "rates")
	}
	if rapid.Bool().Draw(t, "knobsSet") {
		l.Header.Knobs = rapid.MapOf(text, text).Draw(t, "knobs")
	}
	l.Header.Contract.Retention = rapid.OneOf(rapid.Just("all"), rapid.Map(rapid.IntRange(1, 1000), func(n int) string { return fmt.Sprintf("last %d", n) })).Draw(t, "retention")
	if rapid.Bool().Draw(t, "liveSet") {
		l.Header.Contract.LiveOnly = rapid.SliceOf(text).Draw(t, "liveOnly")
	}
	var now int64
	n := rapid.IntRange(0, 30).Draw(t, "events")
	for range n {
		now += rapid.Int64Range(0, 1e9).Draw(t, "dt")
		spec := rapid.SampledFrom(kindSpecs).Draw(t, "kind")
		e := Event{
			T: now, Kind: spec.kind,
			Link: optional("link"), From: optional("from"), To: optional("to"),
			Dir:   rapid.SampledFrom([]string{"", ClientToAgent, AgentToClient}).Draw(t, "dir"),
			Frame: optional("frame"), Client: optional("client"), Sub: optional("sub"), Text: optional("text"),
			Outcome:   rapid.SampledFrom(append([]string{""}, fieldValues["outcome"]...)).Draw(t, "outcome"),
			Session:   optional("session"),
			MessageID: optional("messageId"), Decision: optional("decision"), Site: optional("site"),
			Option:       rapid.IntRange(0, 10).Draw(t, "option"),
			LostUnsynced: rapid.Bool().Draw(t, "lost"),
			Note:         optional("note"),
		}
		v := reflect.ValueOf(&e).Elem()
		si := infoFor(eventType)
		required := spec.required
		for _, c := range spec.when {
			required = append(required[:len(required):len(required)], c.required...)
		}
		for _, r := range required {
			f := v.Field(si.fields[si.byName[r]].index)
			switch {
			case r == "dir":
				f.SetString(rapid.SampledFrom([]string{ClientToAgent, AgentToClient}).Draw(t, "dir!"))
			case r == "outcome":
				f.SetString(rapid.SampledFrom(fieldValues["outcome"]).Draw(t, "outcome!"))
			case f.Kind() == reflect.String && f.String() == "":
				f.SetString(nonEmpty.Draw(t, r+"!"))
			case f.Kind() == reflect.Int && f.Int() <= 0:
				f.SetInt(rapid.Int64Range(1, 1<<40).Draw(t, r+"!"))
			}
		}
		if e.Kind == KindOutcome && e.Outcome == OutcomeInserted && e.MessageID == "" {
			e.MessageID = nonEmpty.Draw(t, "messageId!")
		}
		l.Append(e)
	}
	return l
}

func TestRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := genValidLog(t)
		var b bytes.Buffer
		if _, err := l.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		got, err := Read(bytes.NewReader(b.Bytes()), "gen.ndjson")
		if err != nil {
			t.Fatalf("Read: %v\n%s", err, b.Bytes())
		}
		if len(l.Events) == 0 {
			l.Events = nil // Read leaves no events as nil
		}
		if got.Events != nil {
			got = withoutSend(got)
		}
		if !reflect.DeepEqual(got, l) {
			t.Fatalf("round trip differs:\n got: %#v\nwant: %#v", got, l)
		}
	})
}

func TestReadLongLines(t *testing.T) {
	l := &Log{Header: sampleHeader()}
	for _, n := range []int{4095, 4096, 65535, 65536, 1 << 20, 3<<20 + 17} {
		frame := strings.Repeat("x\"<", n/3) + strings.Repeat("y", n%3)
		l.Append(Event{T: int64(n), Kind: KindSend, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: frame})
	}
	data := encode(t, l)
	got, err := Read(bytes.NewReader(data), "long.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutSend(got), l) {
		t.Fatal("long lines do not round trip")
	}
	// An error after the long lines has the right line number.
	data = append(data, `{"t":1,"seq":7,"kind":"heal"}`+"\n"...)
	_, err = Read(bytes.NewReader(data), "long.ndjson")
	if err == nil || !strings.HasPrefix(err.Error(), "long.ndjson:8: event: ") {
		t.Fatalf("got %v, want an error at line 8", err)
	}
}

func TestReadCRLF(t *testing.T) {
	data := strings.ReplaceAll(string(encode(t, sampleLog())), "\n", "\r\n")
	if _, err := Read(strings.NewReader(data), "crlf.ndjson"); err != nil {
		t.Fatalf("CRLF line ends: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ndjson")
	l := sampleLog()
	if err := os.WriteFile(good, encode(t, l), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutSend(got), l) {
		t.Error("ReadFile does not give back what was written")
	}

	// A trace cut off in the middle of its last line.
	data := encode(t, l)
	cut := filepath.Join(dir, "cut.ndjson")
	if err := os.WriteFile(cut, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(cut)
	want := cut + ":17: truncated line (no newline at end of file): the trace was cut off while being written"
	if err == nil || err.Error() != want {
		t.Errorf("truncated file:\n got: %v\nwant: %s", err, want)
	}

	_, err = ReadFile(dir)
	if want := dir + ": is a directory, expected a trace file"; err == nil || err.Error() != want {
		t.Errorf("directory:\n got: %v\nwant: %s", err, want)
	}

	missing := filepath.Join(dir, "missing.ndjson")
	_, err = ReadFile(missing)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: got %v, want a one-line not-exist error naming the file", err)
	}
}

// TestKindSpecs checks the required-field table against Event and the Kind
// constants.
func TestKindSpecs(t *testing.T) {
	kinds := []string{KindSubmit, KindSend, KindDeliver, KindDrop, KindConnect, KindDisconnect, KindKill,
		KindRestart, KindOutcome, KindHeal, KindEnd, KindChoose, KindInsert, KindTimer, KindStream, KindRoute}
	if len(kindSpecs) != len(kinds) {
		t.Errorf("kindSpecs has %d kinds, event.go %d", len(kindSpecs), len(kinds))
	}
	si := infoFor(eventType)
	for _, k := range kinds {
		spec := specByKind[k]
		if spec == nil {
			t.Errorf("kind %q has no entry in kindSpecs", k)
			continue
		}
		var fields []string
		fields = append(fields, spec.required...)
		for _, c := range spec.when {
			fields = append(fields, c.field)
			fields = append(fields, c.required...)
		}
		for _, f := range fields {
			if _, ok := si.byName[f]; !ok {
				t.Errorf("kind %q names field %q, which Event does not have", k, f)
			}
		}
	}
	for f := range fieldValues {
		if _, ok := si.byName[f]; !ok {
			t.Errorf("fieldValues names field %q, which Event does not have", f)
		}
	}
	for f := range headerValues {
		if _, ok := infoFor(headerType).byName[f]; !ok {
			t.Errorf("headerValues names field %q, which Header does not have", f)
		}
	}
	// A minimal event of each kind, built from the table, is accepted.
	l := &Log{Header: sampleHeader()}
	for _, spec := range kindSpecs {
		e := Event{Kind: spec.kind}
		v := reflect.ValueOf(&e).Elem()
		for _, f := range spec.required {
			fv := v.Field(si.fields[si.byName[f]].index)
			switch f {
			case "dir":
				fv.SetString(ClientToAgent)
			case "outcome":
				fv.SetString(OutcomeFailed)
			default:
				if fv.Kind() == reflect.String {
					fv.SetString("x")
				} else {
					fv.SetInt(1)
				}
			}
		}
		l.Append(e)
	}
	if _, err := Read(bytes.NewReader(encode(t, l)), "min.ndjson"); err != nil {
		t.Error(err)
	}
}

func TestStrip(t *testing.T) {
	l := sampleLog()
	before := append([]Event(nil), l.Events...)
	got := Strip(l.Events, Bookkeeping)
	for _, e := range got {
		if Bookkeeping[e.Kind] {
			t.Errorf("Strip kept a %s event", e.Kind)
		}
	}
	if want := len(l.Events) - 3; len(got) != want { // one choose, one insert, one timer
		t.Errorf("Strip kept %d events, want %d", len(got), want)
	}
	if !reflect.DeepEqual(l.Events, before) {
		t.Error("Strip changed its input")
	}
	if len(got) > 0 {
		got[0].Note = "changed"
		if l.Events[0].Note == "changed" {
			t.Error("Strip's result shares memory with its input")
		}
	}
	if all := Strip(l.Events, nil); !reflect.DeepEqual(all, l.Events) {
		t.Error("Strip with no kinds to drop is not a copy")
	}
}

func FuzzRead(f *testing.F) {
	for _, tc := range malformed {
		f.Add([]byte(tc.input))
	}
	for _, tc := range malformed2 {
		f.Add([]byte(tc.input))
	}
	for _, format := range []int{FormatV1, FormatVersion} {
		l := sampleLog()
		l.Header.Format = format
		var b bytes.Buffer
		if _, err := l.WriteTo(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(bytes.NewReader(data), "fuzz.ndjson")
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, "fuzz.ndjson:") {
				t.Fatalf("error does not start with the file name: %q", msg)
			}
			if l != nil {
				t.Fatal("got a Log along with an error")
			}
			return
		}
		// What was accepted writes back and reads again to the same Log.
		var out bytes.Buffer
		if _, err := l.WriteTo(&out); err != nil {
			t.Fatalf("writing an accepted trace: %v", err)
		}
		again, err := Read(bytes.NewReader(out.Bytes()), "again.ndjson")
		if err != nil {
			t.Fatalf("re-reading an accepted trace: %v\n%s", err, out.Bytes())
		}
		if !reflect.DeepEqual(again, l) {
			t.Fatalf("accepted trace does not round trip:\n%#v\n%#v", l, again)
		}
	})
}
