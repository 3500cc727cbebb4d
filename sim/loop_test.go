package sim_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/acpsim/acpsim/sim"
)

const ms = time.Millisecond

// trace records which event ran at what virtual time.
type trace struct {
	l   *sim.Loop
	ran []string
}

func (tr *trace) ev(name string) func() {
	return func() { tr.ran = append(tr.ran, fmt.Sprintf("%s@%v", name, tr.l.Now())) }
}

func TestLoopSameTimeRunsInSchedulingOrder(t *testing.T) {
	var l sim.Loop
	tr := &trace{l: &l}
	l.At(10*ms, tr.ev("a"))
	l.At(5*ms, tr.ev("b"))
	l.At(10*ms, tr.ev("c"))
	l.After(10*ms, tr.ev("d"))
	l.At(10*ms, tr.ev("e"))
	for l.Step() {
	}
	want := []string{"b@5ms", "a@10ms", "c@10ms", "d@10ms", "e@10ms"}
	if !reflect.DeepEqual(tr.ran, want) {
		t.Errorf("ran %v, want %v", tr.ran, want)
	}
	if l.Now() != 10*ms {
		t.Errorf("Now = %v after the last event at 10ms", l.Now())
	}
}

func TestLoopAtInThePastRunsNow(t *testing.T) {
	var l sim.Loop
	tr := &trace{l: &l}
	l.At(20*ms, func() {
		tr.ev("first")()
		l.At(3*ms, tr.ev("past"))      // in the past: runs at 20ms...
		l.After(0, tr.ev("now"))       // ...in scheduling order with this one
		l.At(21*ms, tr.ev("later"))    // the future stays the future
		l.At(-time.Hour, tr.ev("neg")) // far in the past
	})
	l.At(20*ms, tr.ev("second")) // scheduled before "past": runs before it
	for l.Step() {
	}
	want := []string{"first@20ms", "second@20ms", "past@20ms", "now@20ms", "neg@20ms", "later@21ms"}
	if !reflect.DeepEqual(tr.ran, want) {
		t.Errorf("ran %v, want %v", tr.ran, want)
	}
}

func TestLoopAfterIsRelativeToNow(t *testing.T) {
	var l sim.Loop
	tr := &trace{l: &l}
	l.At(7*ms, func() { l.After(5*ms, tr.ev("x")) })
	for l.Step() {
	}
	if want := []string{"x@12ms"}; !reflect.DeepEqual(tr.ran, want) {
		t.Errorf("ran %v, want %v", tr.ran, want)
	}
}

func TestLoopRunUntil(t *testing.T) {
	var l sim.Loop
	tr := &trace{l: &l}
	for _, at := range []time.Duration{1 * ms, 2 * ms, 5 * ms, 5 * ms, 8 * ms} {
		l.At(at, tr.ev(fmt.Sprint(at)))
	}
	if n := l.RunUntil(5*ms, nil); n != 4 {
		t.Errorf("RunUntil(5ms) ran %d events, want 4 (up to and including 5ms)", n)
	}
	if l.Now() != 5*ms {
		t.Errorf("Now = %v, want 5ms", l.Now())
	}
	if l.Pending() != 1 {
		t.Errorf("Pending = %d, want 1", l.Pending())
	}
	// The clock stays at the last event run: a quiet stretch is not idle time.
	if n := l.RunUntil(7*ms, nil); n != 0 || l.Now() != 5*ms {
		t.Errorf("RunUntil(7ms) with nothing due ran %d and moved Now to %v", n, l.Now())
	}
	if n := l.RunUntil(time.Hour, nil); n != 1 || l.Now() != 8*ms {
		t.Errorf("RunUntil(1h) ran %d events, Now %v; want 1 and 8ms", n, l.Now())
	}
	if n := l.RunUntil(time.Hour, nil); n != 0 {
		t.Errorf("RunUntil on an empty queue ran %d", n)
	}
	if l.Events() != 5 {
		t.Errorf("Events = %d, want 5", l.Events())
	}
}

