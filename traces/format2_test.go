package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// lines writes l and returns its event lines (the header left out).
func lines(t fataler, l *Log) []string {
	t.Helper()
	out := strings.Split(strings.TrimSuffix(string(encode(t, l)), "\n"), "\n")
	return out[1:]
}

// Format 2 names a delivery's send when one with its frame is in flight on
// its link and direction, and writes the frame in full otherwise: changed
// on the way, delivered twice, delivered before it was sent, or lost with
// its link. A frame that is JSON is written as it is.
func TestFormat2Lines(t *testing.T) {
	const (
		f1 = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"a \"q\" <b> \u2028"}}`
		f2 = `[{"jsonrpc":"2.0","id":2},{"jsonrpc":"2.0","id":3}]`
		f3 = "not JSON \xff"
	)
	l := &Log{Header: sampleHeader()}
	add := func(e Event) { l.Append(e) }
	c2a := Event{Link: "l1", From: "c1", To: "a1", Dir: ClientToAgent}
	frame := func(kind, f string, set func(*Event)) {
		e := c2a
		e.Kind, e.Frame = kind, f
		if set != nil {
			set(&e)
		}
		add(e)
	}
	add(Event{Kind: KindConnect, Link: "l1", From: "c1", To: "a1"})
	frame(KindSend, f1, func(e *Event) { e.Sub = "s1" })                                        // 2
	frame(KindSend, f2, nil)                                                                    // 3
	frame(KindSend, f1, nil)                                                                    // 4: the same frame again
	frame(KindDeliver, f2, nil)                                                                 // names 3 (out of order)
	frame(KindDeliver, f1, func(e *Event) { e.Sub = "s1" })                                     // names 2, the first with f1; its sub is 2's
	frame(KindDrop, f1, func(e *Event) { e.Sub, e.Note = "s9", "cut" })                         // names 4; a sub 4 has not
	frame(KindDeliver, f1, nil)                                                                 // a second delivery: in full
	frame(KindDeliver, f1+" ", nil)                                                             // changed on the way: in full
	frame(KindSend, f3, func(e *Event) { e.From, e.To = "c1", "a2" })                           // 10: not the link's ends
	frame(KindDeliver, f3, func(e *Event) { e.From, e.To = "c9", "a2" })                        // names 10, from differs
	frame(KindSend, " "+f2, func(e *Event) { e.Dir, e.From, e.To = AgentToClient, "a1", "c1" }) // 12: white space before
	add(Event{Kind: KindDisconnect, Link: "l1", From: "c1", To: "a1", Note: "cut"})
	frame(KindDeliver, " "+f2, func(e *Event) { e.Dir, e.From, e.To = AgentToClient, "a1", "c1" }) // lost with the link: in full
	want := []string{
		`{"t":0,"kind":"connect","link":"l1","from":"c1","to":"a1"}`,
		`{"t":0,"kind":"send","link":"l1","dir":"c2a","msg":` + f1 + `,"sub":"s1"}`,
		`{"t":0,"kind":"send","link":"l1","dir":"c2a","msg":` + f2 + `}`,
		`{"t":0,"kind":"send","link":"l1","dir":"c2a","msg":` + f1 + `}`,
		`{"t":0,"kind":"deliver","send":3}`,
		`{"t":0,"kind":"deliver","send":2,"sub":"s1"}`,
		`{"t":0,"kind":"drop","send":4,"sub":"s9","note":"cut"}`,
		`{"t":0,"kind":"deliver","link":"l1","dir":"c2a","msg":` + f1 + `}`,
		`{"t":0,"kind":"deliver","link":"l1","dir":"c2a","frame":` + string(appendString(nil, f1+" ")) + `}`,
		`{"t":0,"kind":"send","link":"l1","from":"c1","to":"a2","dir":"c2a","frame":"not JSON \udcff"}`,
		`{"t":0,"kind":"deliver","from":"c9","send":10}`,
		`{"t":0,"kind":"send","link":"l1","dir":"a2c","frame":` + string(appendString(nil, " "+f2)) + `}`,
		`{"t":0,"kind":"disconnect","link":"l1","from":"c1","to":"a1","note":"cut"}`,
		`{"t":0,"kind":"deliver","link":"l1","from":"a1","to":"c1","dir":"a2c","frame":` + string(appendString(nil, " "+f2)) + `}`,
	}
	got := lines(t, l)
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			t.Fatalf("line %d:\n got: %s\nwant: %s", i+2, at(got, i), at(want, i))
		}
	}
	read, err := Read(bytes.NewReader(encode(t, l)), "f2.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutSend(read), l) {
		t.Fatalf("round trip differs:\n got: %+v\nwant: %+v", read.Events, l.Events)
	}
	if got, want := sendsOf(read), []string{"5>3", "6>2", "7>4", "11>10"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sends named %v, want %v", got, want)
	}
	// Written in format 1, the same events read back the same, Send aside.
	l.Header.Format = FormatV1
	v1, err := Read(bytes.NewReader(encode(t, l)), "f1.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	v1.Header.Format = FormatVersion
	l.Header.Format = FormatVersion
	// Format 1 turns the byte that is not UTF-8 into U+FFFD.
	l.Events[9].Frame = strings.ToValidUTF8(l.Events[9].Frame, "\uFFFD")
	l.Events[10].Frame = l.Events[9].Frame
	if !reflect.DeepEqual(v1, l) {
		t.Fatalf("format 1 reads back otherwise:\n got: %+v\nwant: %+v", v1.Events, l.Events)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// f2 is a format-2 header line, and a connect and a send on link l.
var (
	f2hdr  = withHeader("format", "2")
	f2open = `{"t":0,"seq":1,"kind":"connect","link":"l","from":"c","to":"a"}` + "\n" +
		`{"t":0,"seq":2,"kind":"send","link":"l","dir":"c2a","msg":{"id":1}}` + "\n"
	f1hdr = withHeader("format", "1")
)

// Format-2 traces that are not right, each with the error that says where
// and what was expected.
var malformed2 = []struct{ name, input, want string }{
	{"send names nothing", f2hdr + f2open + `{"t":0,"seq":3,"kind":"deliver","send":5}` + "\n",
		`a.ndjson:4: event: field "send": got 5, expected the seq of a send event still in flight (written before, not yet delivered or dropped, its link not disconnected)`},
	{"send names a connect", f2hdr + f2open + `{"t":0,"seq":3,"kind":"deliver","send":1}` + "\n", `a.ndjson:4: event: field "send": got 1, expected the seq of a send event still in flight`},
	{"send delivered twice", f2hdr + f2open + `{"t":0,"seq":3,"kind":"deliver","send":2}` + "\n" + `{"t":0,"seq":4,"kind":"deliver","send":2}` + "\n",
		`a.ndjson:5: event: field "send": got 2, expected the seq of a send event still in flight`},
	{"send lost with its link", f2hdr + f2open + `{"t":0,"seq":3,"kind":"disconnect","link":"l"}` + "\n" + `{"t":0,"seq":4,"kind":"drop","send":2,"note":"x"}` + "\n",
		`a.ndjson:5: event: field "send": got 2, expected the seq of a send event still in flight`},
	{"send not the first with its frame", f2hdr + f2open + `{"t":0,"seq":3,"kind":"send","link":"l","dir":"c2a","msg":{"id":1}}` + "\n" + `{"t":0,"seq":4,"kind":"deliver","send":3}` + "\n",
		`a.ndjson:5: event: field "send": got 3, expected 2, the first send in flight on its link and direction with the same frame`},
	{"send negative", f2hdr + f2open + `{"t":0,"seq":3,"kind":"deliver","send":-2}` + "\n", `a.ndjson:4: event: field "send": got -2, expected the seq of a send event still in flight`},
	{"send on a send", f2hdr + f2open + `{"t":0,"seq":3,"kind":"send","link":"l","dir":"c2a","msg":{},"send":2}` + "\n", `a.ndjson:4: event: field "send": set on a send event, expected it only on deliver and drop events`},
	{"send and msg", f2hdr + f2open + `{"t":0,"seq":3,"kind":"deliver","msg":{"id":1},"send":2}` + "\n", `a.ndjson:4: event: field "send" and a frame both set, expected one of them`},
	{"send on another link", f2hdr + f2open + `{"t":0,"seq":3,"kind":"deliver","link":"m","send":2}` + "\n", `a.ndjson:4: event: field "link": got "m", expected "l", the link of send 2 (or the field left out)`},
	{"send the other way", f2hdr + f2open + `{"t":0,"seq":3,"kind":"deliver","dir":"a2c","send":2}` + "\n", `a.ndjson:4: event: field "dir": got "a2c", expected "c2a", the direction of send 2 (or the field left out)`},
	{"send not a number", f2hdr + f2open + `{"t":0,"seq":3,"kind":"deliver","send":"2"}` + "\n", `a.ndjson:4: event: field "send": expected a number, got "2"`},
	{"msg a string", f2hdr + `{"t":0,"seq":1,"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","msg":"{}"}` + "\n", `a.ndjson:2: event: field "msg": expected a JSON object or array (a frame), got "{}"`},
	{"msg a number", f2hdr + `{"t":0,"seq":1,"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","msg":1}` + "\n", `a.ndjson:2: event: field "msg": expected a JSON object or array (a frame), got 1`},
	{"msg not UTF-8", f2hdr + "{\"t\":0,\"seq\":1,\"kind\":\"send\",\"link\":\"l\",\"from\":\"c\",\"to\":\"a\",\"dir\":\"c2a\",\"msg\":{\"a\":\"\xff\"}}\n", `a.ndjson:2: event: field "msg": invalid UTF-8, expected a frame that is valid UTF-8`},
	{"msg not JSON", f2hdr + `{"t":0,"seq":1,"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","msg":{"a":}}` + "\n", `a.ndjson:2: event: invalid JSON at byte`},
	{"msg and frame", f2hdr + `{"t":0,"seq":1,"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","frame":"x","msg":{}}` + "\n", `a.ndjson:2: event: fields "frame" and "msg" both set, expected one of them`},
	{"msg twice", f2hdr + `{"t":0,"seq":1,"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","msg":{},"msg":{}}` + "\n", `a.ndjson:2: event: field "msg" appears twice`},
	{"ends left out without a connect", f2hdr + `{"t":0,"seq":1,"kind":"send","link":"l","dir":"c2a","msg":{}}` + "\n", `a.ndjson:2: event: send event: missing field "from"`},
	{"ends left out after the disconnect", f2hdr + f2open + `{"t":0,"seq":3,"kind":"disconnect","link":"l"}` + "\n" + `{"t":0,"seq":4,"kind":"send","link":"l","dir":"c2a","msg":{}}` + "\n", `a.ndjson:5: event: send event: missing field "from"`},
	{"send in format 1", f1hdr + `{"t":0,"seq":1,"kind":"deliver","send":1}` + "\n", `a.ndjson:2: event: field "send": a field of format 2 in a trace whose header says format 1, expected the frame in full`},
	{"msg in format 1", f1hdr + `{"t":0,"seq":1,"kind":"send","msg":{}}` + "\n", `a.ndjson:2: event: unknown field "msg", expected one of t, seq, kind, link, from, to, dir, frame, client,`},
}

func TestReadMalformedFormat2(t *testing.T) {
	for _, tc := range malformed2 {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.input), "a.ndjson")
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, tc.want) {
				t.Errorf("error\n got: %q\nwant: %s...", msg, tc.want)
			}
		})
	}
}

// frameSeeds are frames at the edges of the two forms.
var frameSeeds = []string{
	`{}`, `[]`, `{"jsonrpc":"2.0","id":1}`, `[{"jsonrpc":"2.0","id":1},{"jsonrpc":"2.0","method":"m"}]`,
	` {"a":1}`, `{"a":1} `, "{\"a\":1}\n", "{\"a\":\n1}", "{\"a\":\r1}", "{\"a\":\t1}", `{ "a" : 1 }`,
	`{"a":"\u2028\u2029"}`, "{\"a\":\"\u2028\u2029\"}", `{"a":"\ud800"}`, `{"a":"\udcff"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\xed\xa0\x80\"}",
	`{"a":"<&>"}`, `{"a":"\\\"\/"}`, `"string"`, `1`, `null`, `{"a":1`, `{"a":1}}`, `{"a":1}{"b":2}`,
	"\xff", "\xdc\x80", "\\udcff", "not JSON", "", "\u2028", strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// checkFrameRoundTrip writes frame sent, delivered, sent, dropped, sent the
// other way and delivered after its link ended, reads it back byte for byte,
// and checks the form each line took.
func checkFrameRoundTrip(t fataler, frame string) {
	if frame == "" {
		return // no frame: nothing to write
	}
	l := &Log{Header: sampleHeader()}
	c2a := Event{Link: "l", From: "c", To: "a", Dir: ClientToAgent}
	a2c := Event{Link: "l", From: "a", To: "c", Dir: AgentToClient}
	l.Append(Event{Kind: KindConnect, Link: "l", From: "c", To: "a"})
	for _, step := range []struct {
		kind string
		e    Event
	}{{KindSend, c2a}, {KindDeliver, c2a}, {KindSend, c2a}, {KindDrop, c2a}, {KindSend, a2c}, {KindDisconnect, c2a}, {KindDeliver, a2c}} {
		e := step.e
		e.Kind = step.kind
		if step.kind != KindDisconnect {
			e.Frame = frame
		}
		if step.kind == KindDrop || step.kind == KindDisconnect {
			e.Note = "x"
		}
		l.Append(e)
	}
	data := encode(t, l)
	got, err := Read(bytes.NewReader(data), "f.ndjson")
	if err != nil {
		t.Fatalf("frame %q: %v\n%s", frame, err, data)
	}
	for i, e := range got.Events {
		if e.Frame != l.Events[i].Frame {
			t.Fatalf("frame %q, event %d: read back %q", frame, i+1, e.Frame)
		}
	}
	if !reflect.DeepEqual(withoutSend(got), l) {
		t.Fatalf("frame %q: round trip differs:\n got: %+v\nwant: %+v", frame, got.Events, l.Events)
	}
	if again := encode(t, got); !bytes.Equal(again, data) {
		t.Fatalf("frame %q: re-encoding differs:\n%s\n%s", frame, again, data)
	}
	// The form: "msg" exactly when the frame's bytes are recoverable from
	// the value.
	asMsg := json.Valid([]byte(frame)) && utf8.ValidString(frame) && (frame[0] == '{' || frame[0] == '[') &&
		strings.TrimSpace(frame) == frame && !strings.ContainsAny(frame, "\n\r")
	line := lines(t, l)[1]
	if hasMsg := strings.Contains(line, `,"msg":`) && !strings.Contains(line, `,"frame":`); hasMsg != asMsg {
		t.Fatalf("frame %q: written as %s, want msg=%v", frame, line, asMsg)
	}
	if asMsg != IsMsgFrame(frame) {
		t.Fatalf("frame %q: IsMsgFrame %v, want %v", frame, !asMsg, asMsg)
	}
}

func TestFrameRoundTrip(t *testing.T) {
	for _, s := range append(frameSeeds, trickyStrings...) {
		checkFrameRoundTrip(t, s)
	}
	rapid.Check(t, func(t *rapid.T) {
		checkFrameRoundTrip(t, rapid.OneOf(genTricky(), genJSONFrame()).Draw(t, "frame"))
	})
}

// genJSONFrame draws JSON objects and arrays with tricky strings in them,
// sometimes with white space.
func genJSONFrame() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		v := map[string]any{"jsonrpc": "2.0", "id": rapid.IntRange(-3, 1000).Draw(t, "id"), "s": rapid.StringOf(rapid.Rune()).Draw(t, "s")}
		var b []byte
		if rapid.Bool().Draw(t, "batch") {
			b, _ = json.Marshal([]any{v, v})
		} else {
			b, _ = json.Marshal(v)
		}
		if rapid.Bool().Draw(t, "indent") {
			var out bytes.Buffer
			json.Indent(&out, b, rapid.SampledFrom([]string{"", " ", "\r"}).Draw(t, "prefix"), rapid.SampledFrom([]string{" ", "\t"}).Draw(t, "indent"))
			b = bytes.ReplaceAll(out.Bytes(), []byte("\n"), []byte(rapid.SampledFrom([]string{" ", "\n", ""}).Draw(t, "nl")))
		}
		return string(b)
	})
}

