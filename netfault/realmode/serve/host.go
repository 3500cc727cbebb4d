// Package serve is the real Agent, acpsim agent: a model Agent's state
// machine (actors/agent) served over real stdio (Stdio) and over Streamable
// HTTP and WebSocket on a listener (Remote), its inputs fed from one loop
// with wall-clock timers, and its failpoints. The same state machine runs in
// the simulator, so the executable and the model cannot drift apart.
package serve

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/pingcap/failpoint"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
)

// FailpointPrefix names the Agent's crash points: FailpointPrefix plus the
// protocol step of the output about to happen (agent.Output.Step), e.g.
// acpsim/agent/respond-prompt: after the message and its binding are stored,
// before the response is written.
const FailpointPrefix = "acpsim/agent/"

// FailpointError is the process stopping at an enabled failpoint.
type FailpointError struct{ Name string }

func (e *FailpointError) Error() string { return "stopped at failpoint " + e.Name }

// StdioConn is the name of the one connection an Agent on stdio serves.
const StdioConn = "stdio"

type inputKind uint8

const (
	inConnect    inputKind = iota + 1 // a connection opened
	inFrame                           // a frame arrived on conn
	inDisconnect                      // conn ended
	inTimer                           // a machine timer fired
	inDeferred                        // an OutDeferred write is due
	inStop                            // the process stops (err: why; nil is an orderly stop)
)

// input is one thing that happened to the Agent process.
type input struct {
	kind  inputKind
	conn  string
	frame []byte
	timer int   // inTimer: the machine's timer id
	err   error // inStop
	last  bool  // the process ends after this input
	tk    int   // inTimer, inDeferred: the host's key for the wall-clock timer
	// done, if set, is closed once the step's outputs are carried out, so a
	// transport can answer (HTTP 202) only after the Agent has read the
	// frame. It stays open if the process stopped in that step.
	done chan struct{}
}

// sink is where a host's frames go.
type sink interface {
	// send writes frame to connection conn; an error stops the process.
	send(conn string, frame []byte) error
	// flush ends a step (and precedes a stop at a failpoint): what was
	// sent so far is written.
	flush() error
}

// host owns one agent.Machine and feeds it from a single loop: every input,
// whatever connection or timer it comes from, goes through run, so the
// machine sees one step at a time, as in the simulator. The stdio Agent and
// the listening one (Remote) share it.
type host struct {
	m      agent.Machine
	st     store.Store
	inputs chan input
	done   chan struct{} // closed when run returns
	timers map[int]*time.Timer
	ntimer int
	// deferred are the OutDeferred writes not yet due, by timer key. They
	// are another process's (an adapter's runtime) and finish on their own,
	// so a process that stops commits them before it goes, as the
	// simulator lands them after a kill; only a SIGKILL loses them.
	deferred map[int]store.Batch
}

func newHost(m agent.Machine, st store.Store) *host {
	return &host{m: m, st: st, inputs: make(chan input, 16), done: make(chan struct{}), timers: map[int]*time.Timer{}, deferred: map[int]store.Batch{}}
}

// feed hands in to the loop. It returns false when the loop has ended: in
// will never be seen.
func (h *host) feed(in input) bool {
	select {
	case h.inputs <- in:
		return true
	case <-h.done:
		return false
	}
}

// after feeds in after d of wall-clock time and returns the timer's key.
// Called from the loop only; the timer is stopped when the loop ends, so no
// callback outlives it.
func (h *host) after(d time.Duration, in input) int {
	h.ntimer++
	in.tk = h.ntimer
	h.timers[in.tk] = time.AfterFunc(d, func() { h.feed(in) })
	return in.tk
}

// deferWrite commits b after d, through the loop (the store is the
// machine's and not safe for concurrent use); the write is held in
// h.deferred until then.
func (h *host) deferWrite(d time.Duration, b store.Batch) {
	h.deferred[h.after(d, input{kind: inDeferred})] = b
}

