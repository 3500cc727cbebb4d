package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// tapTwice runs a tap on trace, rewrites what it recorded in format, and
// runs a second tap that appends to it.
func tapTwice(t *testing.T, format int) (string, *traces.Log) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "t.ndjson")
	for i := range 2 {
		p := startTap(t, trace)
		p.call(t, 1, "initialize", tapInit)
		p.in.Close()
		p.cmd.Wait()
		if i > 0 {
			break
		}
		log, err := traces.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		log.Header.Format = format
		f, err := os.Create(trace)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeTrace(f, log); err != nil {
			t.Fatal(err)
		}
	}
	log, err := traces.ReadFile(trace)
	if err != nil {
		t.Fatalf("the trace two taps wrote does not read: %v", err)
	}
	b, _ := os.ReadFile(trace)
	return string(b), log
}

// A tap appends to a trace in the trace's own format: a trace of format 1
// stays format 1 throughout, and one of format 2 has its deliveries name
// their sends.
func TestTapAppendsInTheTracesFormat(t *testing.T) {
	for _, format := range []int{traces.FormatV1, traces.FormatVersion} {
		data, log := tapTwice(t, format)
		if log.Header.Format != format {
			t.Fatalf("format %d: header says %d", format, log.Header.Format)
		}
		links := map[string]int{}
		for _, e := range log.Events {
			if e.Kind == traces.KindDeliver {
				links[e.Link]++
			}
		}
		if len(links) != 2 || links["c1:a1#1"] != 2 || links["c1:a1#2"] != 2 {
			t.Fatalf("format %d: deliveries per link %v, want 2 on each of c1:a1#1 and c1:a1#2", format, links)
		}
		named := strings.Count(data, `"kind":"deliver","send":`)
		switch {
		case format == traces.FormatV1 && (named > 0 || strings.Contains(data, `"msg":`)):
			t.Fatalf("format 1 trace holds format-2 events:\n%s", data)
		case format == traces.FormatVersion && named != 4:
			t.Fatalf("format 2: %d deliveries name their send, want 4:\n%s", named, data)
		}
	}
}