func FuzzFrameRoundTrip(f *testing.F) {
	for _, s := range append(frameSeeds, trickyStrings...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		checkFrameRoundTrip(t, string(frame))
	})
}

// A random run of frames over a few links, sent, delivered (some twice,
// some changed, some out of order), dropped, and links ended and started
// again, reads back the same in both formats, and in format 2 every
// delivery is paired with the send the checker pairs it with: the first
// still in flight on its link and direction with its frame.
func TestFormat2PairsAsTheChecker(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		links := []string{"l1", "l2"}
		frames := []string{`{"id":1}`, `{"id":2}`, "garbage", `[{"id":1}]`}
		l := &Log{Header: sampleHeader()}
		type pend struct {
			seq   int64
			frame string
		}
		queues := map[string][]pend{} // the model: link/dir → sends in flight
		var want []string
		for _, link := range links {
			l.Append(Event{Kind: KindConnect, Link: link, From: "c", To: "a"})
		}
		for range rapid.IntRange(0, 40).Draw(t, "events") {
			link := rapid.SampledFrom(links).Draw(t, "link")
			dir := rapid.SampledFrom([]string{ClientToAgent, AgentToClient}).Draw(t, "dir")
			from, to := "c", "a"
			if dir == AgentToClient || rapid.IntRange(0, 9).Draw(t, "stranger") == 0 {
				from, to = "a", "c"
			}
			frame := rapid.SampledFrom(frames).Draw(t, "frame")
			key := link + "/" + dir
			seq := int64(len(l.Events)) + 1
			switch kind := rapid.SampledFrom([]string{KindSend, KindSend, KindDeliver, KindDrop, KindDisconnect, KindConnect}).Draw(t, "kind"); kind {
			case KindSend:
				l.Append(Event{Kind: kind, Link: link, From: from, To: to, Dir: dir, Frame: frame})
				queues[key] = append(queues[key], pend{seq, frame})
			case KindDeliver, KindDrop:
				l.Append(Event{Kind: kind, Link: link, From: from, To: to, Dir: dir, Frame: frame, Note: map[bool]string{true: "x"}[kind == KindDrop]})
				for i, p := range queues[key] {
					if p.frame == frame {
						want = append(want, fmt.Sprintf("%d>%d", seq, p.seq))
						queues[key] = append(queues[key][:i:i], queues[key][i+1:]...)
						break
					}
				}
			case KindDisconnect:
				l.Append(Event{Kind: kind, Link: link})
				delete(queues, link+"/"+ClientToAgent)
				delete(queues, link+"/"+AgentToClient)
			case KindConnect:
				l.Append(Event{Kind: kind, Link: link, From: "c", To: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "agent")})
			}
		}
		got, err := Read(bytes.NewReader(encode(t, l)), "f2.ndjson")
		if err != nil {
			t.Fatalf("%v\n%s", err, encode(t, l))
		}
		if !reflect.DeepEqual(withoutSend(got), l) {
			t.Fatalf("round trip differs:\n got: %+v\nwant: %+v", got.Events, l.Events)
		}
		if s := sendsOf(got); !slices.Equal(s, want) {
			t.Fatalf("sends named %v, the checker pairs %v\n%s", s, want, encode(t, l))
		}
		l.Header.Format = FormatV1
		v1, err := Read(bytes.NewReader(encode(t, l)), "f1.ndjson")
		if err != nil {
			t.Fatal(err)
		}
		l.Header.Format = FormatVersion
		v1.Header.Format = FormatVersion
		if !reflect.DeepEqual(v1, withoutSend(got)) {
			t.Fatal("format 1 and format 2 read back otherwise")
		}
	})
}

