package dial

import (
	"fmt"
)

// Conn is one live connection from a Client to a real Agent, whatever
// carries it: the pipes of a child process (stdio), a Streamable HTTP
// connection (Acp-Connection-Id) or a WebSocket. acpsim check drives the
// model Clients through it; a fault proxy sits between the two.
//
// A Conn is used from one goroutine (the check driver's loop) for Send and
// Close; Frames is read by that same loop. Implementations may start
// goroutines of their own, and stop them all by the time Frames is closed.
type Conn interface {
	// Name identifies the connection in traces ("c1:a1#2", or the
	// Acp-Connection-Id the Agent chose).
	Name() string
	// Send writes one frame (a JSON-RPC message or a batch, no trailing
	// newline) to the Agent. An error means the frame did not reach it
	// (for HTTP: the POST failed or was answered with a status that is
	// not 200/202, see *StatusError); the connection may still be alive.
	Send(frame []byte) error
	// Frames yields every frame the Agent writes, in the order this
	// connection delivers them, and is closed when the connection has
	// ended (Err then says why).
	Frames() <-chan []byte
	// Err is why the connection ended; nil while it is alive.
	Err() error
	// Close ends the connection from the Client's side (closing stdin,
	// DELETE /acp, a WebSocket close). It does not wait for the Agent.
	Close() error
}

// StatusError is an HTTP answer other than 200 or 202 to a POST.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("HTTP %d", e.Code)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body)
}
