package traces

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Writer writes a trace: one header line, then one line per event. Each line
// is one compact JSON object ended by '\n', and the bytes depend only on the
// values written. Events are written in the format the header names
// (FormatVersion for a new trace). Writes are buffered: call Flush when done.
// The first error sticks: every later call returns it.
type Writer struct {
	bw     *bufio.Writer
	buf    []byte
	header bool
	format int
	fl     *flight // format 2: the sends in flight, for deliveries to name
	// seqs says every event's seq is written. Format 1 always writes it;
	// format 2 leaves it out (an event's seq is its line's number after
	// the header), except in an appender's events (NewAppendWriter): a
	// later appender numbers its own from the trace's last line alone.
	seqs   bool
	events int64 // events written, for the seq format 2 implies
	err    error
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 64<<10), buf: make([]byte, 0, 1024)}
}

// NewAppendWriter returns a Writer that adds events to a trace whose header
// (and earlier events) w already holds, in that trace's format (its
// header's Format): WriteHeader is refused on it. In format 2 it names only
// the sends it wrote itself: a delivery of a frame sent before it is
// written whole. It writes every event's seq, in either format, as the
// caller numbered it (after the trace's events): what it appends can be
// numbered by the next appender from its last line.
func NewAppendWriter(w io.Writer, format int) *Writer {
	tw := NewWriter(w)
	tw.header = true
	tw.err = tw.setFormat(format)
	tw.seqs = true
	return tw
}

func (w *Writer) setFormat(format int) error {
	switch format {
	case FormatV1:
		w.seqs = true
	case FormatVersion:
		w.fl = newFlight(false)
	default:
		return fmt.Errorf("traces: header format %d, expected %d (FormatVersion) or %d", format, FormatVersion, FormatV1)
	}
	w.format = format
	return nil
}

// WriteHeader writes the header line. It must be called once, before any
// event, with h.Format FormatVersion (or FormatV1, to write a trace of the
// first format). Maps are written with sorted keys, as encoding/json does.
func (w *Writer) WriteHeader(h Header) error {
	if w.err != nil {
		return w.err
	}
	if w.header {
		return errors.New("traces: WriteHeader called twice, expected one header per trace")
	}
	if err := w.setFormat(h.Format); err != nil {
		return err
	}
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("traces: header: %w", err)
	}
	w.header = true
	b = append(b, '\n')
	if _, err := w.bw.Write(b); err != nil {
		w.err = err
	}
	return w.err
}

// WriteEvent writes e as one line. In format 1 the bytes are those of
// json.Marshal(e) followed by '\n' (Send left out), produced without
// reflection or allocation; in format 2 see appendEvent2. e.Send is
// ignored: in format 2 the writer finds a delivery's send itself.
func (w *Writer) WriteEvent(e *Event) error {
	if w.err != nil {
		return w.err
	}
	if !w.header {
		return errors.New("traces: WriteEvent before WriteHeader, expected the header first")
	}
	if e == nil {
		return errors.New("traces: WriteEvent(nil), expected an event")
	}
	if !w.seqs {
		// The reader numbers an event without a seq by its line: one
		// numbered otherwise would be read as another.
		if e.Seq != w.events+1 {
			w.err = fmt.Errorf("traces: event seq %d, expected %d: format 2 numbers events 1, 2, 3, ... by their line", e.Seq, w.events+1)
			return w.err
		}
	}
	w.events++
	if w.format == FormatV1 {
		if e.Send != 0 {
			c := *e
			c.Send = 0
			e = &c
		}
		w.buf = AppendEvent(w.buf[:0], e)
	} else {
		w.buf = w.appendEvent2(w.buf[:0], e)
	}
	w.buf = append(w.buf, '\n')
	if _, err := w.bw.Write(w.buf); err != nil {
		w.err = err
	}
	return w.err
}

// Flush writes any buffered data to the underlying io.Writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}

// appendEventHead opens an event's object with what every event has: its
// time, its number (unless seq is false: format 2 numbers by line) and its
// kind.
func appendEventHead(dst []byte, e *Event, seq bool) []byte {
	dst = append(dst, `{"t":`...)
	dst = strconv.AppendInt(dst, e.T, 10)
	if seq {
		dst = append(dst, `,"seq":`...)
		dst = strconv.AppendInt(dst, e.Seq, 10)
	}
	dst = append(dst, `,"kind":`...)
	dst = appendString(dst, e.Kind)
	return dst
}

