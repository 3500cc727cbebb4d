package main

// A real-mode failure comes back: against a small deterministic Agent with a
// planted keyed-retry bug (interop/keys-per-process-agent.py, the template
// with keys kept per process instead of per session), the rerun and the
// re-drive check prints under a failing seed fail again, also with every
// core kept busy beside them, and shrink brings the failure down to a
// schedule whose re-drive fails every time.

import (
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpsim/acpsim/traces/shell"
)

// busyCores keeps every core busy until the returned stop is called.
func busyCores() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				if n%1024 == 0 {
					select {
					case <-done:
						return
					default:
					}
				}
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

// printed returns the command check printed after "label: " for its first
// failing seed, as words, without the leading "acpsim".
func printed(t *testing.T, out, label string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^  ` + label + `: acpsim (.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q line in check's output:\n%s", label, out)
	}
	words, err := shell.Split(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return words
}

// withRepeat puts --repeat n into a check command before its "--".
func withRepeat(words []string, n int) []string {
	at := slices.Index(words, "--")
	if at < 0 {
		at = len(words)
	}
	return slices.Concat(words[:at:at], []string{"--repeat", strconv.Itoa(n)}, words[at:])
}

// reproduced reads "reproduced k of n" from check --repeat's output.
func reproduced(t *testing.T, out string, n int) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^reproduced (\d+) of ` + strconv.Itoa(n) + ` `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no \"reproduced k of %d\" line:\n%s", n, out)
	}
	k, _ := strconv.Atoi(m[1])
	return k
}

func TestARealModeFailureComesBackAndShrinks(t *testing.T) {
	requirePython(t)
	bin := acpsim(t)
	dir := t.TempDir() // outside the checkout, as a user's would be
	agent := filepath.Join(interopDir, "keys-per-process-agent.py")
	out, code := execIn(t, dir, bin, "check", "--seeds", "30", "--start-timeout", "30s", "--", "python3", agent)
	if code != 1 {
		t.Fatalf("check --seeds 30 on the planted bug: exit %d, want 1:\n%s", code, out)
	}
	rerun, redrive := printed(t, out, "rerun"), printed(t, out, "re-drive")

	const n = 20
	stop := busyCores()
	rerunOut, _ := execIn(t, dir, bin, withRepeat(rerun, n)...)
	redriveOut, _ := execIn(t, dir, bin, withRepeat(redrive, n)...)
	stop()
	if k := reproduced(t, rerunOut, n); k < 19 {
		t.Errorf("the printed rerun, %d times beside %d busy cores, failed %d times, want ≥ 19:\n%s", n, runtime.NumCPU(), k, rerunOut)
	}
	if k := reproduced(t, redriveOut, n); k < 19 {
		t.Errorf("the printed re-drive, %d times beside %d busy cores, failed %d times, want ≥ 19:\n%s", n, runtime.NumCPU(), k, redriveOut)
	}

	trace := redrive[slices.Index(redrive, "--schedule")+1]
	start := time.Now()
	shrunk, code := execIn(t, dir, bin, "shrink", trace, "-o", "small.ndjson")
	t.Logf("shrink took %v:\n%s", time.Since(start).Round(time.Millisecond), shrunk)
	if code != 0 {
		t.Fatalf("shrink: exit %d:\n%s", code, shrunk)
	}
	for _, what := range []string{"faults", "submissions"} {
		m := regexp.MustCompile(`(?m)^  ` + what + ` +(\d+) → (\d+)$`).FindStringSubmatch(shrunk)
		if m == nil {
			t.Fatalf("shrink printed no %s before → after:\n%s", what, shrunk)
		}
		before, _ := strconv.Atoi(m[1])
		after, _ := strconv.Atoi(m[2])
		if after > before || what == "submissions" && after >= before {
			t.Errorf("%s %d → %d: want fewer submissions and no more faults", what, before, after)
		}
	}
	if !strings.Contains(shrunk, "re-drive: acpsim check --schedule small.ndjson") {
		t.Errorf("shrink printed no re-drive of the small schedule:\n%s", shrunk)
	}
	again, _ := execIn(t, dir, bin, "check", "--schedule", "small.ndjson", "--repeat", "10")
	if k := reproduced(t, again, 10); k != 10 {
		t.Errorf("the small schedule's re-drive failed %d of 10 times, want 10:\n%s", k, again)
	}

	// The failing seed's trace, the shrunk one and judge agree on the kind.
	kind := regexp.MustCompile(`(?m)^shrinking \S+ \(([a-z-]+)\)`).FindStringSubmatch(shrunk)
	if kind == nil {
		t.Fatalf("shrink named no anomaly kind:\n%s", shrunk)
	}
	for _, tr := range []string{trace, "small.ndjson"} {
		judged, code := execIn(t, dir, bin, "judge", tr)
		if code != 1 || !strings.Contains(judged, kind[1]) {
			t.Errorf("judge %s: exit %d, want 1 with %s:\n%s", tr, code, kind[1], judged)
		}
	}
}
