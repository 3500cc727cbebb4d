// Package stdioproxy is acpsim proxy: the model proxies of actors/proxy as a
// real stdio hop between a Client (the proxy's stdin and stdout) and an
// Agent process it starts. The Proxy state machine is the simulator's; this
// package only feeds it lines and timer fires from one loop and carries out
// what it returns.
package stdioproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/sim"
)

// clientConn is the proxy's one connection from a Client, its stdio, named
// as acpsim agent names its own (serve.StdioConn).
const clientConn = "stdio"

// Config is one run of acpsim proxy.
type Config struct {
	// Agent is the Agent's command line; Env its environment (nil: ours).
	Agent []string
	Env   []string
	// Mode is one of proxy.Modes; RetryAfter is a fresh-key-retry proxy's
	// wait for an answer before it sends the prompt again (0: the
	// simulator's proxy.DefaultRetryAfter).
	Mode       string
	RetryAfter time.Duration
	// NewID makes a fresh-key-retry proxy's keys.
	NewID func() string
	// In is the Client's side (the proxy's stdin), Out where the frames for
	// the Client go (its stdout), Err where the Agent's stderr goes, and
	// the proxy's own notes.
	In       io.Reader
	Out, Err io.Writer
	// ExitGrace is how long the Agent has to exit once its stdin is closed
	// at the end of In before it is killed (0: ExitGrace).
	ExitGrace time.Duration
}

// ExitGrace is how long acpsim proxy waits for its Agent to exit after
// closing its stdin, as acpsim check does, before it kills it: an Agent
// that ignores the end of its input must not keep the proxy alive.
const ExitGrace = 2 * time.Second

// Run starts the Agent and runs a proxy of cfg.Mode between cfg.In and
// cfg.Out and the Agent's pipes until the Agent exits; at the end of cfg.In
// it closes the Agent's stdin and waits for it, cfg.ExitGrace at most, then
// kills it. A line of either side over proc.MaxLine is not read: the Client's
// input ends there, the Agent is killed. It returns the Agent's exit code
// (128+n for a signal n); an error means it could not start the Agent.
//
// One goroutine (the caller's) owns the Proxy: the lines from either side
// and the proxy's timers reach it over channels, so it sees one input at a
// time, as in the simulator.
func Run(cfg Config) (int, error) {
	if len(cfg.Agent) == 0 {
		return 0, errors.New("no Agent command")
	}
	if err := proxy.Check(cfg.Mode); err != nil {
		return 0, err
	}
	if cfg.NewID == nil {
		return 0, errors.New("no NewID: a proxy needs fresh ids for the keys it makes")
	}
	// No process group of its own: the Agent stays in the proxy's, so a
	// SIGKILL to that group (acpsim check's kill of the proxy it started in
	// place of the Agent) kills the Agent too, as a crash of the host would.
	c, stdin, err := proc.StartChild(cfg.Agent, cfg.Env, cfg.Err, false)
	if err != nil {
		return 0, fmt.Errorf("cannot start the Agent %q: %v", cfg.Agent[0], err)
	}
	done := make(chan struct{}) // closed when the loop ends: no goroutine blocks on it after
	defer close(done)
	toAgent := make(chan []byte, proc.SendQueue)
	go writeLines(stdin, toAgent)
	clientLines, agentLines := readLines(cfg.In, done), readLines(c.Stdout(), done)
	fromClient, fromAgent := clientLines.ch, agentLines.ch
	fired := make(chan int)
	grace := cfg.ExitGrace
	if grace <= 0 {
		grace = ExitGrace
	}
	notes := cfg.Err
	if notes == nil {
		notes = io.Discard
	}
	var exitWait *time.Timer
	var exitLimit <-chan time.Time // set once the Agent's stdin is closed
	defer func() {
		if exitWait != nil {
			exitWait.Stop()
		}
	}()

	inner := &pipeAgent{q: toAgent}
	p := proxy.New(inner, cfg.Mode, agent.Env{Name: "acpsim-proxy", Choose: sim.Healthy{}.Choose, NewID: cfg.NewID}, 0)
	if cfg.RetryAfter > 0 {
		p.RetryAfter = cfg.RetryAfter
	}
	out := bufio.NewWriter(cfg.Out)
	var timers []*time.Timer
	defer func() {
		for _, t := range timers {
			t.Stop()
		}
	}()
	apply := func(outs []agent.Output) {
		for _, o := range outs {
			switch o.Kind {
			case agent.OutSend: // the inner Machine sends nothing: every send is the Client's
				out.Write(o.Frame)
				out.WriteByte('\n')
			case agent.OutTimer:
				id := o.ID
				timers = append(timers, time.AfterFunc(o.After, func() {
					select {
					case fired <- id:
					case <-done:
					}
				}))
			}
		}
		out.Flush() // a Client gone away is the Agent's to notice, as for the tap
	}

	apply(p.Connect(clientConn))
	for fromAgent != nil {
		select {
		case line, ok := <-fromClient:
			if !ok {
				if errors.Is(clientLines.err, proc.ErrLongLine) {
					fmt.Fprintf(notes, "acpsim proxy: the Client wrote %v: its input ends there\n", proc.ErrLongLine)
				}
				fromClient = nil // the Client closed its side: so does the proxy
				apply(p.Disconnect(clientConn))
				inner.close()
				exitWait = time.NewTimer(grace)
				exitLimit = exitWait.C
				continue
			}
			apply(p.Receive(clientConn, line))
		case line, ok := <-fromAgent:
			if !ok {
				if errors.Is(agentLines.err, proc.ErrLongLine) {
					fmt.Fprintf(notes, "acpsim proxy: the Agent wrote %v: killed it\n", proc.ErrLongLine)
					c.Kill()
				}
				fromAgent = nil
				continue
			}
			apply(p.FromAgent(clientConn, line))
		case id := <-fired:
			apply(p.Timer(id))
		case <-exitLimit:
			exitLimit = nil
			fmt.Fprintf(notes, "acpsim proxy: the Agent did not exit within %v of the end of its input: killed it\n", grace)
			c.Kill() // its stdout closes with it, which ends the loop
		}
	}
	inner.close() // the Agent is gone: the writer drains and closes its stdin
	return exitCode(c.Wait())
}

