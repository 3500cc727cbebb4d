package proc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxLine bounds one line an Agent writes on stdout. A longer one ends the
// connection: an Agent that never writes a newline must not exhaust memory.
const MaxLine = 16 << 20

// SendQueue bounds the frames waiting to be written to a child's stdin. An
// Agent that stops reading fills it, and Send then fails instead of blocking
// the driver.
const SendQueue = 1024

// ErrNotReading is Send's error when the child has stopped reading stdin.
var ErrNotReading = errors.New("the Agent is not reading its stdin")

// Process is an Agent started as a child process, speaking ndjson on its
// stdin and stdout: a dial.Conn over stdio. It runs in its own process
// group, and what it starts is killed with it (see Child): a shell
// wrapper's children would otherwise keep stdout open.
type Process struct {
	name   string
	child  *Child
	stdin  io.WriteCloser
	frames chan []byte
	sendq  chan []byte

	mu     sync.Mutex
	closed bool  // Close was called: Send refuses
	err    error // why the connection ended
	stderr StderrTail
	exited chan struct{} // closed once the process has been reaped
	status string        // how it ended, once exited is closed
}

// Start starts the Agent argv with env (nil: this process's environment)
// and names the connection name. The error is exec's: the command was not
// found or could not be started.
func Start(name string, argv, env []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no Agent command")
	}
	p := &Process{name: name, frames: make(chan []byte, 64), sendq: make(chan []byte, SendQueue), exited: make(chan struct{})}
	c, stdin, err := StartChild(argv, env, &p.stderr, true)
	if err != nil {
		return nil, err
	}
	p.child, p.stdin = c, stdin
	go p.write()
	go p.read(c.out)
	return p, nil
}

// Name implements dial.Conn.
func (p *Process) Name() string { return p.name }

// Frames implements dial.Conn.
func (p *Process) Frames() <-chan []byte { return p.frames }

// Err implements dial.Conn.
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Send implements dial.Conn: the frame is queued for the child's stdin. Whether
// the child reads it is not known here (it may die first).
func (p *Process) Send(frame []byte) (err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("stdin already closed")
	}
	select {
	case p.sendq <- frame:
		return nil
	default:
		return fmt.Errorf("%w (%d frames waiting)", ErrNotReading, SendQueue)
	}
}

// Close implements dial.Conn: closes the child's stdin once every queued frame is
// written. An Agent reads end of file and should exit.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.sendq)
	}
	return nil
}

// Kill sends SIGKILL to the child, its process group and what it started.
func (p *Process) Kill() { p.child.Kill() }

// Running reports whether the process is running or waiting for a CPU, not
// blocked: on Linux, from /proc; elsewhere always false.
func (p *Process) Running() bool { return p.child.Running() }

// Exited is closed once the child has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Status says how the child ended ("exit status 1", "signal: killed"); ""
// while it runs.
func (p *Process) Status() string {
	select {
	case <-p.exited:
		return p.status
	default:
		return ""
	}
}

// Stderr is what the child wrote on stderr (its last megabyte), trimmed.
func (p *Process) Stderr() string { return p.stderr.String() }

func (p *Process) write() {
	w := bufio.NewWriter(p.stdin)
	broken := false
	for f := range p.sendq {
		if broken {
			continue // the child is gone: drain so Send never blocks
		}
		_, err := w.Write(f)
		if err == nil {
			err = w.WriteByte('\n')
		}
		if err == nil && len(p.sendq) == 0 {
			err = w.Flush()
		}
		broken = err != nil
	}
	_ = w.Flush()
	_ = p.stdin.Close()
}

func (p *Process) read(stdout io.Reader) {
	br := bufio.NewReaderSize(stdout, 1<<16)
	var end error
	for {
		line, err := readAgentLine(br)
		if len(line) > 0 {
			p.frames <- line
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				end = err
			}
			break
		}
	}
	if end != nil {
		p.Kill() // it cannot be understood any more; don't leave it running
	}
	// Once the process is gone, a reader still waiting on stdout waits for
	// something it left behind: Wait ends that wait (see Child).
	_ = p.child.Wait()
	p.status = p.child.Status()
	p.mu.Lock()
	if end == nil {
		end = fmt.Errorf("the Agent process ended (%s)", p.status)
	}
	p.err = end
	p.mu.Unlock()
	close(p.exited)
	close(p.frames)
	p.Close() // stops the writer
}

// ErrLongLine is ReadLine's error: the peer wrote more than MaxLine bytes
// without a newline, of which nothing more was read.
var ErrLongLine = fmt.Errorf("a line longer than %d bytes without a newline", MaxLine)

// readAgentLine reads one line of the Agent's without its newline (and a
// trailing \r).
func readAgentLine(br *bufio.Reader) ([]byte, error) {
	line, err := ReadLine(br)
	if errors.Is(err, ErrLongLine) {
		return nil, fmt.Errorf("the Agent wrote %w", err)
	}
	return line, err
}

// ReadLine reads one line without its newline (and a trailing \r),
// holding at most MaxLine bytes of it: a peer that never writes a newline
// costs that much memory, not what it writes. A longer line is ErrLongLine,
// and nothing more of it is read.
func ReadLine(br *bufio.Reader) ([]byte, error) {
	line, err := ReadRawLine(br)
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	return line, err
}

// ReadRawLine is ReadLine keeping the line's bytes as they came, its
// newline included (a last line without one has none): for a tap, which
// forwards what it reads unchanged.
func ReadRawLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			return nil, ErrLongLine
		}
		if cap(line)-len(line) < len(chunk) {
			// Doubled, not append's quarter steps: a line near the limit
			// leaves half its size of garbage behind, not four times.
			grown := make([]byte, len(line), min(max(2*cap(line), len(line)+len(chunk)), MaxLine))
			line = grown[:copy(grown, line)]
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}
