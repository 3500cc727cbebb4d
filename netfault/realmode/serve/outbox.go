// The outbox: the frames queued for one SSE stream's or WebSocket's writer,
// bounded so that a Client that stops reading never blocks the Agent.

package serve

import "sync"

// outbox is the frames waiting for one stream's writer goroutine: the loop
// queues without waiting on the network.
type outbox struct {
	mu     sync.Mutex
	q      [][]byte
	closed bool
	wake   chan struct{} // a put or a close happened
}

func newOutbox() *outbox { return &outbox{wake: make(chan struct{}, 1)} }

func (b *outbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// put queues f; false when the outbox is closed, or has just been closed
// because its reader does not keep up (what it held is lost).
func (b *outbox) put(f []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	if len(b.q) >= maxQueued {
		b.closed, b.q = true, nil
		b.signal()
		return false
	}
	b.q = append(b.q, f)
	b.signal()
	return true
}

// close stops the outbox; what it holds is still taken.
func (b *outbox) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.signal()
}

// discard closes the outbox and drops what it holds.
func (b *outbox) discard() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed, b.q = true, nil
	b.signal()
}

// take returns what is queued, and false once the outbox is closed.
func (b *outbox) take() ([][]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.q
	b.q = nil
	return q, !b.closed
}
