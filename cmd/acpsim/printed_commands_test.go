package main

// Every command acpsim prints for a human to run (rerun, replay, re-drive)
// reproduces what it claims when run as printed, with acpsim on the PATH,
// in the directory the trace was written to, outside the checkout: the
// place a handed-over trace is judged (issue 28).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// printedCommand is one command acpsim printed after a label, e.g. the
// "rerun: …" under a failing run.
var printedCommand = regexp.MustCompile(`(?m)^\s*(rerun|replay|re-drive): ((?:go run ./cmd/)?acpsim .+?)\s*$`)

// commandsPrinted returns the commands out prints after label.
func commandsPrinted(out, label string) []string {
	var cmds []string
	for _, m := range printedCommand.FindAllStringSubmatch(out, -1) {
		if m[1] == label {
			cmds = append(cmds, m[2])
		}
	}
	return cmds
}

// humanShell runs command lines with sh in dir, acpsim on the PATH as this
// test binary, as a user's shell would.
type humanShell struct {
	t   *testing.T
	dir string
	env []string
}

func newHumanShell(t *testing.T) *humanShell {
	t.Helper()
	bin, dir := t.TempDir(), t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nACPSIM_TEST_AS_MAIN=1 exec %q \"$@\"\n", os.Args[0])
	if err := os.WriteFile(filepath.Join(bin, "acpsim"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &humanShell{t: t, dir: dir, env: append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir)}
}

func (h *humanShell) run(line string) (int, string) {
	h.t.Helper()
	code, out, timedOut := runLine(h.dir, h.env, line)
	if timedOut {
		h.t.Fatalf("%s: still running after %s", line, exampleTimeout)
	}
	return code, out
}

// reproduces runs each of cmds, which claim a failure showing kind.
func (h *humanShell) reproduces(what string, cmds []string, kind string) {
	h.t.Helper()
	if len(cmds) == 0 {
		h.t.Errorf("%s: no command printed", what)
	}
	for _, c := range cmds {
		if strings.Contains(c, "go run") {
			h.t.Errorf("%s: %q needs the checkout", what, c)
		}
		if code, out := h.run(c); code != exitAnomaly || !strings.Contains(out, kind) {
			h.t.Errorf("%s: %s\n  exit %d, want 1 with %s, as printed:\n%s", what, c, code, kind, outputEnd(out, 20))
		}
	}
}

func TestPrintedCommandsReproduceOutsideTheCheckout(t *testing.T) {
	h := newHumanShell(t)
	// A simulated failure: run's rerun, shrink's replay, judge's and
	// replay's commands on both traces.
	code, out := h.run("acpsim run --seed 3 --policy=naive --fault-rates=client-restart=0.0022,cut=0.0013,delay=0.038,kill=0,lose-unsynced=0.93,reject=0 --cancels=1 --closes=0 --forks=0 --cancel-by=request --trace seed3.ndjson")
	if code != exitAnomaly {
		t.Fatalf("the naive run of seed 3: exit %d, want 1:\n%s", code, out)
	}
	h.reproduces("run's rerun", commandsPrinted(out, "rerun"), "duplicate")
	_, out = h.run("acpsim shrink seed3.ndjson -o small.ndjson")
	h.reproduces("shrink's replay", commandsPrinted(out, "replay"), "duplicate")
	for _, trace := range []string{"seed3.ndjson", "small.ndjson"} {
		_, out = h.run("acpsim judge " + trace)
		h.reproduces("judge "+trace, append(commandsPrinted(out, "rerun"), commandsPrinted(out, "replay")...), "duplicate")
	}

	// A real Agent's failure: check's rerun and re-drive, and replay's
	// suggestion for a check trace.
	code, out = h.run("acpsim check --seeds 1 -- acpsim agent --agent echo-key")
	if code != exitAnomaly {
		t.Fatalf("check against echo-key: exit %d, want 1:\n%s", code, out)
	}
	h.reproduces("check's rerun", commandsPrinted(out, "rerun"), "key-leak")
	h.reproduces("check's re-drive", commandsPrinted(out, "re-drive"), "key-leak")
}
