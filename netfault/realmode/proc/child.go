// An Agent (or adapter) started as a child process, such that nothing it
// starts outlives it and no wait on it hangs: its own process group, its
// descendants found again through a mark in their environment, and its
// output pipes ours to close once it is gone.

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// spawnedVar marks the environment of every process a child starts, with
// one token per acpsim child it descends from: a descendant that left the
// process group (setsid) and whose parent died is still found by it.
const spawnedVar = "ACPSIM_SPAWNED_BY"

var childSeq atomic.Uint64

// running are the children not yet reaped, for KillAll.
var running struct {
	mu      sync.Mutex
	m       map[*Child]bool
	stopped bool // KillAll was called: no more starts
}

// ErrStopped is the error of a start after KillAll.
var ErrStopped = errors.New("acpsim is stopping: no more processes are started")

// KillAll kills every process this package started that still runs, and
// what they started, and waits (a while) until they are gone; a start
// after it fails (ErrStopped), so a run that restarts its killed Agent
// does not outlive it. An interrupted command then leaves nothing running
// and may remove what they wrote to.
func KillAll() {
	running.mu.Lock()
	running.stopped = true
	var cs []*Child
	for c := range running.m {
		cs = append(cs, c)
	}
	running.mu.Unlock()
	for _, c := range cs {
		c.Kill()
	}
	limit := time.After(2 * time.Second)
	for _, c := range cs {
		select {
		case <-c.swept:
		case <-limit:
			return
		}
	}
}

// Stopping reports whether KillAll was called: a seed that ends after it
// was cut short by the interrupt, and its result is no verdict.
func Stopping() bool {
	running.mu.Lock()
	defer running.mu.Unlock()
	return running.stopped
}

// Child is a started process. Its stdout (and stderr, when that is not a
// file) are pipes of ours rather than os/exec's, so that its Wait does not
// wait for a grandchild that holds them: once the child is reaped, its
// leftovers are killed, and a pipe still held open by one we could not
// reach is closed from our side.
type Child struct {
	cmd      *exec.Cmd
	token    string
	pipes    []string // its output pipes as /proc names them: a holder is its own
	ownGroup bool
	out      *outPipe
	errOut   *outPipe // nil: stderr went straight to a file
	copied   chan struct{}
	gone     chan struct{} // closed once the process is reaped
	swept    chan struct{} // closed once what it left running is killed too
	reaped   chan struct{} // closed once reaped and its pipes done with
	werr     error
}

// StartChild starts argv with env (nil: this process's environment), its
// stdin a pipe returned, its stdout read through Stdout, its stderr to
// stderr (nil: discarded). In a process group of its own when ownGroup.
// It is ErrStopped after KillAll.
func StartChild(argv, env []string, stderr io.Writer, ownGroup bool) (*Child, io.WriteCloser, error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("no command")
	}
	c := &Child{token: fmt.Sprintf("%d.%d", os.Getpid(), childSeq.Add(1)), ownGroup: ownGroup,
		copied: make(chan struct{}), gone: make(chan struct{}), swept: make(chan struct{}), reaped: make(chan struct{})}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = markEnv(env, c.token)
	if ownGroup {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdout = outW
	var errW *os.File
	switch w := stderr.(type) {
	case nil:
	case *os.File:
		cmd.Stderr = w
	default:
		var errR *os.File
		if errR, errW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			return nil, nil, err
		}
		cmd.Stderr = errW
		c.errOut = newOutPipe(errR)
	}
	running.mu.Lock()
	if err = ErrStopped; !running.stopped {
		err = cmd.Start()
	}
	if err == nil {
		if running.m == nil {
			running.m = map[*Child]bool{}
		}
		running.m[c] = true
	}
	running.mu.Unlock()
	outW.Close() // the child's copies are what keep them open now
	if errW != nil {
		errW.Close()
	}
	if err != nil {
		outR.Close()
		if c.errOut != nil {
			c.errOut.f.Close()
		}
		return nil, nil, err
	}
	c.cmd, c.out = cmd, newOutPipe(outR)
	c.pipes = append(c.pipes, pipeName(outR))
	if c.errOut != nil {
		c.pipes = append(c.pipes, pipeName(c.errOut.f))
		go func() {
			_, _ = io.Copy(stderr, c.errOut)
			close(c.copied)
		}()
	} else {
		close(c.copied)
	}
	go c.reap()
	return c, stdin, nil
}

// markEnv is env with this child's token added to spawnedVar.
func markEnv(env []string, token string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	marks := token
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, spawnedVar+"="); ok {
			marks = v + " " + token // descended from an acpsim child too: keep its mark
			continue
		}
		out = append(out, kv)
	}
	return append(out, spawnedVar+"="+marks)
}

