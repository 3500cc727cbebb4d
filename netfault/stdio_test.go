package netfault_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

const ms = time.Millisecond

// recorder keeps the events a pipe records, stamped with the virtual time.
type recorder struct {
	loop   *sim.Loop
	events []traces.Event
}

func (r *recorder) Record(e traces.Event) {
	e.T = r.loop.Now().Microseconds()
	e.Seq = int64(len(r.events) + 1)
	r.events = append(r.events, e)
}

// short renders events as "kind dir frame note" for comparisons.
func (r *recorder) short() []string {
	var out []string
	for _, e := range r.events {
		s := e.Kind
		for _, f := range []string{e.Dir, e.Frame, e.Note} {
			if f != "" {
				s += " " + f
			}
		}
		out = append(out, s)
	}
	return out
}

// rig is a pipe "p" between client "c" and agent "a" with 1ms latency. Its
// chooser answers from faults (by Decision site and kind) and logs every
// decision asked.
type rig struct {
	loop     sim.Loop
	rec      *recorder
	pipe     *netfault.Pipe
	faults   map[string]int // "kind site" → option
	asked    []sim.Decision
	got      []string // "c2a frame@time" / "a2c frame@time"
	cuts     int
	closings int
}

func newRig() *rig {
	r := &rig{faults: map[string]int{}}
	r.rec = &recorder{loop: &r.loop}
	choose := func(d sim.Decision) int {
		r.asked = append(r.asked, d.Named())
		return r.faults[d.Kind+" "+d.Where()]
	}
	r.pipe = netfault.NewPipe("p", "c", "a", &r.loop, choose, r.rec, 1*ms)
	r.pipe.ToAgent = func(b []byte, _ *acp.Digest) { r.got = append(r.got, fmt.Sprintf("c2a %s@%v", b, r.loop.Now())) }
	r.pipe.ToClient = func(b []byte, _ *acp.Digest) { r.got = append(r.got, fmt.Sprintf("a2c %s@%v", b, r.loop.Now())) }
	r.pipe.OnCut = func() { r.cuts++ }
	r.pipe.OnClosed = func() { r.closings++ }
	return r
}

func (r *rig) run() { r.loop.RunUntil(time.Hour, nil) }

func TestPipeConnectEvent(t *testing.T) {
	r := newRig()
	want := []traces.Event{{T: 0, Seq: 1, Kind: traces.KindConnect, Link: "p", From: "c", To: "a"}}
	if !reflect.DeepEqual(r.rec.events, want) {
		t.Errorf("events = %+v, want %+v", r.rec.events, want)
	}
	if !r.pipe.Alive() {
		t.Error("a new pipe is not alive")
	}
}

func TestPipeDeliversAfterLatency(t *testing.T) {
	r := newRig()
	r.pipe.SendToAgent([]byte("req"), "sub-1")
	r.pipe.SendToClient([]byte("resp"))
	r.run()
	if want := []string{"c2a req@1ms", "a2c resp@1ms"}; !reflect.DeepEqual(r.got, want) {
		t.Errorf("arrived %v, want %v", r.got, want)
	}
	want := []traces.Event{
		{T: 0, Seq: 1, Kind: traces.KindConnect, Link: "p", From: "c", To: "a"},
		{T: 0, Seq: 2, Kind: traces.KindSend, Link: "p", From: "c", To: "a", Dir: traces.ClientToAgent, Frame: "req", Sub: "sub-1"},
		{T: 0, Seq: 3, Kind: traces.KindSend, Link: "p", From: "a", To: "c", Dir: traces.AgentToClient, Frame: "resp"},
		{T: 1000, Seq: 4, Kind: traces.KindDeliver, Link: "p", From: "c", To: "a", Dir: traces.ClientToAgent, Frame: "req", Sub: "sub-1"},
		{T: 1000, Seq: 5, Kind: traces.KindDeliver, Link: "p", From: "a", To: "c", Dir: traces.AgentToClient, Frame: "resp"},
	}
	if !reflect.DeepEqual(r.rec.events, want) {
		t.Errorf("events:\n got %+v\nwant %+v", r.rec.events, want)
	}
	if r.cuts != 0 || r.closings != 0 || !r.pipe.Alive() {
		t.Errorf("healthy pipe: cuts %d, closings %d, alive %v", r.cuts, r.closings, r.pipe.Alive())
	}
}

