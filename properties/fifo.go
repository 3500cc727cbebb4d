package properties

// fifo is a queue whose elements leave almost always from the front
// (frames in flight arrive in the order sent), but may leave from
// anywhere: taking the front costs nothing, taking another moves only
// those behind it.
type fifo[T any] struct {
	q    []T
	head int
}

func (f *fifo[T]) push(x T) {
	if f.q == nil {
		f.q = make([]T, 0, 8) // a link holds a few in flight: one allocation, not four
	}
	f.q = append(f.q, x)
}

// takeFront removes and returns the first element; false when there is
// none.
func (f *fifo[T]) takeFront() (T, bool) {
	var zero T
	if f.head == len(f.q) {
		return zero, false
	}
	x := f.q[f.head]
	f.q[f.head] = zero
	f.head++
	if f.head == len(f.q) {
		f.q, f.head = f.q[:0], 0
	}
	return x, true
}

// take removes and returns the first element match accepts.
func (f *fifo[T]) take(match func(*T) bool) (T, bool) {
	var zero T
	for i := f.head; i < len(f.q); i++ {
		if !match(&f.q[i]) {
			continue
		}
		x := f.q[i]
		if i == f.head {
			f.q[i] = zero
			f.head++
		} else {
			copy(f.q[i:], f.q[i+1:])
			f.q[len(f.q)-1] = zero
			f.q = f.q[:len(f.q)-1]
		}
		if f.head == len(f.q) {
			f.q, f.head = f.q[:0], 0
		}
		return x, true
	}
	return zero, false
}

// all are the elements, front first.
func (f *fifo[T]) all() []T { return f.q[f.head:] }

// release empties the queue and lets its array go: for the queue of a
// link that ended, whose array would otherwise be kept for as long as
// the checker (a link's two queues are about 400 bytes; a trace may have
// a link per submission or two). A push after it (a malformed trace's
// send on an ended link) makes a new array.
func (f *fifo[T]) release() { f.q, f.head = nil, 0 }
