package bench

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

var traceSubs = flag.Int("trace.subs", 20_000, "submissions in BenchmarkTraceBytes's history")

var traceHistory = sync.OnceValue(func() *History { return Generate(Defaults(*traceSubs)) })

// BenchmarkTraceBytes writes the bench history (Defaults) as a trace file
// in each format, as acpsim run --trace would, and reads it at its floor
// (quotesIn: every '"' visited once, the least a JSON reader of the file
// does). Per submission it reports the file's bytes, its '"' bytes, its
// events, and the floor's CPU time. Issue 33 asks format 2 for at most half
// the 4,255 bytes a submission of format 1 (scripts/bench-summary.awk
// prints the ratio).
func BenchmarkTraceBytes(b *testing.B) {
	h := traceHistory()
	subs := float64(len(h.Texts))
	for _, format := range []int{traces.FormatV1, traces.FormatVersion} {
		b.Run(fmt.Sprintf("format=%d", format), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "history.ndjson")
			hd := h.Header
			hd.Format = format
			if err := writeTrace(path, &History{Header: hd, Events: h.Events}); err != nil {
				b.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			quotes := 0
			cpu0 := CPUTime()
			for b.Loop() {
				if quotes, err = quotesIn(path); err != nil {
					b.Fatal(err)
				}
			}
			cpu := (CPUTime() - cpu0).Seconds() / float64(b.N)
			b.ReportMetric(float64(fi.Size())/subs, "bytes/sub")
			b.ReportMetric(float64(quotes)/subs, "quote-bytes/sub")
			b.ReportMetric(float64(len(h.Events))/subs, "events/sub")
			b.ReportMetric(cpu*1e6/subs, "floor-cpu-us/sub")
			b.ReportMetric(subs, "submissions")
		})
	}
}