func TestPipeAsksCutThenDelayPerFrame(t *testing.T) {
	r := newRig()
	r.pipe.SendToAgent([]byte("x"), "")
	r.pipe.SendToAgent([]byte("y"), "")
	r.pipe.SendToClient([]byte("z"))
	want := []sim.Decision{
		{Kind: netfault.Cut, Site: "p/c2a/1", N: 2},
		{Kind: netfault.Delay, Site: "p/c2a/1", N: len(netfault.DelaySteps)},
		{Kind: netfault.Cut, Site: "p/c2a/2", N: 2},
		{Kind: netfault.Delay, Site: "p/c2a/2", N: len(netfault.DelaySteps)},
		{Kind: netfault.Cut, Site: "p/a2c/1", N: 2},
		{Kind: netfault.Delay, Site: "p/a2c/1", N: len(netfault.DelaySteps)},
	}
	if !reflect.DeepEqual(r.asked, want) {
		t.Errorf("decisions asked:\n got %+v\nwant %+v", r.asked, want)
	}
}

func TestPipeKeepsOrderBehindADelayedFrame(t *testing.T) {
	r := newRig()
	r.faults["delay p/c2a/1"] = 4 // 1500ms
	r.faults["delay p/c2a/3"] = 1 // 2ms: still behind frame 1
	r.pipe.SendToAgent([]byte("1"), "")
	r.loop.After(5*ms, func() {
		r.pipe.SendToAgent([]byte("2"), "")
		r.pipe.SendToAgent([]byte("3"), "")
		r.pipe.SendToClient([]byte("r")) // the other direction is not held up
	})
	r.loop.After(2000*ms, func() { r.pipe.SendToAgent([]byte("4"), "") })
	r.run()
	want := []string{"a2c r@6ms", "c2a 1@1.501s", "c2a 2@1.501s", "c2a 3@1.501s", "c2a 4@2.001s"}
	if !reflect.DeepEqual(r.got, want) {
		t.Errorf("arrived %v, want %v", r.got, want)
	}
}

func TestPipeDelayOptions(t *testing.T) {
	for opt, extra := range netfault.DelaySteps {
		r := newRig()
		r.faults["delay p/a2c/1"] = opt
		r.pipe.SendToClient([]byte("f"))
		r.run()
		if want := []string{fmt.Sprintf("a2c f@%v", 1*ms+extra)}; !reflect.DeepEqual(r.got, want) {
			t.Errorf("delay option %d: arrived %v, want %v", opt, r.got, want)
		}
	}
}

