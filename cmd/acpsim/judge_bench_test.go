package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim/bench"
	"github.com/acpsim/acpsim/traces"
)

var (
	judgeSubs    = flag.String("judge.subs", "10000,100000,200000", "comma-separated sizes (submissions) of BenchmarkJudgeFile's histories, one sub-benchmark each")
	judgeCompare = flag.Int("judge.compare", 200_000, "up to this many submissions BenchmarkJudgeFile also judges the history in memory (properties.Check, about 10 KB a submission) and requires the same output")
)

// BenchmarkJudgeFile runs `acpsim judge` as its own process (this test
// binary as acpsim) on the generated history of each size -judge.subs
// names (bench.Defaults) written as an ndjson file, and reports the child's
// wall and CPU time and its maximum resident set size, as the kernel counts
// it (what /usr/bin/time -v prints). Issue 13 asks for a million in at most
// 1.5 GB, and for time and memory that grow linearly with the submissions:
// make bench runs 10,000, 100,000 and 1,000,000. The history is healthy, so
// the verdict must be PASS; up to -judge.compare submissions the whole
// output must equal what the in-memory checker's report gives. The history
// is generated and judged in memory by another child process: a child
// forked by a process holding gigabytes would be charged its parent's
// resident set as its own maximum.
func BenchmarkJudgeFile(b *testing.B) {
	for _, field := range strings.Split(*judgeSubs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 1 {
			b.Fatalf("-judge.subs=%q: %q is not a positive number of submissions", *judgeSubs, field)
		}
		b.Run(fmt.Sprintf("subs=%d", n), func(b *testing.B) { benchJudgeFile(b, n) })
	}
}

func benchJudgeFile(b *testing.B, n int) {
	dir := b.TempDir()
	path, wantPath := filepath.Join(dir, "history.ndjson"), ""
	if n <= *judgeCompare {
		wantPath = filepath.Join(dir, "want.txt")
	}
	gen := exec.Command(os.Args[0])
	gen.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%s,%s", writeHistoryEnv, n, path, wantPath))
	gen.Stdout, gen.Stderr = os.Stderr, os.Stderr
	if err := gen.Run(); err != nil {
		b.Fatalf("writing the history: %v", err)
	}
	var maxRSS int64
	var cpu, wall time.Duration
	out := filepath.Join(dir, "judge.txt")
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
	if wantPath != "" {
		want, err := os.ReadFile(wantPath)
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			b.Fatalf("judge's output (sha256 %x) differs from the in-memory checker's (sha256 %x)", sha256.Sum256(got), sha256.Sum256(want))
		}
	}
	var subs, events int
	if i := bytes.Index(got, []byte(" · agent reference · ")); i >= 0 {
		fmt.Sscanf(string(got[i:]), " · agent reference · %d events", &events)
	}
	if i := bytes.Index(got, []byte("\nstats: ")); i >= 0 {
		fmt.Sscanf(string(got[i:]), "\nstats: %d submissions,", &subs)
	}
	if !bytes.Contains(got, []byte("\nPASS: ")) || subs != n {
		b.Fatalf("judge did not pass the healthy history of %d submissions:\n%s", n, tail(got, 2000))
	}
	runs := float64(b.N)
	b.ReportMetric(wall.Seconds()/runs, "wall-s/judge")
	b.ReportMetric(cpu.Seconds()/runs, "cpu-s/judge")
	b.ReportMetric(float64(maxRSS)/1024, "maxrss-MiB")
	b.ReportMetric(float64(subs), "submissions")
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(subs)/(cpu.Seconds()/runs), "submissions/cpu-s")
}

// writeHistoryEnv, set to "N,PATH,WANT", makes this test binary write the
// generated history of N submissions to PATH and, when WANT is not empty,
// the output judge must print for it, made by the in-memory checker.
const writeHistoryEnv = "ACPSIM_TEST_WRITE_HISTORY"

func writeHistoryMain(spec string) error {
	var n int
	parts := strings.SplitN(spec, ",", 3)
	if len(parts) != 3 {
		return fmt.Errorf("%s=%q: want N,PATH,WANT", writeHistoryEnv, spec)
	}
	if _, err := fmt.Sscan(parts[0], &n); err != nil {
		return err
	}
	path, wantPath := parts[1], parts[2]
	h := bench.Generate(bench.Defaults(n))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (&traces.Log{Header: h.Header, Events: h.Events}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if wantPath == "" {
		return nil
	}
	rep := properties.Check(h.Header, h.Events)
	var out bytes.Buffer
	fmt.Fprintf(&out, "%s · seed %d · policy %s · agent %s · %d events\n\n", path, h.Header.Seed, h.Header.Policy, h.Header.Agent, len(h.Events))
	rep.WriteText(&out)
	fmt.Fprintln(&out)
	_ = verdict(&out, rep, h.Header.Command, func() string { return path }, "")
	return os.WriteFile(wantPath, out.Bytes(), 0o644)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