func TestLoopRunUntilStop(t *testing.T) {
	var l sim.Loop
	count := 0
	for i := range 10 {
		l.At(time.Duration(i)*ms, func() { count++ })
	}
	stopCalls := 0
	n := l.RunUntil(time.Hour, func() bool { stopCalls++; return count == 3 })
	if n != 3 || count != 3 {
		t.Errorf("RunUntil with stop after the 3rd event ran %d events (count %d), want 3", n, count)
	}
	if stopCalls != 3 {
		t.Errorf("stop called %d times, want once after each of the 3 events", stopCalls)
	}
	if l.Pending() != 7 || l.Now() != 2*ms {
		t.Errorf("Pending %d, Now %v; want 7 and 2ms", l.Pending(), l.Now())
	}
}

func TestLoopNextPendingEvents(t *testing.T) {
	var l sim.Loop
	if _, ok := l.Next(); ok {
		t.Error("Next on an empty loop reported an event")
	}
	if l.Step() {
		t.Error("Step on an empty loop reported an event")
	}
	if l.Pending() != 0 || l.Events() != 0 || l.Now() != 0 {
		t.Errorf("empty loop: Pending %d, Events %d, Now %v", l.Pending(), l.Events(), l.Now())
	}
	l.At(9*ms, func() {})
	l.At(4*ms, func() { l.At(6*ms, func() {}) })
	if next, ok := l.Next(); !ok || next != 4*ms {
		t.Errorf("Next = %v, %v; want 4ms, true", next, ok)
	}
	if l.Pending() != 2 {
		t.Errorf("Pending = %d, want 2", l.Pending())
	}
	l.Step()
	if next, ok := l.Next(); !ok || next != 6*ms {
		t.Errorf("after the first event Next = %v, %v; want 6ms (scheduled by it), true", next, ok)
	}
	if l.Pending() != 2 || l.Events() != 1 {
		t.Errorf("Pending %d, Events %d; want 2 and 1", l.Pending(), l.Events())
	}
	for l.Step() {
	}
	if l.Pending() != 0 || l.Events() != 3 || l.Now() != 9*ms {
		t.Errorf("drained: Pending %d, Events %d, Now %v; want 0, 3, 9ms", l.Pending(), l.Events(), l.Now())
	}
}

func ExampleLoop() {
	var l sim.Loop
	say := func(s string) func() {
		return func() { fmt.Println(l.Now(), s) }
	}
	l.At(30*time.Millisecond, say("timeout"))
	l.At(10*time.Millisecond, say("frame 1"))
	l.At(10*time.Millisecond, say("frame 2")) // same instant: scheduling order
	l.After(20*time.Millisecond, func() {
		say("response")()
		l.After(5*time.Millisecond, say("next prompt"))
	})
	n := l.RunUntil(22*time.Millisecond, nil)
	fmt.Println("ran", n, "pending", l.Pending())
	l.RunUntil(time.Second, nil)
	// Output:
	// 10ms frame 1
	// 10ms frame 2
	// 20ms response
	// ran 3 pending 2
	// 25ms next prompt
	// 30ms timeout
}

// AtAhead runs its events in the order At would: a scenario scheduled through
// AtAhead, out of time order, mixed with At events scheduled up front and by
// the events as they run, gives one order with AtAhead and with At alone.
func TestLoopAtAheadRunsAsAtWould(t *testing.T) {
	order := func(plan bool) []int {
		var l sim.Loop
		var got []int
		rng := rand.New(rand.NewPCG(7, 7))
		id := 0
		var spawn func(depth int) func()
		spawn = func(depth int) func() {
			me := id
			id++
			return func() {
				got = append(got, me)
				if depth < 2 && rng.IntN(3) == 0 {
					l.After(time.Duration(rng.IntN(5))*time.Millisecond, spawn(depth+1))
				}
			}
		}
		for range 400 {
			at := time.Duration(rng.IntN(50)) * time.Millisecond
			if coin := rng.IntN(4) != 0; plan && coin {
				l.AtAhead(at, spawn(0))
			} else {
				l.At(at, spawn(0))
			}
		}
		if n := l.Pending(); n != 400 {
			t.Fatalf("Pending() = %d after scheduling 400", n)
		}
		l.RunUntil(time.Hour, nil)
		if n := l.Pending(); n != 0 {
			t.Fatalf("Pending() = %d after running them all", n)
		}
		return got
	}
	want, got := order(false), order(true)
	if !slices.Equal(got, want) {
		t.Fatalf("with AtAhead the events ran in another order:\n got %v\nwant %v", got[:min(20, len(got))], want[:min(20, len(want))])
	}
	if len(got) <= 400 {
		t.Fatalf("only %d events ran: the test scheduled none while running", len(got))
	}
}

