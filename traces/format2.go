// This file writes events in format 2 (see the package comment): frames as
// JSON values where their bytes allow, deliveries naming their sends.

package traces

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// appendEvent2 appends e in format 2, keeping the account of the sends in
// flight: a send is recorded, a deliver or drop of a frame in flight names
// its send, a disconnect forgets its link's.
func (w *Writer) appendEvent2(dst []byte, e *Event) []byte {
	var ref *pendingSend
	implied := false
	switch e.Kind {
	case KindConnect:
		w.fl.connect(e)
	case KindSend:
		implied = w.fl.endsImplied(e)
		w.fl.send(e)
	case KindDeliver, KindDrop:
		if e.Frame == "" {
			break
		}
		if p, ok := w.fl.take(e); ok && (e.From != "" || p.from == "") && (e.To != "" || p.to == "") {
			// (A from or to left empty where the send's is set cannot
			// be told from one left out: such an event is written whole,
			// and its reader takes the same send, the first of its
			// direction with its frame.)
			ref = &p
		} else {
			implied = w.fl.endsImplied(e)
		}
	case KindDisconnect:
		w.fl.disconnect(e.Link)
	}
	// The end event keeps its seq: a reader of a trace whose lines were
	// removed or added (grep, an editor) finds the count wrong there
	// rather than reading the events after the edit as others.
	return appendEvent2(dst, e, ref, implied, w.seqs || e.Kind == KindEnd)
}

// appendEvent2 appends e in format 2; ref is the send it names (a deliver
// or drop), nil for none; implied says its from and to are its link's ends
// in its direction, left out; seq says its seq is written.
func appendEvent2(dst []byte, e *Event, ref *pendingSend, implied, seq bool) []byte {
	dst = appendEventHead(dst, e, seq)
	if ref != nil {
		// The link and direction are the send's (they are where it
		// was found); from and to are written where they differ.
		if e.From != ref.from {
			dst = appendField(dst, `,"from":`, e.From)
		}
		if e.To != ref.to {
			dst = appendField(dst, `,"to":`, e.To)
		}
		dst = append(dst, `,"send":`...)
		dst = strconv.AppendInt(dst, ref.seq, 10)
	} else {
		dst = appendField(dst, `,"link":`, e.Link)
		if !implied {
			dst = appendField(dst, `,"from":`, e.From)
			dst = appendField(dst, `,"to":`, e.To)
		}
		dst = appendField(dst, `,"dir":`, e.Dir)
		dst = appendFrame(dst, e.Frame)
	}
	dst = appendTail(dst, e)
	return append(dst, '}')
}

// appendFrame appends a frame: its bytes as they are under "msg" when they
// are a JSON object or array that reads back as the same bytes, else an
// escaped string under "frame" that keeps every byte.
func appendFrame(dst []byte, frame string) []byte {
	switch {
	case frame == "":
		return dst
	case IsMsgFrame(frame):
		dst = append(dst, `,"msg":`...)
		return append(dst, frame...)
	}
	dst = append(dst, `,"frame":`...)
	return appendQuoted(dst, frame, true)
}

// IsMsgFrame reports whether format 2 writes frame as a JSON value ("msg")
// rather than a string ("frame"): it is valid JSON and valid UTF-8, starts
// with '{' or '[', and has no white space before or after it and no raw line
// break, so that its bytes are exactly those of the value in the line.
func IsMsgFrame(frame string) bool {
	n := len(frame)
	if n < 2 || frame[0] != '{' && frame[0] != '[' || frame[n-1] != '}' && frame[n-1] != ']' {
		return false
	}
	for i := 0; i < n; i++ {
		if c := frame[i]; c == '\n' || c == '\r' {
			return false
		}
	}
	// json.Valid only reads the bytes: no copy of the frame is needed.
	b := unsafe.Slice(unsafe.StringData(frame), n)
	return utf8.Valid(b) && json.Valid(b)
}

// AppendEventWhole appends e as one JSON object as format 2 writes an event
// but with nothing left out: its seq, its link, ends and direction, its
// frame (a JSON value under "msg" where that keeps its bytes), and for a
// delivery or drop paired with its send, that send's seq ("send"). It is
// what acpsim events prints: a line that reads alone, without the lines
// before it. No trailing newline is added.
func AppendEventWhole(dst []byte, e *Event) []byte { return appendEventWhole(dst, e, true) }