// endless writes a format-2 trace of n frames sent and delivered on 64
// links in turn, every tenth link ended (with a frame left in flight) and
// connected again: what a Decoder holds must stay with the frames in
// flight, whatever n.
type endless struct {
	n, i int
	seq  int64
	w    *Writer
	buf  bytes.Buffer
}

func (r *endless) Read(p []byte) (int, error) {
	for r.buf.Len() < len(p) && r.i < r.n {
		if r.w == nil {
			r.w = NewWriter(&r.buf)
			r.w.WriteHeader(sampleHeader())
		}
		link := fmt.Sprintf("l%d", r.i%64)
		ev := func(e Event) {
			r.seq++
			e.Seq, e.T, e.Link = r.seq, r.seq, link
			r.w.WriteEvent(&e)
		}
		frame := fmt.Sprintf(`{"id":%d}`, r.i)
		if r.i < 64 {
			ev(Event{Kind: KindConnect, From: "c", To: "a"})
		}
		ev(Event{Kind: KindSend, From: "c", To: "a", Dir: ClientToAgent, Frame: frame})
		if r.i%10 == 9 {
			ev(Event{Kind: KindDisconnect})
			ev(Event{Kind: KindConnect, From: "c", To: "a"})
		} else {
			ev(Event{Kind: KindDeliver, From: "c", To: "a", Dir: ClientToAgent, Frame: frame})
		}
		r.w.Flush()
		r.i++
	}
	if r.buf.Len() == 0 {
		return 0, io.EOF
	}
	return r.buf.Read(p)
}

