package traces_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// The estimate counts a small trace's event lines, and errs low on a large
// one whose lines grow a fifth longer after its start, as the bench
// history's do.
func TestEstimateEventsErrsLow(t *testing.T) {
	event := func(n int) string { return `{"t":0,"kind":"submit","text":"` + strings.Repeat("s", n-32) + `"}` + "\n" }
	small := `{"format":2}` + "\n" + event(40) + event(40) + event(40)
	if got := traces.EstimateEvents(strings.NewReader(small), int64(len(small))); got != 3 {
		t.Errorf("a trace read whole: %d events, expected its 3 event lines (the header is none)", got)
	}
	var b bytes.Buffer
	short, long := event(100), event(120)
	events := 0
	for b.Len() < 2<<20 {
		b.WriteString(short)
		events++
	}
	for b.Len() < 8<<20 {
		b.WriteString(long)
		events++
	}
	got := traces.EstimateEvents(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if got <= events/2 || got > events {
		t.Errorf("a trace of %d events whose lines grow a fifth longer after its first 2 MiB: estimated %d, expected at most the %d and more than half", events, got, events)
	}
	if got := traces.EstimateEvents(strings.NewReader(""), 0); got != 0 {
		t.Errorf("an empty trace: %d events, expected 0", got)
	}
}

// sparse is a file of size bytes that holds head and then zeros, as a file
// truncated to a length it never had reads.
type sparse struct {
	head []byte
	size int64
}

func (s sparse) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.size {
		return 0, errors.New("read past the end")
	}
	n := copy(p, s.head[min(off, int64(len(s.head))):])
	clear(p[n:])
	return len(p), nil
}

// Whatever a file holds, the estimate sizes no tables beyond half its
// size: lines that are no events count for none, and short event lines
// for no more than one in 128 bytes. A trace whose first MiB is blank
// lines and whose rest is a hole must fail at its second line, not first
// reserve tables for a billion events (as it did, out of memory).
func TestEstimateEventsSizesNothingForWhatIsNoEvent(t *testing.T) {
	const size = 2 << 30
	for _, c := range []struct {
		name string
		head []byte
		max  int
	}{
		{"blank lines, then a hole", []byte(`{"format":2}` + "\n" + strings.Repeat("\n", 1<<20)), 0},
		{"lines of {}", []byte(strings.Repeat("{}\n", 1<<19)), 0},
		{"garbage without a newline", bytes.Repeat([]byte{0xff}, 1<<20), 0},
		{"short event lines", []byte(strings.Repeat(`{"t":0,"kind":"end"}`+"\n", 1<<16)), size / 128},
	} {
		got := traces.EstimateEvents(sparse{c.head, size}, size)
		if got > c.max {
			t.Errorf("%s, %d bytes in all: estimated %d events, expected at most %d", c.name, size, got, c.max)
		}
	}
	if got := traces.EstimateEvents(sparse{nil, 0}, 1<<30); got != 0 {
		t.Errorf("a file that cannot be read: %d events, expected 0", got)
	}
}

func ExampleEstimateEvents() {
	line := `{"t":0,"kind":"submit","client":"c1","sub":"s1","text":"fix the tests in the parser, then the ones in the checker, and say what failed"}`
	trace := strings.Repeat(line+"\n", 50_000)
	n := traces.EstimateEvents(strings.NewReader(trace), int64(len(trace)))
	fmt.Printf("about %d thousand events\n", (n+500)/1000)
	// Output: about 40 thousand events
}
