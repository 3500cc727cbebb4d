// Where failing runs' traces go when no path was asked for, and how every
// trace file acpsim picks a name for is named: no run overwrites another's
// traces, nor the trace it re-drives.

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/acpsim/acpsim/traces"
)

// failuresDir holds failing runs' traces.
const failuresDir = "acpsim-failures"

// startedAt is when this acpsim started.
var startedAt = time.Now()

// runID names this acpsim invocation's failure files: when it started, UTC
// to the second, so ls lists runs in the order they ran.
func runID() string { return startedAt.UTC().Format("20060102T150405") }

// failureName is COMMAND-RUNID-WHAT, e.g. check-20261204T152824-seed-17:
// what names the seed (and anything else the command varies).
func failureName(command, what string) string {
	return command + "-" + runID() + "-" + what
}

// maxTaken bounds the suffixes createNew tries.
const maxTaken = 1000

// createNew creates dir/NAME.ndjson, or NAME-2.ndjson, NAME-3.ndjson, …
// when that is taken: it never opens a file that exists (O_EXCL), so a
// run started twice in a second, or re-driving the trace it would write,
// leaves every earlier file as it was.
func createNew(dir, name string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for i := 1; ; i++ {
		file := name + ".ndjson"
		if i > 1 {
			file = fmt.Sprintf("%s-%d.ndjson", name, i)
		}
		f, err := os.OpenFile(filepath.Join(dir, file), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) || i == maxTaken {
			return f, err
		}
	}
}

// saveFailure writes a failing run's trace as
// acpsim-failures/COMMAND-RUNID-WHAT.ndjson and returns its path, or why
// it could not.
func saveFailure(log *traces.Log, command, what string) string {
	f, err := createNew(failuresDir, failureName(command, what))
	if err != nil {
		return "(not written: " + err.Error() + ")"
	}
	if err := writeTrace(f, log); err != nil {
		return "(not written: " + err.Error() + ")"
	}
	return f.Name()
}