func TestDecoderHoldsOnlyWhatIsInFlight(t *testing.T) {
	d := NewDecoder(&endless{n: 200_000}, "endless.ndjson")
	var e Event
	peak := 0
	for {
		err := d.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		peak = max(peak, len(d.fl.links), len(d.fl.ends), cap(d.fl.bySeq), len(d.fl.free))
	}
	if d.Events() < 400_000 || peak > 200 {
		t.Fatalf("%d events, at most %d links, ends, seqs or spare queues held at once: want at most 200", d.Events(), peak)
	}
}

func TestAppendWriterFormats(t *testing.T) {
	var b bytes.Buffer
	if err := NewAppendWriter(&b, 3).WriteEvent(&Event{Kind: KindHeal}); err == nil || !strings.Contains(err.Error(), "format 3") {
		t.Errorf("an append writer of format 3: %v, want an error naming the format", err)
	}
	// Format 1 is written as it was: no field of format 2, whatever the
	// event holds.
	w := NewAppendWriter(&b, FormatV1)
	for _, e := range []Event{
		{Seq: 1, Kind: KindSend, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: `{"id":1}`},
		{Seq: 2, Kind: KindDeliver, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: `{"id":1}`, Send: 1},
	} {
		if err := w.WriteEvent(&e); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	want := `{"t":0,"seq":1,"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","frame":"{\"id\":1}"}` + "\n" +
		`{"t":0,"seq":2,"kind":"deliver","link":"l","from":"c","to":"a","dir":"c2a","frame":"{\"id\":1}"}` + "\n"
	if b.String() != want {
		t.Errorf("format 1 appended:\n%s\nwant:\n%s", b.String(), want)
	}
}

// Format 2 numbers a new trace's events by their line, so the writer keeps
// no seq the reader would number otherwise; an appender writes each seq as
// it was given, after the trace's, and the reader takes lines with and
// without one alike.
func TestFormat2NumbersEventsByLine(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.WriteHeader(Header{Format: FormatVersion, Contract: Contract{Retention: "all"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEvent(&Event{Seq: 1, Kind: KindHeal}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEvent(&Event{Seq: 3, Kind: KindHeal}); err == nil || !strings.Contains(err.Error(), "event seq 3, expected 2") {
		t.Fatalf("a gap in a new format-2 trace: %v, want an error naming seq 3 and 2", err)
	}

	b.Reset()
	w = NewWriter(&b)
	if err := w.WriteHeader(Header{Format: FormatVersion, Contract: Contract{Retention: "all"}}); err != nil {
		t.Fatal(err)
	}
	w.WriteEvent(&Event{T: 1, Seq: 1, Kind: KindConnect, Link: "l", From: "c", To: "a"})
	w.WriteEvent(&Event{T: 2, Seq: 2, Kind: KindSend, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: `{"id":1}`})
	w.Flush()
	a := NewAppendWriter(&b, FormatVersion)
	a.WriteEvent(&Event{T: 3, Seq: 3, Kind: KindSend, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: `{"id":2}`})
	a.WriteEvent(&Event{T: 4, Seq: 4, Kind: KindDeliver, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: `{"id":2}`})
	a.Flush()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[1:]
	for i, want := range []string{
		`{"t":1,"kind":"connect","link":"l","from":"c","to":"a"}`,
		`{"t":2,"kind":"send","link":"l","dir":"c2a","msg":{"id":1}}`,
		`{"t":3,"seq":3,"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","msg":{"id":2}}`,
		`{"t":4,"seq":4,"kind":"deliver","send":3}`,
	} {
		if i >= len(lines) || lines[i] != want {
			t.Fatalf("line %d:\n got: %s\nwant: %s", i+2, at(lines, i), want)
		}
	}
	l, err := Read(&b, "t.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range l.Events {
		if e.Seq != int64(i+1) {
			t.Errorf("event %d read with seq %d", i+1, e.Seq)
		}
	}
	if len(l.Events) != 4 || l.Events[3].Send != 3 || l.Events[3].Frame != `{"id":2}` {
		t.Errorf("read %+v, want four events, the last delivering send 3's frame", l.Events)
	}
}

// A delivery keeps its own sub, none where it has none, whatever its
// send's: a format-2 trace reads as it did before each seq was left out.
func TestFormat2DeliveryKeepsItsOwnSub(t *testing.T) {
	l := &Log{Header: sampleHeader()}
	l.Append(Event{Kind: KindConnect, Link: "l", From: "c", To: "a"})
	l.Append(Event{Kind: KindSend, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: `{"id":1}`, Sub: "s1"})
	l.Append(Event{Kind: KindDeliver, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: `{"id":1}`})
	if got, want := lines(t, l)[2], `{"t":0,"kind":"deliver","send":2}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	read, err := Read(bytes.NewReader(encode(t, l)), "f2.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if e := read.Events[2]; e.Sub != "" || e.Send != 2 {
		t.Fatalf("read back %+v, want no sub and paired with send 2", e)
	}
}

// The end event keeps its seq, so a trace with a line taken out (or put
// in) is refused there, not read as other events: here, removing a heal
// would have a delivery name the other link's send.
func TestFormat2EndCountsTheLines(t *testing.T) {
	l := &Log{Header: sampleHeader()}
	l.Append(Event{Kind: KindConnect, Link: "l1", From: "c1", To: "a1"})
	l.Append(Event{Kind: KindConnect, Link: "l2", From: "c2", To: "a2"})
	l.Append(Event{Kind: KindHeal})
	l.Append(Event{Kind: KindSend, Link: "l1", From: "c1", To: "a1", Dir: ClientToAgent, Frame: `{"id":1}`})
	l.Append(Event{Kind: KindSend, Link: "l2", From: "c2", To: "a2", Dir: ClientToAgent, Frame: `{"id":2}`})
	l.Append(Event{Kind: KindDeliver, Link: "l1", From: "c1", To: "a1", Dir: ClientToAgent, Frame: `{"id":1}`})
	l.Append(Event{Kind: KindEnd, Note: EndQuiet})
	got := lines(t, l)
	if want := `{"t":0,"seq":7,"kind":"end","note":"quiet"}`; got[len(got)-1] != want {
		t.Fatalf("end line %s, want %s", got[len(got)-1], want)
	}
	if _, err := Read(bytes.NewReader(encode(t, l)), "f2.ndjson"); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(encode(t, l)), `{"t":0,"kind":"heal"}`+"\n", "", 1)
	_, err := Read(strings.NewReader(edited), "f2.ndjson")
	if err == nil || !strings.Contains(err.Error(), `f2.ndjson:7: event: field "seq": got 7, expected 6`) || !strings.Contains(err.Error(), "removed or added") {
		t.Fatalf("a line removed: %v, want the end's seq refused, naming lines removed or added", err)
	}
}

// A whole event is a line of format 2 with nothing left out and its send
// named too; a frame that is not JSON stays an escaped string.
func TestAppendEventWhole(t *testing.T) {
	e := Event{T: 5, Seq: 4, Kind: KindDeliver, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: `{"id":1}`, Send: 2, Sub: "s1"}
	if got, want := string(AppendEventWhole(nil, &e)), `{"t":5,"seq":4,"kind":"deliver","link":"l","from":"c","to":"a","dir":"c2a","msg":{"id":1},"send":2,"sub":"s1"}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	bad := Event{Seq: 1, Kind: KindSend, Link: "l", From: "c", To: "a", Dir: ClientToAgent, Frame: "not JSON\n"}
	if got, want := string(AppendEventWhole(nil, &bad)), `{"t":0,"seq":1,"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","frame":"not JSON\n"}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