// AppendEvent appends the JSON encoding of e to dst and returns the extended
// buffer. The bytes are identical to json.Marshal(e): fields in struct order,
// empty omitempty fields left out, strings escaped as encoding/json escapes
// them (including <, >, & and U+2028/U+2029, with invalid UTF-8 replaced by
// U+FFFD). No trailing newline is added.
func AppendEvent(dst []byte, e *Event) []byte { return appendEventWhole(dst, e, false) }

// appendEventWhole appends every field of e, the frame as a JSON value
// where that keeps its bytes when msg is set (AppendEventWhole), as an
// escaped string otherwise (AppendEvent).
func appendEventWhole(dst []byte, e *Event, msg bool) []byte {
	dst = appendEventHead(dst, e, true)
	dst = appendField(dst, `,"link":`, e.Link)
	dst = appendField(dst, `,"from":`, e.From)
	dst = appendField(dst, `,"to":`, e.To)
	dst = appendField(dst, `,"dir":`, e.Dir)
	if msg {
		dst = appendFrame(dst, e.Frame)
	} else {
		dst = appendField(dst, `,"frame":`, e.Frame)
	}
	if e.Send != 0 {
		dst = append(dst, `,"send":`...)
		dst = strconv.AppendInt(dst, e.Send, 10)
	}
	dst = appendTail(dst, e)
	return append(dst, '}')
}

// appendTail appends the fields after the frame, as json.Marshal does.
func appendTail(dst []byte, e *Event) []byte {
	dst = appendField(dst, `,"client":`, e.Client)
	dst = appendField(dst, `,"sub":`, e.Sub)
	dst = appendField(dst, `,"text":`, e.Text)
	dst = appendField(dst, `,"outcome":`, e.Outcome)
	dst = appendField(dst, `,"session":`, e.Session)
	dst = appendField(dst, `,"messageId":`, e.MessageID)
	dst = appendField(dst, `,"decision":`, e.Decision)
	dst = appendField(dst, `,"site":`, e.Site)
	if e.Option != 0 {
		dst = append(dst, `,"option":`...)
		dst = strconv.AppendInt(dst, int64(e.Option), 10)
	}
	if e.LostUnsynced {
		dst = append(dst, `,"lostUnsynced":true`...)
	}
	return appendField(dst, `,"note":`, e.Note)
}

// appendField appends key and the quoted s unless s is empty (omitempty).
func appendField(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	dst = append(dst, key...)
	return appendString(dst, s)
}

const hexDigits = "0123456789abcdef"

// safeASCII[b] is true for the ASCII bytes encoding/json writes as they are
// (with HTML escaping on, its default).
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = true
	}
	for _, b := range `"\<>&` {
		t[b] = false
	}
	return t
}()

// appendString appends s as a JSON string exactly as encoding/json encodes
// it.
func appendString(dst []byte, s string) []byte { return appendQuoted(dst, s, false) }

// appendQuoted appends s as a JSON string as encoding/json encodes it, except
// that with keepBytes a byte that is not UTF-8 is written as the lone
// surrogate escape \udc80-\udcff (its value plus 0xdc00) instead of as
// U+FFFD, so that the reader can give back every byte.
func appendQuoted(dst []byte, s string, keepBytes bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safeASCII[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				// Control characters and <, >, &.
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			if keepBytes {
				dst = append(dst, '\\', 'u', 'd', 'c', hexDigits[b>>4], hexDigits[b&0xF])
			} else {
				dst = append(dst, `\ufffd`...)
			}
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 end lines in JavaScript: encoding/json escapes
		// them.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Log is a whole trace in memory.
type Log struct {
	Header Header
	Events []Event
}

// Append adds e as the next event, setting its Seq to len(Events)+1, and
// returns a pointer to the stored copy. The pointer is valid until the next
// Append (which may move Events).
func (l *Log) Append(e Event) *Event {
	e.Seq = int64(len(l.Events)) + 1
	if len(l.Events) == cap(l.Events) {
		// Doubling: append grows a large slice by a quarter, and a long
		// run's events (hundreds of bytes each) would be copied over and
		// over, most of a 1,000-prompt seed's time.
		l.Events = slices.Grow(l.Events, max(len(l.Events), 64))
	}
	l.Events = append(l.Events, e)
	return &l.Events[len(l.Events)-1]
}

// WriteTo writes the trace to w (header, then events) and returns the
// number of bytes written. It implements io.WriterTo.
func (l *Log) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	tw := NewWriter(cw)
	if err := tw.WriteHeader(l.Header); err != nil {
		return cw.n, err
	}
	for i := range l.Events {
		if err := tw.WriteEvent(&l.Events[i]); err != nil {
			return cw.n, err
		}
	}
	err := tw.Flush()
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
