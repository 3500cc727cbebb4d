package properties

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/acpsim/acpsim/traces"
)

// The streaming Checker, fed one Event the caller overwrites after each Add,
// gives Check's report on every trace the anomaly pairs build.
func TestCheckerGivesChecksReportFromAReusedEvent(t *testing.T) {
	traces := map[string]*tb{"synthetic": synthetic(300)}
	for _, p := range pairs {
		traces[p.name+"/bad"], traces[p.name+"/good"] = p.bad(), p.good()
	}
	for name, b := range traces {
		want := Check(b.h, b.evs)
		c := NewChecker(b.h)
		var e, scribble = b.evs[0], b.evs[len(b.evs)-1]
		scribble.Frame = `{"jsonrpc":"2.0","method":"scribbled"}`
		for i := range b.evs {
			e = b.evs[i]
			c.Add(&e)
			e = scribble // what a caller reusing e writes next
		}
		got := c.Finish()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the Checker's report differs from Check's\nChecker:\n%s\nCheck:\n%s", name, dump(got), dump(want))
		}
	}
}

// Frames that open nothing (the Agent's chatter on a link) leave the
// checker's memory as it was: it keeps state per submission, session,
// request and link, never per frame.
func TestCheckerMemoryDoesNotGrowWithFrames(t *testing.T) {
	b := single{}.build()
	c := NewChecker(b.h)
	seq, tm := int64(0), int64(0)
	add := func(e traces.Event) {
		seq++
		tm += 10
		e.Seq, e.T = seq, tm
		c.Add(&e)
	}
	// The healthy run up to its observer, then chatter.
	for _, e := range b.evs[:len(b.evs)/2] {
		add(e)
	}
	chatter := agentMessage(`"still thinking about ` + K1[:8] + `"`)
	talk := func(n int) {
		for range n {
			f := traces.Event{Link: L1, From: "a1#1", To: "c1", Dir: traces.AgentToClient, Frame: chatter}
			f.Kind = traces.KindSend
			add(f)
			f.Kind = traces.KindDeliver
			add(f)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	talk(5_000)
	before := heap()
	talk(100_000)
	after := heap()
	runtime.KeepAlive(c)
	if grew := int64(after) - int64(before); grew > 256<<10 {
		t.Fatalf("the checker grew by %d bytes over 100,000 more frames sent", grew)
	}
	if r := c.Finish(); r.Stats.Frames != 105_000+b.countSends(len(b.evs)/2) {
		t.Fatalf("frames counted: %d", r.Stats.Frames)
	}
}

// countSends counts the send events among the first n.
func (b *tb) countSends(n int) int {
	k := 0
	for _, e := range b.evs[:n] {
		if e.Kind == traces.KindSend {
			k++
		}
	}
	return k
}

// What the Checker keeps of a frame is its own copy of the few strings a
// verdict needs (ids, keys, sessions, texts), never a slice of the frame:
// judging frames padded to 4 KB each takes no more memory than the
// submissions need.
func TestCheckerKeepsNoFrame(t *testing.T) {
	const n = 2000
	b := synthetic(n)
	pad := `"_meta":{"pad":"` + strings.Repeat("p", 4096) + `"},`
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	c := NewChecker(b.h)
	for i := range b.evs {
		e := b.evs[i]
		if e.Frame != "" && e.Frame[0] == '{' {
			e.Frame = "{" + pad + e.Frame[1:] // a new string for every event, as a decoder reads them
		}
		c.Add(&e)
	}
	grew := int64(heap()) - int64(before)
	runtime.KeepAlive(c)
	if perSub := grew / n; perSub > 4096 {
		t.Fatalf("the checker holds %d bytes per submission: it keeps frames", perSub)
	}
	if r := c.Finish(); !r.OK() || r.Stats.Submissions != n {
		t.Fatalf("the padded trace is not healthy:\n%s", dump(r))
	}
}

// A checker takes events or steps as it was made for, and says so when
// handed the other: steps of another interner would name another trace's
// links and submissions.
func TestACheckerTakesWhatItWasMadeFor(t *testing.T) {
	e := traces.Event{Seq: 1, Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: "x"}
	in := NewInterner(false)
	st := in.Step(&e)
	for _, c := range []struct {
		name, want string
		call       func()
	}{
		{"AddStep on NewChecker", "interns its events itself", func() { NewChecker(traces.Header{}).AddStep(&st) }},
		{"Add on NewStepChecker", "AddStep takes its steps", func() { NewStepChecker(traces.Header{}, in, 0).Add(&e) }},
		{"Add after Finish", "after Finish", func() { c := NewChecker(traces.Header{}); c.Finish(); c.Add(&e) }},
		{"AddStep after Finish", "after Finish", func() { c := NewStepChecker(traces.Header{}, in, 0); c.Finish(); c.AddStep(&st) }},
		{"AddStep of a hand-made Step", "not made by Interner.Step", func() {
			NewStepChecker(traces.Header{}, in, 0).AddStep(&Step{Event: &e, Link: -1, Sub: st.Sub})
		}},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), c.want) {
					t.Errorf("%s: panicked with %v, want a panic saying %q", c.name, r, c.want)
				}
			}()
			c.call()
		}()
	}
	// A malformed trace's submit naming no submission reads the empty
	// name's handle and adds none to the interner the caller gave.
	sc := NewStepChecker(traces.Header{}, in, 0)
	nameless := traces.Event{Seq: 2, Kind: traces.KindSubmit, Client: "c1", Text: "y"}
	step := in.Step(&nameless)
	n := in.Subs()
	sc.AddStep(&step)
	if r := sc.Finish(); in.Subs() != n || r.Stats.Submissions != 1 {
		t.Errorf("a nameless submission: the checker left the interner at %d handles (want %d) and counted %d submissions (want 1)", in.Subs(), n, r.Stats.Submissions)
	}
}