// A model check of AtAhead against At: random programs schedule events in
// the past, now and the future, before the run and while events run, and
// drive the loop with Step, RunUntil (with a stop), Next, Pending and Reset.
// Every observation must be the one the same program makes with At alone.
func TestLoopAtAheadModel(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		run := func(ahead bool) []string {
			var l sim.Loop
			var obs []string
			rng := rand.New(rand.NewPCG(seed, 99))
			id := 0
			var schedule func(inRun bool)
			schedule = func(inRun bool) {
				at := l.Now() + time.Duration(rng.IntN(7)-2)*time.Millisecond // past, now or future
				me := id
				id++
				spawn := rng.IntN(3) == 0
				fn := func() {
					obs = append(obs, fmt.Sprintf("ran %d at %v", me, l.Now()))
					if spawn {
						schedule(true)
					}
				}
				if coin := rng.IntN(2) == 0; ahead && coin {
					l.AtAhead(at, fn)
				} else {
					l.At(at, fn)
				}
			}
			for range 60 {
				switch op := rng.IntN(10); {
				case op < 4:
					schedule(false)
				case op < 6:
					obs = append(obs, fmt.Sprintf("step %v", l.Step()))
				case op < 8:
					until := l.Now() + time.Duration(rng.IntN(4))*time.Millisecond
					stopAfter := rng.IntN(4)
					n := 0
					obs = append(obs, fmt.Sprintf("ran %d", l.RunUntil(until, func() bool { n++; return n == stopAfter })))
				case op < 9:
					next, ok := l.Next()
					obs = append(obs, fmt.Sprintf("next %v %v pending %d", next, ok, l.Pending()))
				default:
					if rng.IntN(4) == 0 {
						l.Reset()
						obs = append(obs, "reset")
					}
				}
			}
			obs = append(obs, fmt.Sprintf("drained %d", l.RunUntil(time.Hour, nil)), fmt.Sprintf("pending %d", l.Pending()))
			return obs
		}
		want, got := run(false), run(true)
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("seed %d: observation %d is %q with AtAhead, %q with At alone", seed, i, got[i], want[i])
				}
			}
			t.Fatalf("seed %d: %d observations with AtAhead, %d with At alone", seed, len(got), len(want))
		}
	}
}

// DropAhead drops the scenario's events still to come and nothing else:
// the events At scheduled run as before, in their order.
func TestLoopDropAheadKeepsOtherEvents(t *testing.T) {
	var l sim.Loop
	var ran []string
	l.AtAhead(1*time.Millisecond, func() { ran = append(ran, "user 1") })
	l.AtAhead(5*time.Millisecond, func() { ran = append(ran, "user 5") })
	l.At(3*time.Millisecond, func() { ran = append(ran, "timer 3") })
	l.At(6*time.Millisecond, func() { ran = append(ran, "timer 6") })
	l.RunUntil(2*time.Millisecond, nil)
	l.DropAhead()
	if n := l.Pending(); n != 2 {
		t.Fatalf("pending after DropAhead: %d, want the 2 timers", n)
	}
	l.RunUntil(time.Hour, nil)
	if want := []string{"user 1", "timer 3", "timer 6"}; !slices.Equal(ran, want) {
		t.Fatalf("ran %q, want %q", ran, want)
	}
	l.AtAhead(l.Now()+time.Millisecond, func() { ran = append(ran, "user 7") })
	l.RunUntil(time.Hour, nil)
	if ran[len(ran)-1] != "user 7" {
		t.Fatalf("an AtAhead after DropAhead did not run: %q", ran)
	}
}
