// What a tap reads of the trace it appends to: the header and the end, not
// the whole (a trace of a long session may be hundreds of megabytes, read
// at every start of the Agent), and the repair of a last line cut off by a
// tap killed while writing it.

package tap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"github.com/acpsim/acpsim/traces"
)

// tapTail is what appending to a tap's trace needs to know of it.
type tapTail struct {
	end   int64 // the end of its last whole line: where appending starts
	cut   int64 // bytes after end: a cut-off line, to be truncated
	seq   int64 // the last event's seq
	lastT int64 // the last event's time, the latest (times never go back)
	procs int   // the number of the last Agent process it records
	// format is the trace's (its header's): a tap appends in it, so a
	// trace of format 1 stays format 1 throughout.
	format int
}

// readTapTail checks the header of the trace in f (size bytes) and reads its
// end. A last line without a newline, or one that is not JSON, is a line
// a killed tap was writing: it is left out (cut says how much), the lines
// before it are the trace.
func readTapTail(f *os.File, name string, size int64) (tapTail, error) {
	if cut, err := cutTapHeader(f, size); err != nil || cut {
		return tapTail{cut: size}, err // killed before its header was written whole: start again
	}
	h, err := traces.NewDecoder(io.NewSectionReader(f, 0, size), name).Header()
	if err != nil {
		return tapTail{}, fmt.Errorf("not appending to a trace it cannot read: %v", err)
	}
	if h.Observed != traces.ObservedAtTap {
		return tapTail{}, fmt.Errorf("%s: a trace of %s, not of acpsim tap: give a new file", name, h.Tool)
	}
	headerEnd, err := indexByteAt(f, 0, size, '\n')
	if err != nil {
		return tapTail{}, err
	}
	headerEnd++ // the header read whole, so its newline is there
	tail := tapTail{end: size, format: h.Format}
	for dropped := 0; tail.end > headerEnd; {
		nl, err := lastIndexAt(f, headerEnd, tail.end, []byte("\n"))
		if err != nil {
			return tapTail{}, err
		}
		if nl < tail.end-1 { // bytes after the last newline: cut off
			tail.end = max(nl+1, headerEnd)
			continue
		}
		start, err := lastIndexAt(f, headerEnd, nl, []byte("\n"))
		if err != nil {
			return tapTail{}, err
		}
		start = max(start+1, headerEnd)
		if nl-start > traces.MaxLineBytes {
			return tapTail{}, fmt.Errorf("not appending to a trace it cannot read: %s: its last line is longer than %d bytes", name, traces.MaxLineBytes)
		}
		line := make([]byte, nl-start)
		if _, err := f.ReadAt(line, start); err != nil {
			return tapTail{}, err
		}
		var last struct {
			T    int64  `json:"t"`
			Seq  int64  `json:"seq"`
			Kind string `json:"kind"`
		}
		if json.Unmarshal(line, &last) != nil || last.Kind == "" {
			if dropped++; dropped > 1 { // more than one write cut off: not the tap's doing
				return tapTail{}, fmt.Errorf("not appending to a trace it cannot read: %s: its last two lines are not events", name)
			}
			tail.end = start // not an event: the remains of a cut-off write
			continue
		}
		tail.seq, tail.lastT = last.Seq, last.T
		if tail.seq == 0 {
			// Format 2 left the seq out (a trace some other writer
			// began): an event's seq is its line's number after the
			// header.
			n, err := countLines(f, headerEnd, tail.end)
			if err != nil {
				return tapTail{}, err
			}
			tail.seq = n
		}
		break
	}
	tail.cut = size - tail.end
	tail.procs, err = lastTapProcess(f, headerEnd, tail.end)
	return tail, err
}

// tapHeaderStarts are how a tap's header line starts, as WriteHeader writes
// it, in each format a tap has written.
var tapHeaderStarts = [][]byte{
	[]byte(`{"format":2,"tool":"acpsim tap","source":"seed",`),
	[]byte(`{"format":1,"tool":"acpsim tap","source":"seed",`),
}