// A Checker keeps no string of the events it is handed (NewChecker, Add):
// its caller may drop or reuse them. Each event's strings here are cut
// from one buffer of its own; once every frame has been delivered, no
// buffer is still reachable but the last event's (whose frame the next
// Add would let go).
func TestACheckerKeepsNoStringOfItsEvents(t *testing.T) {
	b := noReply("", traces.EndQuiet) // connects, prompts, a session/list request, the observer's replay
	ch := NewChecker(b.h)
	var bufs []weak.Pointer[byte]
	for i := range b.evs {
		e, buf := ownedCopy(b.evs[i])
		bufs = append(bufs, buf)
		ch.Add(&e)
	}
	runtime.GC()
	runtime.GC()
	for i, p := range bufs[:len(bufs)-1] {
		if p.Value() != nil {
			t.Errorf("event %d (%s %s): the checker still holds a string of it", i+1, b.evs[i].Kind, b.evs[i].Frame)
		}
	}
	if r := ch.Finish(); len(r.Submissions) != 1 {
		t.Fatalf("judged %d submissions, want 1", len(r.Submissions))
	}
}

// ownedCopy is e with every string cut from one new buffer, and a weak
// pointer to that buffer.
func ownedCopy(e traces.Event) (traces.Event, weak.Pointer[byte]) {
	fields := []*string{&e.Kind, &e.Link, &e.From, &e.To, &e.Dir, &e.Frame, &e.Client, &e.Sub, &e.Text,
		&e.Outcome, &e.Session, &e.MessageID, &e.Decision, &e.Site, &e.Note}
	n := 1
	for _, f := range fields {
		n += len(*f)
	}
	buf := make([]byte, max(n, 64)) // not a tiny allocation, which shares its block with others
	at := 1                         // every string past the first byte, so none is the buffer's start alone
	for _, f := range fields {
		if *f == "" {
			continue
		}
		k := copy(buf[at:], *f)
		*f = unsafe.String(&buf[at], k)
		at += k
	}
	e.Digest = nil
	return e, weak.Make(&buf[0])
}
