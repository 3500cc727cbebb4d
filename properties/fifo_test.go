package properties

import "testing"

// A queue gives its elements front first, whether taken from the front or
// by a match from anywhere, and is empty again after the last: the checker
// pairs a delivery with the oldest send of the same bytes so.
func TestFifoTakesFromTheFrontAndFromAnywhere(t *testing.T) {
	var q fifo[int]
	for _, x := range []int{1, 2, 3, 4} {
		q.push(x)
	}
	if x, ok := q.take(func(x *int) bool { return *x == 3 }); !ok || x != 3 {
		t.Fatalf("take 3: %d, %t", x, ok)
	}
	if x, ok := q.takeFront(); !ok || x != 1 {
		t.Fatalf("the front after 3 was taken: %d, %t, expected 1", x, ok)
	}
	if got := q.all(); len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Fatalf("left: %v, expected [2 4]", got)
	}
	q.takeFront()
	q.takeFront()
	if x, ok := q.takeFront(); ok {
		t.Fatalf("an empty queue gave %d", x)
	}
	if q.head != 0 || len(q.q) != 0 {
		t.Fatalf("an emptied queue: head %d, %d elements, expected it reset", q.head, len(q.q))
	}
	q.push(5)
	q.release()
	if q.q != nil || len(q.all()) != 0 {
		t.Fatal("a released queue keeps its array or its elements")
	}
	q.push(6) // a send on a link that ended, in a malformed trace
	if x, ok := q.takeFront(); !ok || x != 6 {
		t.Fatalf("a push after release: %d, %t, expected 6", x, ok)
	}
}

// A delivery is paired with the oldest send in flight with its bytes, not
// with the oldest send: frames a link delivers out of order pair each with
// its own.
func TestADeliveryPairsWithItsOwnSend(t *testing.T) {
	var l formLink
	l.flight[dirC2A].push(inFlight{"a", 1})
	l.flight[dirC2A].push(inFlight{"b", 2})
	l.flight[dirC2A].push(inFlight{"a", 3})
	for _, c := range []struct {
		frame string
		send  int64
	}{{"b", 2}, {"a", 1}, {"c", 0}, {"a", 3}, {"a", 0}} {
		if got := l.take(dirC2A, c.frame); got != c.send {
			t.Fatalf("delivering %q: paired with send %d, expected %d", c.frame, got, c.send)
		}
	}
}
