package traces

import (
	"bytes"
	"io"
)

// estimateSample is how much of a trace EstimateEvents reads: enough lines
// to average over (a few thousand at the sizes traces have), little enough
// to cost nothing beside reading the whole.
const estimateSample = 1 << 20

// eventLineMin is the fewest bytes a line EstimateEvents counts as an
// event may have: {"t":0,"kind":"end"} is 20.
const eventLineMin = 20

// bytesPerReserved bounds the estimate by the file's size: a checker's
// tables take about 55 bytes an event it is sized for, so an estimate of
// at most a 128th of the size in events reserves under half the size in
// memory, however wrong it is.
const bytesPerReserved = 128

// EstimateEvents is about how many events a trace of size bytes holds,
// read from its first MiB (r at offset 0 is the trace's first byte): the
// lines of that sample that look like events (beginning {"t": as the
// writers begin every event, and at least 20 bytes long), scaled to the
// whole, less a fifth, and never more than one event in 128 bytes of the
// file. It is a hint for a caller that sizes its tables by it
// (properties.NewCheckerSized), and errs low on purpose: a table sized
// too small grows, one sized too large holds memory it never fills. The
// first lines of a trace are shorter than the rest (connects and
// initializes, before prompts and their updates): on the bench history
// the sample alone overestimates by a tenth, the fifth taken off by a
// tenth the other way. Whatever a file holds (blank lines, garbage, a
// sparse hole, frames far longer after its first MiB) the tables sized by
// it take under half its size. 0 when nothing could be read.
func EstimateEvents(r io.ReaderAt, size int64) int {
	if size <= 0 {
		return 0
	}
	buf := make([]byte, min(size, estimateSample))
	n, err := r.ReadAt(buf, 0)
	if n == 0 || (err != nil && err != io.EOF) {
		return 0
	}
	sample, events := buf[:n], int64(0)
	for len(sample) > 0 {
		line, rest, found := bytes.Cut(sample, []byte{'\n'})
		if !found && int64(n) < size {
			break // a line the sample cuts short
		}
		if len(line) >= eventLineMin && bytes.HasPrefix(line, []byte(`{"t":`)) {
			events++
		}
		sample = rest
	}
	if int64(n) == size {
		return int(events) // the whole trace: counted, not estimated
	}
	est := float64(events) * float64(size) / float64(n) * 4 / 5
	return int(min(est, float64(size/bytesPerReserved)))
}