// exitCode is a waited-for child's exit code, 128+n when signal n ended it
// (the shell's convention: SIGKILL is 137).
func exitCode(werr error) (int, error) {
	var ee *exec.ExitError
	switch {
	case werr == nil:
		return 0, nil
	case errors.As(werr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	default:
		return 0, werr
	}
}

// pipeAgent is the real Agent as the Proxy's inner Machine: what the proxy
// forwards goes to the Agent's stdin, and the Agent's answers come back
// through Proxy.FromAgent, not from these methods. It is used from the
// proxy's loop only.
type pipeAgent struct {
	q      chan []byte
	closed bool
}

func (a *pipeAgent) Connect(string) []agent.Output    { return nil }
func (a *pipeAgent) Disconnect(string) []agent.Output { return nil }
func (a *pipeAgent) Timer(int) []agent.Output         { return nil }

// Receive queues frame for the Agent's stdin; after the Client's end (a
// proxy's own retry may still fire) there is no stdin to write to.
func (a *pipeAgent) Receive(_ string, frame []byte) []agent.Output {
	if !a.closed {
		a.q <- frame // blocks only when the Agent stops reading: a pipe's backpressure
	}
	return nil
}

func (a *pipeAgent) close() {
	if !a.closed {
		a.closed = true
		close(a.q)
	}
}

// writeLines writes each frame of q as a line to w, then closes w. After a
// failed write (the Agent is gone) it drains q, so a sender never blocks.
func writeLines(w io.WriteCloser, q <-chan []byte) {
	bw := bufio.NewWriterSize(w, 64<<10)
	broken := false
	for f := range q {
		if broken {
			continue
		}
		_, err := bw.Write(f)
		if err == nil {
			err = bw.WriteByte('\n')
		}
		if err == nil && len(q) == 0 {
			err = bw.Flush()
		}
		broken = err != nil
	}
	_ = bw.Flush()
	_ = w.Close()
}

// lines are the lines of one side, and why they ended: set before ch is
// closed, so read it after.
type lines struct {
	ch  chan []byte
	err error
}

// readLines yields every line of r without its newline (a last line without
// one too), and is closed at the end of r, on a read error, or at a line
// over proc.MaxLine (err proc.ErrLongLine), of which nothing is kept: a
// proxy does not judge frames, but one that never ends must not cost more
// than that.
func readLines(r io.Reader, done <-chan struct{}) *lines {
	l := &lines{ch: make(chan []byte)}
	go func() {
		defer close(l.ch)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := proc.ReadLine(br)
			if len(line) > 0 {
				select {
				case l.ch <- line:
				case <-done:
					return
				}
			}
			if err != nil {
				l.err = err
				return
			}
		}
	}()
	return l
}
