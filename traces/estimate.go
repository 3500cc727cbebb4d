package traces

import (
	"bytes"
	"io"
)

// estimateSample is how much of a trace EstimateEvents reads: enough lines
// to average over (a few thousand at the sizes traces have), little enough
// to cost nothing beside reading the whole.
const estimateSample = 1 << 20

// EstimateEvents is about how many events a trace of size bytes holds,
// read from its first MiB (r at offset 0 is the trace's first byte): the
// lines of that sample, scaled to the whole, less a fifth. It is a hint
// for a caller that sizes its tables by it (properties.NewCheckerSized),
// and errs low on purpose: a table sized too small grows, one sized too
// large holds memory it never fills. The first lines of a trace are
// shorter than the rest (connects and initializes, before prompts and
// their updates): on the bench history the sample alone overestimates by
// a tenth, the fifth taken off by a tenth the other way. A trace whose
// later lines are far longer than its first is still overestimated. 0
// when nothing could be read.
func EstimateEvents(r io.ReaderAt, size int64) int {
	if size <= 0 {
		return 0
	}
	buf := make([]byte, min(size, estimateSample))
	n, err := r.ReadAt(buf, 0)
	if n == 0 || (err != nil && err != io.EOF) {
		return 0
	}
	lines := int64(bytes.Count(buf[:n], []byte{'\n'}))
	if int64(n) == size {
		return int(lines) // the whole trace: counted, not estimated
	}
	return int(lines * size / int64(n) * 4 / 5)
}
