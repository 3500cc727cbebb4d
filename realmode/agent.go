// Package realmode runs acpsim's state machines against the real world:
// OS pipes, the wall clock, goroutines. It is the only place those are
// allowed; the simulation packages stay deterministic. The same Agent state
// machine serves both, so the executable and the model cannot drift apart.
package realmode

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/pingcap/failpoint"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
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

// input is one thing that happened to the Agent process.
type input struct {
	line  []byte
	timer int
	eof   bool
	err   error
}

// ServeStdio runs m as an Agent process speaking ndjson on r and w until r
// ends (the Client closed stdin) or writing fails. Every input goes through
// one loop, so m sees one step at a time, as in the simulator. Timers are
// wall-clock timers feeding the same loop.
func ServeStdio(m agent.Machine, st store.Store, r io.Reader, w io.Writer) error {
	inputs := make(chan input, 16)
	done := make(chan struct{})
	defer close(done)
	feed := func(in input) {
		select {
		case inputs <- in:
		case <-done: // the process is ending: nobody reads any more
		}
	}
	go func() {
		br := bufio.NewReaderSize(r, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 && line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			if len(line) > 0 {
				feed(input{line: line})
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					feed(input{eof: true})
				} else {
					feed(input{err: err})
				}
				return
			}
		}
	}()
	bw := bufio.NewWriter(w)
	apply := func(outs []agent.Output) error {
		for _, o := range outs {
			if o.Kind == agent.OutSend || o.Kind == agent.OutSync {
				// The same sites the simulator kills at, switched on from
				// outside: GO_FAILPOINTS="acpsim/agent/respond-prompt=return(true)".
				if _, err := failpoint.Eval(FailpointPrefix + o.Step); err == nil {
					_ = bw.Flush() // what was written before the point was written
					return &FailpointError{Name: FailpointPrefix + o.Step}
				}
			}
			switch o.Kind {
			case agent.OutSend:
				if _, err := bw.Write(append(o.Frame, '\n')); err != nil {
					return fmt.Errorf("writing to the Client: %w", err)
				}
			case agent.OutSync:
				st.Sync()
			case agent.OutTimer:
				id := o.ID
				time.AfterFunc(o.After, func() { feed(input{timer: id}) })
			case agent.OutDeferred:
				b := o.Batch
				time.AfterFunc(o.After, func() { _ = st.Commit(b); st.Sync() })
			}
		}
		return bw.Flush()
	}
	if err := apply(m.Connect(StdioConn)); err != nil {
		return err
	}
	for in := range inputs {
		var err error
		switch {
		case in.eof:
			return apply(m.Disconnect(StdioConn))
		case in.err != nil:
			return fmt.Errorf("reading from the Client: %w", in.err)
		case in.line != nil:
			err = apply(m.Receive(StdioConn, in.line))
		default:
			err = apply(m.Timer(in.timer))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