// cutTapHeader says whether f holds nothing but the start of a tap's
// header, cut off: no newline, and what there is reads as a tap's header
// would. A file that might be anything else is not to be emptied.
func cutTapHeader(f *os.File, size int64) (bool, error) {
	if size > scanChunk {
		return false, nil
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil {
		return false, err
	}
	if bytes.IndexByte(b, '\n') >= 0 {
		return false, nil
	}
	for _, start := range tapHeaderStarts {
		if bytes.HasPrefix(b, start) || bytes.HasPrefix(start, b) {
			return true, nil
		}
	}
	return false, nil
}

// restartMark starts the number of a tap's restart event as the writer
// writes it, right after the line's time and seq. In format 1 a frame
// escapes its quotes, but in format 2 a frame that is JSON is written as it
// is and may hold the mark too: only a mark at the start of a line, after
// {"t":N,"seq":N, or {"t":N, is an event's (eventStartAt).
var restartMark = []byte(`"kind":"restart","from":"` + AgentName + "#")

// lastTapProcess is the number of the last restart event in f's [from, to),
// 0 when there is none. Processes are numbered in the order they start, so
// it is the highest. from is the start of a line.
func lastTapProcess(f *os.File, from, to int64) (int, error) {
	at := int64(-1)
	for end := to; ; {
		var err error
		if at, err = lastIndexAt(f, from, end, restartMark); err != nil || at < 0 {
			return 0, err
		}
		ok, err := eventStartAt(f, from, at)
		if err != nil {
			return 0, err
		}
		if ok {
			break
		}
		end = at + int64(len(restartMark)) - 1 // the mark was inside a frame: look before it
	}
	digits := make([]byte, 20)
	n, err := f.ReadAt(digits, at+int64(len(restartMark)))
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	digits = digits[:n]
	if q := bytes.IndexByte(digits, '"'); q >= 0 {
		digits = digits[:q]
	}
	procs, err := strconv.Atoi(string(digits))
	if err != nil {
		return 0, fmt.Errorf("not appending to a trace it cannot read: a restart event names process %q", digits)
	}
	return procs, nil
}

// eventPrefix is how an event line starts up to its kind (format 2 may
// leave the seq out).
var eventPrefix = regexp.MustCompile(`^\{"t":[0-9]+,("seq":[0-9]+,)?$`)

// eventStartAt says whether the bytes of f before at, back to the start of
// their line (or to from, a line's start), are an event's {"t":N,"seq":N,
// or {"t":N,.
func eventStartAt(f *os.File, from, at int64) (bool, error) {
	start := max(from, at-64)
	b := make([]byte, at-start)
	if _, err := f.ReadAt(b, start); err != nil {
		return false, err
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	} else if start > from {
		return false, nil // a longer run of bytes than an event's time and seq
	}
	return eventPrefix.Match(b), nil
}

// countLines is the number of newlines in r's [from, to), read a chunk at a
// time.
func countLines(r io.ReaderAt, from, to int64) (int64, error) {
	buf := make([]byte, scanChunk)
	n := int64(0)
	for at := from; at < to; {
		b := buf[:min(int64(len(buf)), to-at)]
		if _, err := r.ReadAt(b, at); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		n += int64(bytes.Count(b, []byte("\n")))
		at += int64(len(b))
	}
	return n, nil
}

// scanChunk is how much of a trace the scans read at a time.
const scanChunk = 64 << 10

// lastIndexAt is the offset of the last sep in r's [from, to), -1 when there
// is none, read backwards a chunk at a time.
func lastIndexAt(r io.ReaderAt, from, to int64, sep []byte) (int64, error) {
	buf := make([]byte, scanChunk+len(sep)-1)
	for end := to; end > from; {
		start := max(from, end-scanChunk)
		b := buf[:min(to, end+int64(len(sep)-1))-start] // the overlap finds a sep across the chunks' border
		if _, err := r.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return -1, err
		}
		if i := bytes.LastIndex(b, sep); i >= 0 {
			return start + int64(i), nil
		}
		end = start
	}
	return -1, nil
}

// indexByteAt is the offset of the first c in r's [from, to), -1 when none.
func indexByteAt(r io.ReaderAt, from, to int64, c byte) (int64, error) {
	buf := make([]byte, scanChunk)
	for start := from; start < to; start += scanChunk {
		b := buf[:min(scanChunk, to-start)]
		if _, err := r.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return -1, err
		}
		if i := bytes.IndexByte(b, c); i >= 0 {
			return start + int64(i), nil
		}
	}
	return -1, nil
}

// ReadHopTrace reads the trace the taps of an acpsim check --via seed
// appended to together (check.Config.HopTrace): nil when no tap started (the
// proxy did not start the Agent through {agent} or $ACPSIM_AGENT_COMMAND).
// A last line cut off by a tap killed as it wrote is left out, and the
// links of taps killed with their proxy are ended as killed (in the log
// returned; the file is read once).
func ReadHopTrace(path string) (*traces.Log, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() == 0 {
		f.Close()
		return nil, nil
	}
	var tail tapTail
	if err == nil {
		tail, err = readTapTail(f, path, fi.Size())
	}
	if err == nil && tail.cut > 0 {
		err = f.Truncate(tail.end)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("the proxy→Agent hop's trace %s: %v", path, err)
	}
	if tail.cut > 0 && tail.end == 0 {
		return nil, nil // killed before its header was whole
	}
	log, err := traces.ReadFile(path)
	if err != nil {
		return nil, err
	}
	log.Events = append(log.Events, sealEvents(log, "killed with its proxy")...) // the file is scratch: sealed in memory
	return log, nil
}