// hasMark says whether an environment (NUL-separated, as /proc gives it)
// carries token.
func hasMark(environ []byte, token string) bool {
	if !bytes.Contains(environ, []byte(token)) {
		return false // most processes: no need to split their environment
	}
	for _, kv := range strings.Split(string(environ), "\x00") {
		if v, ok := strings.CutPrefix(kv, spawnedVar+"="); ok {
			for _, t := range strings.Fields(v) {
				if t == token {
					return true
				}
			}
		}
	}
	return false
}

func (c *Child) reap() {
	c.werr = c.cmd.Wait()
	close(c.gone)
	go func() { // alongside the pipes' end: the common end, at once, waits for no look
		killSpawned(c, 0, false) // what it left running: nothing of it outlives it
		running.mu.Lock()
		delete(running.m, c)
		running.mu.Unlock()
		close(c.swept)
	}()
	reapedAt := time.Now()
	// A pipe still held is held by a leftover that dropped the token: look
	// for its holders (a slower look, so only then), once.
	holders := sync.OnceFunc(func() { killSpawned(c, 0, true) })
	for _, p := range []*outPipe{c.out, c.errOut} {
		if p != nil {
			p.release(reapedAt, holders)
		}
	}
	<-c.copied
	<-c.swept
	close(c.reaped)
}

// Kill sends SIGKILL to the child, its process group and every process
// descended from it that can still be found.
func (c *Child) Kill() {
	select {
	case <-c.gone:
		killSpawned(c, 0, false) // its pid may belong to another process by now
		return
	default:
	}
	pid := c.cmd.Process.Pid
	killSpawned(c, pid, false) // first, while its tree holds together
	if c.ownGroup {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	_ = c.cmd.Process.Kill()
}

// Stdout is the child's stdout. Once the child is reaped, a Read waiting on
// it for a while ends at end of file, even when something the child left
// running still holds the pipe.
func (c *Child) Stdout() io.Reader { return c.out }

// Wait says the caller is done reading stdout, and waits until the child is
// reaped and its pipes closed; the error is exec's Wait's.
func (c *Child) Wait() error {
	_ = c.out.Close()
	<-c.reaped
	return c.werr
}

// Status says how the child ended ("exit status 1", "signal: killed"); ""
// while it runs.
func (c *Child) Status() string {
	select {
	case <-c.reaped:
		return c.cmd.ProcessState.String()
	default:
		return ""
	}
}

// ExitCode is the child's exit code once it is reaped (see Wait); -1
// before, or when a signal ended it.
func (c *Child) ExitCode() int { return c.cmd.ProcessState.ExitCode() }

// outPipe is the read end of a child's output pipe. It knows whether its
// reader is waiting on it: once the child is reaped, a reader waiting on
// an empty pipe waits for a process the child left behind, which may never
// close it.
type outPipe struct {
	f            *os.File
	ended        chan struct{} // closed at end of file, or by Close
	end          sync.Once
	mu           sync.Mutex
	blockedSince time.Time // zero: not in Read
}

func newOutPipe(f *os.File) *outPipe { return &outPipe{f: f, ended: make(chan struct{})} }

func (p *outPipe) Read(b []byte) (int, error) {
	select {
	case <-p.ended:
		return 0, io.EOF
	default:
	}
	p.mu.Lock()
	p.blockedSince = time.Now()
	p.mu.Unlock()
	n, err := p.f.Read(b)
	p.mu.Lock()
	p.blockedSince = time.Time{}
	p.mu.Unlock()
	if err != nil {
		p.end.Do(func() { close(p.ended) })
	}
	if errors.Is(err, os.ErrClosed) {
		err = io.EOF // closed by us: the child is gone, so is what it wrote
	}
	return n, err
}

// Close ends reading: a Read after it sees end of file.
func (p *outPipe) Close() error {
	p.end.Do(func() { close(p.ended) })
	return p.f.Close()
}

// release closes the pipe once it is done with, or once its reader has
// waited on it for a while after the child was reaped (so nothing the child
// itself wrote is left in it: a leftover holds it), after calling stuck.
func (p *outPipe) release(reapedAt time.Time, stuck func()) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.ended:
			_ = p.f.Close() // closing twice is harmless: os.File says so
			return
		case <-tick.C:
		}
		p.mu.Lock()
		since := p.blockedSince
		if since.Before(reapedAt) {
			since = reapedAt
		}
		held := !p.blockedSince.IsZero() && time.Since(since) > 100*time.Millisecond
		p.mu.Unlock()
		if held {
			stuck()
			_ = p.Close()
			return
		}
	}
}
