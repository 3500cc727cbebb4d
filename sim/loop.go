package sim

import (
	"cmp"
	"slices"
	"time"
)

// Loop is a single-goroutine discrete-event loop over virtual time. Events
// scheduled for the same instant run in the order they were scheduled, so a
// run never depends on map order or on the Go scheduler.
type Loop struct {
	now  time.Duration
	seq  uint64
	q    eventQueue
	runs uint64
	// lane holds the events AtAhead scheduled, from laneHead on, sorted by
	// (at, seq) before one is taken: a scenario's thousands of submissions
	// kept out of the heap leave every other event's push and pop at the
	// heap's own small depth.
	lane         []event
	laneHead     int
	laneUnsorted bool // AtAhead appended out of time order since the last sort
}

type event struct {
	at  time.Duration
	seq uint64
	fn  func()
	h   Handler // when fn is nil
}

// Handler is an event that carries what it needs itself: scheduling one
// (AtHandler) allocates no closure, which a link's every frame would.
type Handler interface {
	Fire()
}

// eventQueue is a binary min-heap ordered by (at, seq), a total order: the
// events come out in one order whatever the heap's shape. It is written out
// rather than built on container/heap, whose Push and Pop box every event
// in an interface (two allocations per event). The heap moves keys that
// hold no pointer; what an event runs stays put in jobs, by slot: moving
// pointers while the collector marks costs a write barrier each, which was
// most of a push and a pop.
type eventQueue struct {
	keys []eventKey
	jobs []job
	free []int32 // slots of jobs that ran
}

type eventKey struct {
	at   time.Duration
	seq  uint64
	slot int32
}

type job struct {
	fn func()
	h  Handler // when fn is nil
}

func (q *eventQueue) len() int { return len(q.keys) }

func (q *eventQueue) less(i, j int) bool {
	a, b := &q.keys[i], &q.keys[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (q *eventQueue) push(e event) {
	var slot int32
	if n := len(q.free); n > 0 {
		slot, q.free = q.free[n-1], q.free[:n-1]
		q.jobs[slot] = job{e.fn, e.h}
	} else {
		slot = int32(len(q.jobs))
		q.jobs = append(q.jobs, job{e.fn, e.h})
	}
	q.keys = append(q.keys, eventKey{e.at, e.seq, slot})
	h := q.keys
	for j := len(h) - 1; j > 0; {
		i := (j - 1) / 2 // parent
		if !q.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (q *eventQueue) pop() event {
	h := q.keys
	n := len(h) - 1
	h[0], h[n] = h[n], h[0]
	for i := 0; ; {
		j := 2*i + 1 // left child
		if j >= n {
			break
		}
		if r := j + 1; r < n && q.less(r, j) {
			j = r
		}
		if !q.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	k := h[n]
	q.keys = h[:n]
	jb := q.jobs[k.slot]
	q.jobs[k.slot] = job{}
	q.free = append(q.free, k.slot)
	return event{at: k.at, seq: k.seq, fn: jb.fn, h: jb.h}
}

// reset empties the queue, keeping its memory.
func (q *eventQueue) reset() {
	clear(q.jobs)
	*q = eventQueue{keys: q.keys[:0], jobs: q.jobs[:0], free: q.free[:0]}
}

// Reset empties the loop and puts its clock back to zero, keeping the
// queue's memory for the next run: a worker that runs seed after seed on
// one Loop does not grow a queue per seed. Events still scheduled are
// dropped unrun.
func (l *Loop) Reset() {
	l.q.reset()
	clear(l.lane)
	*l = Loop{q: l.q, lane: l.lane[:0]}
}

// Now is the current virtual time, measured from the start of the run.
func (l *Loop) Now() time.Duration { return l.now }

// At schedules fn at virtual time t (or now, if t is in the past).
func (l *Loop) At(t time.Duration, fn func()) {
	if t < l.now {
		t = l.now
	}
	l.seq++
	l.q.push(event{at: t, seq: l.seq, fn: fn})
}

// AtHandler schedules h.Fire at virtual time t (or now, if t is in the
// past), in the same order as At.
func (l *Loop) AtHandler(t time.Duration, h Handler) {
	if t < l.now {
		t = l.now
	}
	l.seq++
	l.q.push(event{at: t, seq: l.seq, h: h})
}

// AtAhead schedules fn at virtual time t, as At does and in the same order
// (events due at one instant run in the order they were scheduled), for
// events scheduled by the thousand long before they are due: the users'
// scenario. They wait in a list sorted once, not in the heap.
func (l *Loop) AtAhead(t time.Duration, fn func()) {
	if t < l.now {
		t = l.now
	}
	l.seq++
	if n := len(l.lane); n > l.laneHead && t < l.lane[n-1].at {
		l.laneUnsorted = true
	}
	l.lane = append(l.lane, event{at: t, seq: l.seq, fn: fn})
}

// DropAhead drops, unrun, every event AtAhead scheduled that has not run
// yet: a run cut short stops its users, and only them.
func (l *Loop) DropAhead() {
	clear(l.lane)
	l.lane, l.laneHead, l.laneUnsorted = l.lane[:0], 0, false
}

// After schedules fn d after now.
func (l *Loop) After(d time.Duration, fn func()) { l.At(l.now+d, fn) }

// Pending is the number of scheduled events.
func (l *Loop) Pending() int { return l.q.len() + len(l.lane) - l.laneHead }

// Next is the time of the earliest scheduled event; ok is false when none is.
func (l *Loop) Next() (t time.Duration, ok bool) {
	at, _, ok := l.earliest()
	return at, ok
}

// earliest is when the next event to run is due, at the heap's top or the
// lane's head by (at, seq), and whether it is the lane's; ok is false when
// none is scheduled.
func (l *Loop) earliest() (at time.Duration, lane, ok bool) {
	var seq uint64
	if l.q.len() > 0 {
		k := &l.q.keys[0]
		at, seq, ok = k.at, k.seq, true
	}
	if l.laneHead < len(l.lane) {
		if l.laneUnsorted {
			slices.SortFunc(l.lane[l.laneHead:], func(a, b event) int {
				return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq))
			})
			l.laneUnsorted = false
		}
		if f := &l.lane[l.laneHead]; !ok || f.at < at || f.at == at && f.seq < seq {
			return f.at, true, true
		}
	}
	return at, false, ok
}

// Step runs the earliest event and reports whether there was one.
func (l *Loop) Step() bool {
	_, lane, ok := l.earliest()
	if !ok {
		return false
	}
	var e event
	if !lane {
		e = l.q.pop()
	} else {
		e = l.lane[l.laneHead]
		l.lane[l.laneHead] = event{}
		l.laneHead++
		if l.laneHead == len(l.lane) {
			l.lane, l.laneHead = l.lane[:0], 0
		}
	}
	l.now = e.at
	l.runs++
	if e.fn == nil {
		e.h.Fire()
		return true
	}
	e.fn()
	return true
}

// RunUntil runs events up to and including virtual time t, or until stop
// returns true after an event. It returns the number of events run. The
// clock stays at the last event run: an empty queue is quiet, not idle time.
func (l *Loop) RunUntil(t time.Duration, stop func() bool) int {
	n := 0
	for at, _, ok := l.earliest(); ok && at <= t; at, _, ok = l.earliest() {
		l.Step()
		n++
		if stop != nil && stop() {
			break
		}
	}
	return n
}

// Events is the total number of events run so far.
func (l *Loop) Events() uint64 { return l.runs }