func TestPipeCutDropsFrameAndEverythingInFlight(t *testing.T) {
	r := newRig()
	r.faults["delay p/c2a/1"] = 2 // 30ms: still in flight at the cut
	r.pipe.SendToAgent([]byte("early"), "s1")
	r.pipe.SendToClient([]byte("update"))
	r.loop.After(10*ms, func() {
		r.faults["cut p/c2a/2"] = 1
		r.pipe.SendToAgent([]byte("fatal"), "s2")
	})
	r.run()

	if len(r.got) != 1 || r.got[0] != "a2c update@1ms" {
		t.Errorf("arrived %v, want only the update delivered before the cut", r.got)
	}
	want := []string{
		"connect",
		"send c2a early",
		"send a2c update",
		"deliver a2c update",
		"send c2a fatal",
		"drop c2a early cut",
		"drop c2a fatal cut",
		"disconnect cut",
	}
	if got := r.rec.short(); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if r.cuts != 1 || r.closings != 1 {
		t.Errorf("OnCut called %d times, OnClosed %d; want once each", r.cuts, r.closings)
	}
	if r.pipe.Alive() {
		t.Error("pipe alive after a cut")
	}
	for _, e := range r.rec.events {
		if e.Kind == traces.KindDrop && e.Frame == "fatal" && (e.Sub != "s2" || e.From != "c" || e.To != "a" || e.Link != "p" || e.T != 10000) {
			t.Errorf("drop of the cut frame: %+v", e)
		}
		if e.Kind == traces.KindDisconnect && (e.Link != "p" || e.From != "c" || e.To != "a" || e.T != 10000) {
			t.Errorf("disconnect: %+v", e)
		}
	}
	// A pipe ends once: a later close does nothing.
	n := len(r.rec.events)
	r.pipe.Close("kill")
	if len(r.rec.events) != n || r.closings != 1 || r.cuts != 1 {
		t.Errorf("Close after a cut recorded %v, OnClosed %d", r.rec.events[n:], r.closings)
	}
}

func TestPipeCutDropsBothDirections(t *testing.T) {
	r := newRig()
	r.faults["cut p/a2c/2"] = 1
	r.pipe.SendToAgent([]byte("q"), "s")
	r.pipe.SendToClient([]byte("u1"))
	r.pipe.SendToClient([]byte("u2"))
	r.run()
	if len(r.got) != 0 {
		t.Errorf("arrived %v after a cut at t=0, want nothing", r.got)
	}
	want := []string{
		"connect",
		"send c2a q",
		"send a2c u1",
		"send a2c u2",
		"drop c2a q cut",
		"drop a2c u1 cut",
		"drop a2c u2 cut",
		"disconnect cut",
	}
	if got := r.rec.short(); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	// A cut frame asks no delay decision.
	last := r.asked[len(r.asked)-1]
	if last != (sim.Decision{Kind: netfault.Cut, Site: "p/a2c/2", N: 2}) {
		t.Errorf("last decision %+v, want the cut of p/a2c/2", last)
	}
}

func TestPipeSendOnClosedPipe(t *testing.T) {
	r := newRig()
	r.pipe.Close("exit")
	n := len(r.asked)
	r.pipe.SendToAgent([]byte("late"), "s9")
	r.pipe.SendToClient([]byte("later"))
	r.run()
	if len(r.got) != 0 {
		t.Errorf("arrived %v on a closed pipe", r.got)
	}
	if len(r.asked) != n {
		t.Errorf("a frame on a closed pipe asked %v", r.asked[n:])
	}
	want := []traces.Event{
		{Seq: 3, Kind: traces.KindDrop, Link: "p", From: "c", To: "a", Dir: traces.ClientToAgent, Frame: "late", Sub: "s9", Note: "pipe closed"},
		{Seq: 4, Kind: traces.KindDrop, Link: "p", From: "a", To: "c", Dir: traces.AgentToClient, Frame: "later", Note: "pipe closed"},
	}
	if got := r.rec.events[2:]; !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %+v\nwant %+v", got, want)
	}
	if r.cuts != 0 || r.closings != 1 {
		t.Errorf("OnCut %d, OnClosed %d; want 0 and 1", r.cuts, r.closings)
	}
}

func TestPipeCloseDropsInFlight(t *testing.T) {
	r := newRig()
	r.pipe.SendToAgent([]byte("a"), "s1")
	r.pipe.SendToClient([]byte("b"))
	r.loop.After(2*ms, func() { r.pipe.SendToAgent([]byte("c"), "s2") })
	r.loop.After(2*ms, func() { r.pipe.Close("close") })
	r.run()
	if want := []string{"c2a a@1ms", "a2c b@1ms"}; !reflect.DeepEqual(r.got, want) {
		t.Errorf("arrived %v, want %v", r.got, want)
	}
	want := []string{
		"connect",
		"send c2a a",
		"send a2c b",
		"deliver c2a a",
		"deliver a2c b",
		"send c2a c",
		"drop c2a c close",
		"disconnect close",
	}
	if got := r.rec.short(); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if r.cuts != 0 || r.closings != 1 || r.pipe.Alive() {
		t.Errorf("OnCut %d, OnClosed %d, alive %v; want 0, 1, false", r.cuts, r.closings, r.pipe.Alive())
	}
	r.pipe.Close("close")
	if r.closings != 1 {
		t.Errorf("a second Close called OnClosed again")
	}
}

