package traces_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// The estimate counts a small trace's lines, and errs low on a large one
// whose lines grow a fifth longer after its start, as the bench history's
// do.
func TestEstimateEventsErrsLow(t *testing.T) {
	small := "{}\n{}\n{}\n"
	if got := traces.EstimateEvents(strings.NewReader(small), int64(len(small))); got != 3 {
		t.Errorf("a trace read whole: %d events, expected its 3 lines", got)
	}
	var b bytes.Buffer
	short, long := strings.Repeat("s", 99)+"\n", strings.Repeat("l", 119)+"\n"
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
	if got <= 0 || got > events {
		t.Errorf("a trace of %d events whose lines grow a fifth longer after its first 2 MiB: estimated %d, expected at most the %d and more than none", events, got, events)
	}
	if got := traces.EstimateEvents(strings.NewReader(""), 0); got != 0 {
		t.Errorf("an empty trace: %d events, expected 0", got)
	}
}

func ExampleEstimateEvents() {
	trace := strings.Repeat(`{"t":0,"kind":"submit","client":"c1","sub":"s1","text":"fix the tests"}`+"\n", 50_000)
	n := traces.EstimateEvents(strings.NewReader(trace), int64(len(trace)))
	fmt.Printf("about %d thousand events\n", (n+500)/1000)
	// Output: about 40 thousand events
}
