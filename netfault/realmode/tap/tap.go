// Package tap is acpsim tap: a transparent recorder between a real Client
// and a real Agent. It passes every frame through unchanged and appends
// each to an acpsim trace, one Agent process after another (each start of
// the tap is the next process), so a failure in the field becomes a trace
// acpsim judge reads. It may inject faults that end the Agent process
// (Faults), and its trace stays readable when it is killed as it writes
// (SealTrace, ReadHopTrace).
package tap

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/traces"
)

// Config is one run of acpsim tap.
type Config struct {
	// Agent is the Agent's command line; Env its environment (nil: ours).
	Agent []string
	Env   []string
	// Trace is the trace file: created with a header when missing or
	// empty, appended to otherwise (it must then be a trace acpsim reads).
	Trace string
	// In is the Client's side (the tap's stdin), Out where the Agent's
	// frames go (the tap's stdout), Err where the Agent's stderr goes.
	In       io.Reader
	Out, Err io.Writer
	// Label names the Agent in a new trace's header (default: argv).
	Label string
	// Faults are the faults the tap injects; zero rates (the default)
	// make it transparent.
	Faults Faults
	// Client names the Client in the trace (default ClientName); Process,
	// when not 0, numbers this Agent process instead of the next after
	// the trace's last. acpsim check --via names the hop so, each proxy
	// process's Agent after the process it is behind.
	Client  string
	Process int
}

// Faults are the faults a tap injects on a stdio link, as the
// transport really has them: each ends the Agent process (SIGKILL of its
// process group), which the Client sees as its connection breaking.
type Faults struct {
	// Kill is the chance that the Agent is killed as it answers a
	// session/prompt: after it inserted the message, before the response
	// reaches the Client (the tap drops it).
	Kill float64
	// Cut is the chance that a session/prompt request is lost with the
	// pipe: the tap drops it and kills the Agent before it reads it.
	Cut float64
	// Seed draws the decisions; each Agent process of the trace draws from
	// its own stream of it, so a rerun with the same seed makes the same
	// choices for the same frames.
	Seed uint64
}

// FaultKinds are the --fault-rates kinds of acpsim tap, at rate 0.
var FaultKinds = map[string]float64{"kill": 0, "cut": 0}

// ProcessEnv tells the Agent a tap starts its process's number in the
// tap's trace (1, 2, …): acpsim agent draws its --prompt-errors by it, so
// that each process of a seed draws its own.
const ProcessEnv = "ACPSIM_TAP_PROCESS"

// AgentName is the Agent installation's name in the traces of real runs,
// the tap's as acpsim check's and conform's: its processes are a1#1, a1#2,
// … in the order they start.
const AgentName = "a1"

// ClientName is the name the trace gives the Client behind a tap.
const ClientName = "c1"

// Run runs the Agent between cfg.In and cfg.Out until the Agent exits or
// both sides are done, recording every line that passes. It returns the
// Agent's exit code; an error means the trace could not be read or written
// or the Agent could not be started.
func Run(cfg Config) (int, error) {
	rec, err := openTapTrace(cfg)
	if err != nil {
		return 0, err
	}
	defer rec.close()
	stderr := sharedStderr(cfg.Err)
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(slices.Clip(env), ProcessEnv+"="+strconv.Itoa(rec.n))
	c, stdin, err := proc.StartChild(cfg.Agent, env, stderr, true)
	if err != nil {
		return 0, fmt.Errorf("cannot start the Agent %q: %v", cfg.Agent[0], err)
	}
	inj := newTapInjector(cfg.Faults, rec, c.Kill)
	go func() { // the Client's frames: forwarded until the Client closes its side
		br := bufio.NewReaderSize(cfg.In, 64<<10)
		for {
			// Bounded as the proxy's reads are: a Client that never
			// writes a newline costs proc.MaxLine, and its input ends.
			line, err := proc.ReadRawLine(br)
			if len(line) > 0 {
				if !inj.passC2A(line) {
					break
				}
				if _, werr := stdin.Write(line); werr != nil {
					break
				}
			}
			if errors.Is(err, proc.ErrLongLine) {
				fmt.Fprintf(stderr, "acpsim tap: the Client wrote %v: its input ends there\n", err)
			}
			if err != nil {
				break
			}
		}
		stdin.Close()
	}()
	v1 := tapV1{w: stderr}
	br := bufio.NewReaderSize(c.Stdout(), 64<<10)
	longLine := false
	for {
		line, err := proc.ReadRawLine(br)
		if len(line) > 0 && inj.passA2C(line) {
			v1.read(line)
			cfg.Out.Write(line) // a Client gone away is the Agent's to notice
		}
		if errors.Is(err, proc.ErrLongLine) {
			longLine = true
			fmt.Fprintf(stderr, "acpsim tap: the Agent wrote %v: killed it\n", err)
			c.Kill()
		}
		if err != nil {
			break
		}
	}
	werr := c.Wait()
	code, note := 0, "exit"
	var ee *exec.ExitError
	switch {
	case inj.killed():
		code, note = 137, "killed by the tap's fault"
	case longLine:
		code, note = 137, "killed by the tap: the Agent wrote "+proc.ErrLongLine.Error()
	case errors.As(werr, &ee):
		code, note = ee.ExitCode(), ee.String()
	case werr != nil:
		return 0, werr
	}
	rec.end(note)
	return code, rec.err
}

