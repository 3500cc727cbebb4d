// Package agent holds acpsim's model Agents: state machines in the style of
// etcd-io/raft's RawNode. An Agent takes one input (a connection opening, a
// frame, a connection ending, a timer) and returns the outputs it produced,
// in order: frames to send, storage syncs, timers to set. It never blocks and
// never sees the link, so the simulator can kill its process between any two
// outputs, and the same code can run behind real pipes and sockets.
package agent

import (
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/sim"
)

// OutputKind says what an Output asks the host to do.
type OutputKind uint8

// Output kinds.
const (
	// OutSend writes Frame to connection Conn.
	OutSend OutputKind = iota + 1
	// OutSync makes the store's committed writes durable.
	OutSync
	// OutTimer asks for Timer(ID) to be called After from now.
	OutTimer
	// OutInsert notes that a user message was inserted (trace bookkeeping
	// only; checkers never read it).
	OutInsert
	// OutDeferred asks the host to commit Batch to the store and sync it
	// After from now, even if the process died meanwhile: it is a write
	// another process (an adapter's runtime) finishes on its own. A Commit
	// error (a refused batch) is ignored.
	OutDeferred
	// OutTurnEnd notes that the work of Session ended, Text its stop
	// reason. Only a model Agent that speaks v1 (Knobs.Protocol) emits it,
	// for its translation at the edge (SpeakV1) to answer the turn's
	// prompts, which takes it out: no host sees it.
	OutTurnEnd
)

// Output is one effect of a step. Step names the protocol step that produced
// it; the simulator uses it to name crash sites.
type Output struct {
	Kind  OutputKind
	Step  string
	Conn  string
	Frame []byte
	// Digest is what Frame says, made as it was encoded (acp.Digest); the
	// zero Digest when nobody made one. It describes Frame only while
	// Frame is those bytes: a wrapper that re-encodes Frame need not clear
	// it.
	Digest *acp.Digest
	After  time.Duration
	ID     int

	Session   string
	MessageID string
	Text      string

	// Batch is the write of an OutDeferred: a pointer, since every other
	// output (most of a step's) would carry an empty one.
	Batch *store.Batch
}

// Machine is a model Agent process.
type Machine interface {
	Connect(conn string) []Output
	Receive(conn string, frame []byte) []Output
	Disconnect(conn string) []Output
	Timer(id int) []Output
}

// DigestReceiver is a Machine that can read a frame from the digest its
// sender made of it (acp.Digest), sparing the parse: ReceiveDigest(conn,
// frame, d) does what Receive(conn, frame) does. The simulator, whose
// frames are never written again once sent, hands frames over this way;
// d may be nil, or describe another frame, and is then not used. A wrapper
// of an Agent (a mutant, a proxy) must not embed *Agent: the host would find
// the Agent's ReceiveDigest and pass the wrapper's Receive by.
type DigestReceiver interface {
	ReceiveDigest(conn string, frame []byte, d *acp.Digest) []Output
}

// Env is what a process gets from its host: its name, the fault Chooser (for
// faults that happen inside the Agent, such as a transient rejection) and the
// stream of fresh ids.
type Env struct {
	Name   string
	Choose func(sim.Decision) int
	NewID  func() string
	// Draw, when set, picks among the forms a fault takes (which error a
	// rejection answers) from a stream of its own per name
	// (sim.NamedDraws), so that asking it shifts no fault and no id. Nil
	// takes the first form: the simulator's Agents draw nothing here.
	Draw func(name string, n int) int
}
