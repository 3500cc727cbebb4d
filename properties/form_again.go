package properties

import "strings"

// Frames read again: a frame without a digest that names a protocol
// version (a peer's initialize and its answer) comes again at every
// connect, byte for byte; the interner reads it once and makes its facts
// again from that read.

// readFrame is a frame read from its bytes, as the interner keeps strings,
// with its messages (pointing into it) and the index in peers of what each
// says of its peer's version in either direction (peerFact), 0 for none
// and -1 for not read yet.
type readFrame struct {
	frame string
	views []msgView
	peers [][2]int32
}

// readAgain is the frame without a digest that names a protocol version,
// read, from the frames read last or now; nil for any other frame.
func (in *Interner) readAgain(frame string) *readFrame {
	f := &in.form
	for i := range f.again {
		if r := &f.again[i]; len(r.frame) == len(frame) && r.frame != "" && r.frame == frame {
			return r
		}
	}
	if !strings.Contains(frame, "protocolVersion") {
		return nil
	}
	r := &f.again[f.nextRead%uint8(len(f.again))]
	f.nextRead++
	// The frame as the interner keeps strings: its views point into it.
	r.frame = in.keep(frame)
	r.views = viewFrame(r.frame, r.views[:0])
	r.peers = r.peers[:0]
	for range r.views {
		r.peers = append(r.peers, [2]int32{-1, -1})
	}
	return r
}