// run carries out first, then every input fed to the host, until an input
// marked last, an inStop, or an error from the machine's outputs.
func (h *host) run(out sink, first ...input) error {
	defer func() {
		close(h.done)
		for _, t := range h.timers {
			t.Stop()
		}
		for _, tk := range slices.Sorted(maps.Keys(h.deferred)) {
			_ = h.st.Commit(h.deferred[tk])
			h.st.Sync()
		}
	}()
	for _, in := range first {
		if end, err := h.step(in, out); end || err != nil {
			return err
		}
	}
	for {
		if end, err := h.step(<-h.inputs, out); end || err != nil {
			return err
		}
	}
}

func (h *host) step(in input, out sink) (end bool, err error) {
	var outs []agent.Output
	switch in.kind {
	case inConnect:
		outs = h.m.Connect(in.conn)
	case inFrame:
		outs = h.m.Receive(in.conn, in.frame)
	case inDisconnect:
		outs = h.m.Disconnect(in.conn)
	case inTimer:
		delete(h.timers, in.tk)
		outs = h.m.Timer(in.timer)
	case inDeferred:
		delete(h.timers, in.tk)
		b := h.deferred[in.tk]
		delete(h.deferred, in.tk)
		_ = h.st.Commit(b)
		h.st.Sync()
	case inStop:
		return true, in.err
	}
	if err := h.apply(outs, out); err != nil {
		return true, err
	}
	if in.done != nil {
		close(in.done)
	}
	return in.last, nil
}

func (h *host) apply(outs []agent.Output, out sink) error {
	for _, o := range outs {
		if o.Kind == agent.OutSend || o.Kind == agent.OutSync {
			// The same sites the simulator kills at, switched on from
			// outside: GO_FAILPOINTS="acpsim/agent/respond-prompt=return(true)".
			if _, err := failpoint.Eval(FailpointPrefix + o.Step); err == nil {
				_ = out.flush() // what was written before the point was written
				return &FailpointError{Name: FailpointPrefix + o.Step}
			}
		}
		switch o.Kind {
		case agent.OutSend:
			if err := out.send(o.Conn, o.Frame); err != nil {
				return err
			}
		case agent.OutSync:
			h.st.Sync()
		case agent.OutTimer:
			h.after(o.After, input{kind: inTimer, timer: o.ID})
		case agent.OutDeferred:
			h.deferWrite(o.After, *o.Batch)
		}
	}
	return out.flush()
}

// stdioSink writes every frame, whatever its connection, as one line.
type stdioSink struct{ w *bufio.Writer }

func (s stdioSink) send(_ string, frame []byte) error {
	if _, err := s.w.Write(append(frame, '\n')); err != nil {
		return fmt.Errorf("writing to the Client: %w", err)
	}
	return nil
}

func (s stdioSink) flush() error { return s.w.Flush() }

// Stdio runs m as an Agent process speaking ndjson on r and w until r
// ends (the Client closed stdin) or writing fails. Every input goes through
// one loop, so m sees one step at a time, as in the simulator. Timers are
// wall-clock timers feeding the same loop.
func Stdio(m agent.Machine, st store.Store, r io.Reader, w io.Writer) error {
	h := newHost(m, st)
	go func() {
		br := bufio.NewReaderSize(r, 1<<16)
		for {
			// Bounded: a Client that never writes a newline costs
			// proc.MaxLine, and the Agent stops with an error saying so.
			line, err := proc.ReadRawLine(br)
			line = bytes.TrimSuffix(line, []byte("\n")) // a "\r" before it is the frame's, as a Client wrote it
			if len(line) > 0 && !h.feed(input{kind: inFrame, conn: StdioConn, frame: line}) {
				return // the process is ending: nobody reads any more
			}
			if err != nil {
				switch {
				case errors.Is(err, io.EOF):
					h.feed(input{kind: inDisconnect, conn: StdioConn, last: true})
				case errors.Is(err, proc.ErrLongLine):
					h.feed(input{kind: inStop, err: fmt.Errorf("the Client wrote %w", err)})
				default:
					h.feed(input{kind: inStop, err: fmt.Errorf("reading from the Client: %w", err)})
				}
				return
			}
		}
	}()
	return h.run(stdioSink{bufio.NewWriter(w)}, input{kind: inConnect, conn: StdioConn})
}
