package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim/bench"
	"github.com/acpsim/acpsim/traces"
)

var (
	judgeSubs    = flag.Int("judge.subs", 200_000, "submissions in BenchmarkJudgeFile's history")
	judgeCompare = flag.Int("judge.compare", 200_000, "up to this many submissions BenchmarkJudgeFile also judges the history in memory (properties.Check, about 10 KB a submission) and requires the same output")
)

// BenchmarkJudgeFile runs `acpsim judge` as its own process (this test
// binary as acpsim) on the generated history of -judge.subs submissions
// (bench.Defaults) written as an ndjson file, and reports the child's wall
// and CPU time and its maximum resident set size, as the kernel counts it
// (what /usr/bin/time -v prints). Issue 13 asks for a million in at most
// 1.5 GB. The history is healthy, so the verdict must be PASS; up to
// -judge.compare submissions the whole output must equal what the
// in-memory checker's report gives.
func BenchmarkJudgeFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "history.ndjson")
	want, subs, events := writeHistory(b, path, *judgeSubs, *judgeSubs <= *judgeCompare)
	runtime.GC() // the parent's history is garbage now; the child is measured alone
	var maxRSS int64
	var cpu, wall time.Duration
	out := filepath.Join(b.TempDir(), "judge.txt")
	for b.Loop() {
		f, err := os.Create(out)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "judge", path)
		cmd.Env = append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1")
		cmd.Stdout, cmd.Stderr = f, os.Stderr
		start := time.Now()
		err = cmd.Run()
		wall += time.Since(start)
		f.Close()
		if err != nil {
			b.Fatalf("judge: %v", err)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			maxRSS = max(maxRSS, ru.Maxrss) // KiB on Linux
		}
	}
	got, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	if want != nil && !bytes.Equal(got, want) {
		b.Fatalf("judge's output (sha256 %x) differs from the in-memory checker's (sha256 %x)", sha256.Sum256(got), sha256.Sum256(want))
	}
	if !bytes.Contains(got, []byte("\nPASS: ")) || !bytes.Contains(got, fmt.Appendf(nil, "stats: %d submissions,", subs)) {
		b.Fatalf("judge did not pass the healthy history of %d submissions:\n%s", subs, tail(got, 2000))
	}
	n := float64(b.N)
	b.ReportMetric(wall.Seconds()/n, "wall-s/judge")
	b.ReportMetric(cpu.Seconds()/n, "cpu-s/judge")
	b.ReportMetric(float64(maxRSS)/1024, "maxrss-MiB")
	b.ReportMetric(float64(subs), "submissions")
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(subs)/(cpu.Seconds()/n), "submissions/cpu-s")
}

// writeHistory writes the generated history of n submissions to path and,
// when compare is set, returns the output judge must print for it, made by
// the in-memory checker.
func writeHistory(b *testing.B, path string, n int, compare bool) (want []byte, subs, events int) {
	h := bench.Generate(bench.Defaults(n))
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := traces.NewWriter(f)
	if err := w.WriteHeader(h.Header); err != nil {
		b.Fatal(err)
	}
	for i := range h.Events {
		if err := w.WriteEvent(&h.Events[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if compare {
		rep := properties.Check(h.Header, h.Events)
		var out bytes.Buffer
		fmt.Fprintf(&out, "%s · seed %d · policy %s · agent %s · %d events\n\n", path, h.Header.Seed, h.Header.Policy, h.Header.Agent, len(h.Events))
		rep.WriteText(&out)
		fmt.Fprintln(&out)
		_ = verdict(&out, rep.OK(), rep.Inconclusive, h.Header.Command, func() string { return path })
		want = out.Bytes()
	}
	return want, len(h.Texts), len(h.Events)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
