package bench

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// The figures of docs/design.md#performance-targets that need these histories; make bench prints
// them through scripts/bench-summary.awk. Rates are per CPU-second of the
// process (CPUTime), run with -cpu 1.

var checkSubs = flag.Int("check.subs", 1_000_000, "submissions in BenchmarkCheckMillion's history (the trace of a million takes about 5 GB, the benchmark up to 12 GB)")

var millionHistory = sync.OnceValue(func() *History { return Generate(Defaults(*checkSubs)) })

// BenchmarkCheckMillion times properties.Check on one history of a million
// submissions (Defaults: 8 Clients, retries, lost requests and responses,
// rejected attempts, 10% unknown outcomes), generated once per process;
// -check.subs makes it smaller for a machine with less memory. docs/design.md#performance-targets
// asks for a million in a second on one core. The events carry their
// frames' digests, as the simulator's do; the checker interns their ids as
// it reads them (properties.Interner), as it does in the simulator today.
func BenchmarkCheckMillion(b *testing.B) {
	h := millionHistory()
	runtime.GC() // the generator's garbage is not the checker's: the first benchmark run paid for it
	b.ReportAllocs()
	cpu0 := CPUTime()
	for b.Loop() {
		if r := properties.Check(h.Header, h.Events); !r.OK() {
			b.Fatalf("the history is not healthy: %v", r.Anomalies[0])
		}
	}
	cpu := (CPUTime() - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(cpu, "cpu-s/check")
	b.ReportMetric(float64(len(h.Texts)), "submissions")
	b.ReportMetric(float64(len(h.Texts))/cpu, "submissions/cpu-s")
	b.ReportMetric(float64(len(h.Events))/cpu, "events/cpu-s")
}

// BenchmarkCheckMillionSteps is BenchmarkCheckMillion with the ids
// interned before the clock starts (NewStepChecker, AddStep) and the
// handles those of the history's register, as the simulator's checker
// takes them (Checker.UseNames: an id or text minted there is found from
// its address): the form issue 33 rules the checker is measured on.
func BenchmarkCheckMillionSteps(b *testing.B) {
	h := millionHistory()
	in, steps := internHistory(h)
	runtime.GC()
	b.ReportAllocs()
	cpu0 := CPUTime()
	for b.Loop() {
		c := properties.NewStepChecker(h.Header, in, len(steps))
		for i := range steps {
			c.AddStep(&steps[i])
		}
		if r := c.Finish(); !r.OK() {
			b.Fatalf("the history is not healthy: %v", r.Anomalies[0])
		}
	}
	reportFloor(b, cpu0, len(h.Texts))
}

// BenchmarkIntern times what BenchmarkCheckMillionSteps leaves out: giving
// the history's ids their handles (properties.Interner, from the history's
// register), which the simulator's checker does inside Add.
func BenchmarkIntern(b *testing.B) {
	h := millionHistory()
	runtime.GC()
	b.ReportAllocs()
	cpu0 := CPUTime()
	for b.Loop() {
		internHistory(h)
	}
	reportFloor(b, cpu0, len(h.Texts))
}

// internHistory is the history's events as the checker's steps, their
// handles the history's register's, as the simulator's checker takes them
// (Checker.UseNames).
func internHistory(h *History) (*properties.Interner, []properties.Step) {
	in := properties.NewInterner(true)
	in.UseNames(h.Names)
	steps := make([]properties.Step, len(h.Events))
	for i := range h.Events {
		steps[i] = in.Step(&h.Events[i])
	}
	return in, steps
}

// BenchmarkCheckMillionBytes is BenchmarkCheckMillion on the bytes alone:
// each event handed to the checker without its frame's digest, so every
// frame is scanned, as acpsim judge reads a trace (less the reading).
func BenchmarkCheckMillionBytes(b *testing.B) {
	h := millionHistory()
	runtime.GC() // the generator's garbage is not the checker's: the first benchmark run paid for it
	b.ReportAllocs()
	cpu0 := CPUTime()
	for b.Loop() {
		c := properties.NewBorrowingChecker(h.Header, len(h.Events))
		for i := range h.Events {
			e := h.Events[i]
			e.Digest = nil
			c.Add(&e)
		}
		if r := c.Finish(); !r.OK() {
			b.Fatalf("the history is not healthy: %v", r.Anomalies[0])
		}
	}
	cpu := (CPUTime() - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(cpu, "cpu-s/check")
	b.ReportMetric(float64(len(h.Texts)), "submissions")
	b.ReportMetric(float64(len(h.Texts))/cpu, "submissions/cpu-s")
}

var porcupineLimit = flag.Duration("porcupine.limit", 60*time.Second, "how long porcupine may search one history before it is reported as timed out")

// BenchmarkPorcupine runs acpsim's checker and porcupine on the same
// histories of 100 and 1,000 submissions (8 Clients, 10% unknown outcomes,
// one planted duplicate), side by side. porcupine sees them twice: with
// each unanswered attempt returning when the trace shows it could no longer
// take effect ("porcupine"), and as the Clients saw them, unanswered
// attempts returning at the end of the history ("porcupine-client-view").
// acpsim's checker runs twice: "acpsim-from-disk" reads the history as
// acpsim judge does, from its ndjson trace file through traces.Decoder into
// the streaming checker, with nothing extracted for it beforehand; "acpsim"
// checks the events already in memory (properties.Check).
// Each reports found=1 when it found the duplicate; a porcupine search cut
// off at -porcupine.limit (wall time) reports timed-out=1 and limit-s.
// Run it with -count 1: a timed-out search takes the whole limit.
func BenchmarkPorcupine(b *testing.B) {
	for _, n := range []int{100, 1000} {
		cfg := Defaults(n)
		cfg.Duplicates = 1
		h := Generate(cfg)
		path := filepath.Join(b.TempDir(), "history.ndjson")
		if err := writeTrace(path, h); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("subs=%d/acpsim-from-disk", n), func(b *testing.B) {
			found := 0.0
			cpu0 := CPUTime()
			for b.Loop() {
				r, err := judgeTrace(path)
				if err != nil {
					b.Fatal(err)
				}
				if len(duplicates(r)) == 1 {
					found = 1
				}
			}
			b.ReportMetric((CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/check")
			b.ReportMetric(found, "found")
		})
		b.Run(fmt.Sprintf("subs=%d/read-floor", n), func(b *testing.B) {
			quotes := 0
			cpu0 := CPUTime()
			for b.Loop() {
				var err error
				if quotes, err = quotesIn(path); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/check")
			if fi, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(fi.Size())/float64(n), "bytes/sub")
			}
			b.ReportMetric(float64(quotes)/float64(n), "quote-bytes/sub")
		})
		b.Run(fmt.Sprintf("subs=%d/acpsim", n), func(b *testing.B) {
			found := 0.0
			cpu0 := CPUTime()
			for b.Loop() {
				if len(duplicates(properties.Check(h.Header, h.Events))) == 1 {
					found = 1
				}
			}
			b.ReportMetric((CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/check")
			b.ReportMetric(found, "found")
		})
		for _, view := range []string{"porcupine", "porcupine-client-view"} {
			b.Run(fmt.Sprintf("subs=%d/%s", n, view), func(b *testing.B) {
				m, ops := transcriptModel(len(h.Texts)), operations(h, view == "porcupine-client-view")
				found, timedOut := 0.0, 0.0
				cpu0 := CPUTime()
				for b.Loop() {
					switch porcupine.CheckOperationsTimeout(m, ops, *porcupineLimit) {
					case porcupine.Illegal:
						found = 1
					case porcupine.Unknown:
						timedOut = 1
					}
				}
				b.ReportMetric((CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/check")
				b.ReportMetric(found, "found")
				b.ReportMetric(timedOut, "timed-out")
				b.ReportMetric(porcupineLimit.Seconds(), "limit-s")
			})
		}
	}
}

// quotesIn reads the trace file at path line by line and visits every '"'
// byte in it: the least any JSON reader of the file must do, since every
// string of every line, and every frame's (in format 1 a JSON string of
// escaped JSON), is bounded by them. It is the floor under acpsim-from-disk,
// whatever the decoder (README "Speed").
func quotesIn(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		for line := sc.Bytes(); ; n++ {
			i := bytes.IndexByte(line, '"')
			if i < 0 {
				break
			}
			line = line[i+1:]
		}
	}
	return n, sc.Err()
}

// writeTrace writes h as the ndjson trace file acpsim run --trace would.
func writeTrace(path string, h *History) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (&traces.Log{Header: h.Header, Events: h.Events}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// judgeTrace judges the trace file at path with the decoder and checker
// acpsim judge uses, one event at a time on one goroutine (judge decodes a
// few batches ahead on a second one, which changes its wall time, not its
// CPU time).
func judgeTrace(path string) (*properties.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := traces.NewDecoder(f, path)
	h, err := d.Header()
	if err != nil {
		return nil, err
	}
	c := properties.NewChecker(h)
	var e traces.Event
	for {
		switch err := d.Next(&e); err {
		case nil:
			c.Add(&e)
		case io.EOF:
			return c.Finish(), nil
		default:
			return nil, err
		}
	}
}
