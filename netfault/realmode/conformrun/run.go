// Package conformrun is acpsim conform's runner: one conformance case
// (properties/conform/suite) against a real Agent, started as a process per
// connection (stdio) or reached at a URL, with real kills and restarts, and
// the case's frames as an acpsim trace (Trace). The suite judges; this
// package only carries out its actions.
package conformrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/acpsim/acpsim/netfault/realmode/dial"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/properties/conform/suite"
)

// Config says how to reach the Agent a case runs against.
type Config struct {
	// Agent is the command of a stdio Agent: started once per connection
	// the case opens, all of one case's processes with the same Env (and so
	// the same $ACPSIM_STORE).
	Agent []string
	// Env is the stdio Agent's environment, and the restart command's
	// (nil: this process's).
	Env []string
	// URL is a remote Agent's endpoint (http:// or ws://), instead of Agent.
	URL string
	// Restart is the shell command that kills the remote Agent and starts
	// it again, returning once it serves (ACPSIM_URL and ACPSIM_NODE=0 are
	// set); without it a case that kills the Agent does not apply.
	Restart string
	// AnswerTimeout bounds each wait for an answer (and a connection).
	AnswerTimeout time.Duration
	// Settle is the quiet period after which the Agent is taken to have
	// finished what it does on its own.
	Settle time.Duration
	// Skip are the parts of the case that stand on a baseline that did not
	// pass (suite.Plan): not run, not judged.
	Skip map[string]suite.Skip
}

// DefaultConfig has the default timeouts.
func DefaultConfig() Config {
	return Config{AnswerTimeout: 5 * time.Second, Settle: 300 * time.Millisecond}
}

type conformEvent struct {
	conn  string
	frame []byte
	ended bool
	why   string
}

type conformRun struct {
	cfg    Config
	e      *suite.Exec
	conns  map[string]dial.Conn
	procs  []*proc.Process
	events chan conformEvent
	done   chan struct{}
	reads  sync.WaitGroup
}

// Run runs case c once against the Agent cfg names and judges it. The
// error is for what is not the Agent's doing: its command cannot be
// started, the restart command fails.
func Run(cfg Config, c *suite.Case) (suite.Verdict, error) {
	if len(cfg.Agent) == 0 && cfg.URL == "" {
		return suite.Verdict{}, ErrNoAgent
	}
	r := &conformRun{cfg: cfg, e: suite.NewExec(c), conns: map[string]dial.Conn{}, events: make(chan conformEvent, 256), done: make(chan struct{})}
	r.e.Skip(cfg.Skip)
	defer r.stop()
	for {
		r.drain()
		a := r.e.Next()
		switch a.Kind {
		case suite.ActConnect:
			if err := r.connect(a.Conn); err != nil {
				return suite.Verdict{}, err
			}
		case suite.ActSend:
			if conn := r.conns[a.Conn]; conn != nil {
				if err := conn.Send(a.Frame); err != nil {
					r.e.Ended(a.Conn, "sending failed: "+err.Error())
				}
			}
		case suite.ActCut:
			r.cut(a.Conn)
		case suite.ActKill:
			if err := r.kill(); err != nil {
				return suite.Verdict{}, err
			}
		case suite.ActWait:
			r.wait(a.Settle)
		case suite.ActDone:
			return r.e.Verdict(), nil
		}
	}
}

func (r *conformRun) connect(name string) error {
	var conn dial.Conn
	if r.cfg.URL == "" {
		p, err := proc.Start(name, r.cfg.Agent, r.cfg.Env)
		if err != nil {
			return fmt.Errorf("cannot start the Agent %q: %v", strings.Join(r.cfg.Agent, " "), err)
		}
		r.procs = append(r.procs, p)
		conn = p
	} else {
		// After a restart the Agent may take a moment to listen again.
		deadline := time.Now().Add(r.cfg.AnswerTimeout)
		for {
			c, err := dial.Remote(context.Background(), r.cfg.URL, dial.Options{Timeout: r.cfg.AnswerTimeout})
			if err == nil {
				conn = c
				break
			}
			if time.Now().After(deadline) {
				r.e.Ended(name, fmt.Sprintf("cannot connect to %s: %v", r.cfg.URL, err))
				return nil
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	r.conns[name] = conn
	r.reads.Add(1)
	go func() {
		defer r.reads.Done()
		for f := range conn.Frames() {
			select {
			case r.events <- conformEvent{conn: name, frame: f}:
			case <-r.done:
				return
			}
		}
		why := fmt.Sprint(conn.Err())
		if p, ok := conn.(*proc.Process); ok {
			if s, _, _ := proc.StderrExcerpt(p.Stderr()); s != "" {
				why += ": " + s
			}
		}
		select {
		case r.events <- conformEvent{conn: name, ended: true, why: why}:
		case <-r.done:
		}
	}()
	return nil
}

func (r *conformRun) deliver(ev conformEvent) {
	if ev.ended {
		r.e.Ended(ev.conn, ev.why)
		return
	}
	r.e.Received(ev.conn, ev.frame)
}

// drain delivers what has arrived already, so the script's next step sees
// every frame the Agent wrote before it.
func (r *conformRun) drain() {
	for {
		select {
		case ev := <-r.events:
			r.deliver(ev)
		default:
			return
		}
	}
}

// wait delivers one event, or ends the wait: an answer wait after
// AnswerTimeout, a settle after Settle without a frame.
func (r *conformRun) wait(settle bool) {
	limit := r.cfg.AnswerTimeout
	if settle {
		limit = r.cfg.Settle
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case ev := <-r.events:
		r.deliver(ev)
	case <-t.C:
		r.e.TimedOut()
	}
}

// cut closes a connection from the Client's side; a stdio Agent reads end
// of file and exits (or is killed if it does not).
func (r *conformRun) cut(name string) {
	conn := r.conns[name]
	if conn == nil {
		return
	}
	_ = conn.Close()
	if p, ok := conn.(*proc.Process); ok {
		select {
		case <-p.Exited():
		case <-time.After(2 * time.Second):
			p.Kill()
			<-p.Exited()
		}
	}
}

// kill kills every Agent process of the case (stdio) or runs the restart
// command (remote).
func (r *conformRun) kill() error {
	if r.cfg.URL == "" {
		for _, p := range r.procs {
			p.Kill()
			<-p.Exited()
		}
		return nil
	}
	if r.cfg.Restart == "" {
		r.e.Unsupported("the case kills the Agent, and a remote Agent is killed and started again only by --restart CMD")
		return nil
	}
	for _, c := range r.conns {
		_ = c.Close()
	}
	cmd := exec.Command("sh", "-c", r.cfg.Restart)
	env := r.cfg.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append([]string{}, env...), "ACPSIM_NODE=0", "ACPSIM_URL="+r.cfg.URL)
	if out, err := proc.RunRestart(cmd); err != nil {
		return fmt.Errorf("--restart %q: %v: %s", r.cfg.Restart, err, lastLine(strings.TrimSpace(string(out))))
	}
	return nil
}

// stop ends every connection and process of the case and waits for their
// readers.
func (r *conformRun) stop() {
	close(r.done)
	for _, c := range r.conns {
		_ = c.Close()
	}
	for _, p := range r.procs {
		select {
		case <-p.Exited():
		case <-time.After(time.Second):
			p.Kill()
			<-p.Exited()
		}
	}
	r.reads.Wait()
}

// ErrNoAgent is Run's error when the config names neither a command
// nor a URL.
var ErrNoAgent = errors.New("no Agent: give a command or a URL")

// lastLine is the last line of s.
func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
