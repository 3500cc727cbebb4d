package traces

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// MaxLineBytes bounds one line of a trace. The longest frame a real Agent may
// write is 16 MiB (netfault/realmode/proc.MaxLine), and escaping it once more
// inside its event (format 1, or a frame that is not JSON in format 2)
// mostly adds a backslash per quote: four times that is room to spare. A
// longer line is not a trace: judge /dev/zero must fail with one line, not
// run out of memory.
const MaxLineBytes = 64 << 20

// Decoder reads a trace one event at a time, with the checks of Read, in
// format 1 or 2 (the header says which): memory is bounded by the longest
// line and, in format 2, the frames in flight and the links open, not by
// the trace. Header reads the first line; each Next decodes the following
// one, a format-2 delivery completed from the send it names.
type Decoder struct {
	br   *bufio.Reader
	name string
	// MaxLine is the longest line accepted, its '\n' excluded; NewDecoder
	// sets MaxLineBytes.
	MaxLine int
	// Checks, when set, hold the header and the events to what they stand
	// for beyond the format (a policy the simulator knows, a fault its
	// tables have): packages above this one know those tables.
	Checks Checks
	long   []byte // holds a line longer than br's buffer
	line   int
	sc     lineScanner

	header    Header
	headerErr error
	fl        *flight // format 2: the sends in flight, which deliveries name
	started   bool
	events    int64
	prevT     int64
}

// NewDecoder reads the trace in r; name is used in error messages, which are
// *ReadError ("NAME:LINE: ...").
func NewDecoder(r io.Reader, name string) *Decoder {
	if name == "" {
		name = "trace"
	}
	return &Decoder{br: bufio.NewReaderSize(r, 64<<10), name: name, MaxLine: MaxLineBytes}
}

func (d *Decoder) errorf(format string, args ...any) error {
	return &ReadError{Name: d.name, Line: d.line, Msg: fmt.Sprintf(format, args...)}
}

// Header reads and checks the header line (once; later calls return the same).
func (d *Decoder) Header() (Header, error) {
	if d.started {
		return d.header, d.headerErr
	}
	d.started = true
	line, err := d.nextLine()
	switch {
	case err == io.EOF:
		d.headerErr = &ReadError{Name: d.name, Msg: "empty file: expected a header line"}
	case err != nil:
		d.headerErr = err
	default:
		if err := decodeHeader(line, &d.header); err != nil {
			d.headerErr = d.errorf("header: %v", err)
			break
		}
		d.sc.eventFormat(d.header.Format)
		if d.header.Format != FormatV1 {
			d.fl = newFlight(true)
		}
		if d.Checks.Header != nil {
			if err := d.Checks.Header(&d.header); err != nil {
				d.headerErr = d.errorf("header: %v", err)
			}
		}
	}
	return d.header, d.headerErr
}

// Next decodes the next event into e, which it overwrites whole, and checks
// it; io.EOF means the trace ended cleanly after the last event. Strings of
// e stay valid after the next call: e may be reused.
func (d *Decoder) Next(e *Event) error {
	if _, err := d.Header(); err != nil {
		return err
	}
	line, err := d.nextLine()
	if err != nil {
		return err
	}
	*e = Event{}
	d.events++
	if err := decodeEvent(&d.sc, line, e, d.events, d.prevT, d.fl); err != nil {
		return d.errorf("event: %v", err)
	}
	if d.Checks.Event != nil {
		if err := d.Checks.Event(e); err != nil {
			return d.errorf("%s event: %v", e.Kind, err)
		}
	}
	d.prevT = e.T
	return nil
}

// Events is how many events Next has decoded.
func (d *Decoder) Events() int64 { return d.events }

// nextLine returns the next line without its '\n', valid until the next
// call; io.EOF when there is none.
func (d *Decoder) nextLine() ([]byte, error) {
	line, err := d.readLine()
	if len(line) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	d.line++
	what := "an event"
	if d.line == 1 {
		what = "the header"
	}
	switch {
	case err == errLineTooLong:
		return nil, d.errorf("line longer than %d bytes, expected %s (one JSON object per line)", d.MaxLine, what)
	case err == io.EOF:
		return nil, d.errorf("truncated line (no newline at end of file): the trace was cut off while being written")
	case err != nil:
		return nil, &ReadError{Name: d.name, Line: d.line, Msg: "read error: " + err.Error(), Err: err}
	}
	line = line[:len(line)-1]
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, d.errorf("empty line, expected %s (one JSON object per line)", what)
	}
	return line, nil
}

// Checks are what a reader knows of a trace beyond its format. An error is
// told with the file and line, and should name the field at fault.
type Checks struct {
	Header func(*Header) error
	// Event is called on every event after its format was checked.
	Event func(*Event) error
}

var errLineTooLong = fmt.Errorf("line too long")

// readLine returns the next line with its '\n', valid until the next call.
func (d *Decoder) readLine() ([]byte, error) {
	line, err := d.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		d.long = append(d.long[:0], line...)
		for err == bufio.ErrBufferFull && len(d.long) <= d.MaxLine {
			line, err = d.br.ReadSlice('\n')
			d.long = append(d.long, line...)
		}
		line = d.long
	}
	if n := len(line); n > d.MaxLine && !(n == d.MaxLine+1 && line[n-1] == '\n') {
		d.long = nil // let a huge buffer go
		return nil, errLineTooLong
	}
	return line, err
}