func TestPipeWithoutCallbacks(t *testing.T) {
	var loop sim.Loop
	rec := &recorder{loop: &loop}
	p := netfault.NewPipe("p", "c", "a", &loop, func(d sim.Decision) int {
		if d.Kind == netfault.Cut {
			return 1
		}
		return 0
	}, rec, ms)
	p.SendToAgent([]byte("x"), "") // cuts; no OnCut or OnClosed set
	if p.Alive() {
		t.Error("pipe alive after a cut")
	}
}

func ExamplePipe() {
	var loop sim.Loop
	rec := &recorder{loop: &loop}
	// Hold back the first frame the Client writes by 30ms; no other fault.
	choose := func(d sim.Decision) int {
		if d.Kind == netfault.Delay && d.Where() == "c1:a1/c2a/1" {
			return 2
		}
		return 0
	}
	p := netfault.NewPipe("c1:a1", "c1", "a1", &loop, choose, rec, time.Millisecond)
	p.ToAgent = func(b []byte, _ *acp.Digest) { fmt.Printf("%v agent reads %s\n", loop.Now(), b) }
	p.ToClient = func(b []byte, _ *acp.Digest) { fmt.Printf("%v client reads %s\n", loop.Now(), b) }
	p.SendToAgent([]byte(`{"id":1}`), "")
	p.SendToAgent([]byte(`{"id":2}`), "")
	p.SendToClient([]byte(`{"id":7}`))
	loop.RunUntil(time.Second, nil)
	p.Close("close")
	fmt.Println(strings.Join(rec.short()[len(rec.short())-1:], ""))
	// Output:
	// 1ms client reads {"id":7}
	// 31ms agent reads {"id":1}
	// 31ms agent reads {"id":2}
	// disconnect close
}

// A killed Agent's last words still reach the Client: what it wrote stays in
// the pipe, with the order kept behind a delayed frame. Only what the Client
// wrote and the Agent had not read is lost, and end of file comes after the
// Agent's last frame.
func TestPipeAgentGoneDrainsWhatTheAgentWrote(t *testing.T) {
	r := newRig()
	r.faults["delay p/a2c/1"] = 3 // 300ms
	r.pipe.SendToClient([]byte("resp"))
	r.pipe.SendToClient([]byte("upd"))
	r.pipe.SendToAgent([]byte("retry"), "s1")
	r.loop.RunUntil(ms/2, nil) // nothing has arrived yet
	r.pipe.AgentGone("kill")
	r.pipe.SendToAgent([]byte("late"), "")
	if r.closings != 0 {
		t.Fatalf("link ended before the Agent's frames arrived")
	}
	r.run()
	want := []string{"a2c resp@301ms", "a2c upd@301ms"}
	if !reflect.DeepEqual(r.got, want) {
		t.Errorf("delivered %v, want %v", r.got, want)
	}
	if r.closings != 1 || r.cuts != 0 {
		t.Errorf("closings %d cuts %d, want 1 and 0", r.closings, r.cuts)
	}
	tail := r.rec.short()[len(r.rec.short())-5:]
	wantTail := []string{"drop c2a retry kill", "drop c2a late pipe closed", "deliver a2c resp", "deliver a2c upd", "disconnect kill"}
	if !reflect.DeepEqual(tail, wantTail) {
		t.Errorf("events end with %q, want %q", tail, wantTail)
	}
}