// tapRecorder appends the tap's events to the trace; both directions'
// goroutines write through it, one event at a time.
type tapRecorder struct {
	mu     sync.Mutex
	f      *os.File
	w      *traces.Writer
	seq    int64
	base   time.Time // T 0 of this process's events, after the trace's last
	link   string
	client string
	proc   string
	n      int // this process's number in the trace, from 1
	err    error
	origin int64
	lastT  int64 // the trace's last event time: times never go back
	size   int64 // the file's size after the last event this tap read or wrote
}

func openTapTrace(cfg Config) (*tapRecorder, error) {
	if len(cfg.Agent) == 0 {
		return nil, errors.New("no Agent command: give it after --")
	}
	f, err := os.OpenFile(cfg.Trace, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// Two taps may share a trace (a Client that starts its next Agent
	// before the last one exited): each event is appended under an
	// exclusive lock, after the events the other wrote.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	r := &tapRecorder{f: f, base: time.Now()}
	procs, format := 0, traces.FormatVersion
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.Size() > 0 {
		tail, err := readTapTail(f, cfg.Trace, fi.Size())
		if err == nil && tail.cut > 0 {
			// A tap killed while writing a frame left part of its line: the
			// trace ends at the line before, or no later tap could append.
			err = f.Truncate(tail.end)
			if err == nil && cfg.Err != nil {
				fmt.Fprintf(cfg.Err, "acpsim tap: %s ended in a cut-off line (%d bytes, a tap killed while writing it): truncated to its last whole line, appending from there\n", cfg.Trace, tail.cut)
			}
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		r.seq, r.size, r.lastT, procs = tail.seq, tail.end, tail.lastT, tail.procs
		if tail.format != 0 {
			format = tail.format // a trace of format 1 stays format 1
		}
		r.origin = r.lastT + 1000
	}
	if r.size == 0 {
		label := cfg.Label
		if label == "" {
			label = fmt.Sprint(cfg.Agent)
		}
		hw := traces.NewWriter(f)
		err := hw.WriteHeader(tapHeader(label))
		if err == nil {
			err = hw.Flush()
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		r.size = r.fileSize()
	}
	// An appender's events keep their seq (format 2 would leave it out):
	// the next tap numbers its own from this trace's last line.
	r.w = traces.NewAppendWriter(f, format)
	r.n, r.client = procs+1, ClientName
	if cfg.Process > 0 {
		r.n = cfg.Process
	}
	if cfg.Client != "" {
		r.client = cfg.Client
	}
	r.proc = AgentName + "#" + strconv.Itoa(r.n)
	r.link = r.client + ":" + r.proc
	// The process is numbered now, under the lock, so two taps starting
	// together do not take the same number.
	r.write(traces.Event{Kind: traces.KindRestart, From: r.proc})
	r.write(traces.Event{Kind: traces.KindConnect, Link: r.link, From: r.client, To: r.proc})
	return r, nil
}

// tapHeader is the header of a new tap's trace; label names the Agent.
func tapHeader(label string) traces.Header {
	return traces.Header{Format: traces.FormatVersion, Tool: "acpsim tap", Source: traces.SourceSeed, Agent: label, Link: "stdio",
		Clients: 1, Rates: map[string]float64{}, Knobs: map[string]string{},
		Contract: traces.Contract{Retention: "all", LiveOnly: []string{}}, KeyLengthUnit: acp.KeyLengthUnit,
		Observed: traces.ObservedAtTap}
}

// frameLocked records one line as sent and delivered at once: the tap sees
// a frame as it passes, so it is in flight only inside the tap. A Client's
// prompt is named as a submission by its key (every attempt of a key is one
// submission, as the RFD has it), an unkeyed one by its own event.
func (r *tapRecorder) frameLocked(dir string, line []byte) {
	frame := string(trimEOL(line))
	from, to := r.client, r.proc
	if dir == traces.AgentToClient {
		from, to = to, from
	}
	e := traces.Event{Kind: traces.KindSend, Link: r.link, From: from, To: to, Dir: dir, Frame: frame}
	if dir == traces.ClientToAgent {
		e.Sub = SubmissionOf(frame, r.seq+1)
	}
	r.addLocked(e)
	e.Kind, e.Sub = traces.KindDeliver, ""
	r.addLocked(e)
}

// SubmissionOf names the submission a Client's frame is an attempt of, ""
// for a frame that is not a prompt: "k" and the first bytes of the sha256
// of its idempotencyKey in hex, or, for a prompt without one, "u" and seq
// (its place in the trace). acpsim conform's traces name them the same way.
func SubmissionOf(frame string, seq int64) string {
	l := acp.ParseLine([]byte(frame))
	if l.Batch || l.Entries[0].Err != nil || l.Entries[0].Msg.Method != acp.MethodSessionPrompt {
		return ""
	}
	var p acp.PromptParams
	if acp.DecodeParams(l.Entries[0].Msg.Params, &p) != nil || len(p.IdempotencyKey) == 0 || string(p.IdempotencyKey) == "null" {
		return "u" + strconv.FormatInt(seq, 10)
	}
	key := string(p.IdempotencyKey) // a malformed key names its submission as sent
	var s string
	if json.Unmarshal(p.IdempotencyKey, &s) == nil {
		key = s // one key however it is escaped
	}
	sum := sha256.Sum256([]byte(key))
	return "k" + hex.EncodeToString(sum[:6])
}

func (r *tapRecorder) end(note string) {
	r.add(traces.Event{Kind: traces.KindDisconnect, Link: r.link, From: r.client, To: r.proc, Note: note})
}

func (r *tapRecorder) add(e traces.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(e)
}

func (r *tapRecorder) addLocked(e traces.Event) {
	fd := int(r.f.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
		if r.err == nil {
			r.err = err
		}
		return
	}
	defer syscall.Flock(fd, syscall.LOCK_UN)
	r.catchUp()
	r.write(e)
}

// write appends e after the trace's last event; the file lock is held.
func (r *tapRecorder) write(e traces.Event) {
	r.seq++
	r.lastT = max(r.lastT, r.origin+time.Since(r.base).Microseconds())
	e.Seq, e.T = r.seq, r.lastT
	if err := r.w.WriteEvent(&e); err != nil && r.err == nil {
		r.err = err
	}
	if err := r.w.Flush(); err != nil && r.err == nil { // a killed tap keeps every frame it passed
		r.err = err
	}
	r.size = r.fileSize()
}

func (r *tapRecorder) fileSize() int64 {
	fi, err := r.f.Stat()
	if err != nil {
		return r.size
	}
	return fi.Size()
}

// catchUp reads the events another tap appended since this one last wrote,
// for their last seq and time.
func (r *tapRecorder) catchUp() {
	fi, err := r.f.Stat()
	if err != nil || fi.Size() <= r.size {
		return
	}
	tail := make([]byte, fi.Size()-r.size)
	if _, err := r.f.ReadAt(tail, r.size); err != nil {
		return
	}
	r.size = fi.Size()
	lines := bytes.Split(bytes.TrimRight(tail, "\n"), []byte("\n"))
	var last struct {
		Seq int64 `json:"seq"`
		T   int64 `json:"t"`
	}
	if json.Unmarshal(lines[len(lines)-1], &last) == nil {
		if last.Seq == 0 { // a seq left out (format 2): one a line
			last.Seq = r.seq + int64(len(lines))
		}
		r.seq, r.lastT = max(r.seq, last.Seq), max(r.lastT, last.T)
	}
}

func (r *tapRecorder) close() {
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = err
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
