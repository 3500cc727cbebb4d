package main

import (
	"os/exec"

	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// reproduceCommand is the command judge and view print to reproduce the run
// of the trace at path. A simulated trace whose faults came from a schedule
// (acpsim shrink's small trace) is reproduced only by replaying its recorded
// choices: its header's command reruns the seed with --skip, which draws
// other faults and may well pass. Any other trace is rerun by its header's
// command ("" when none made it, as for acpsim tap's).
func reproduceCommand(h traces.Header, path string) string {
	if h.Command != "" && h.Source == traces.SourceSchedule && !world.OfRealAgent(&h) {
		return "acpsim replay " + shell.Quote(path)
	}
	return h.Command
}

// installHint tells how to get acpsim on PATH, for the printed commands that
// begin with it, when it is not there (a run started with go run): "" when
// it is.
func installHint() string {
	if _, err := exec.LookPath("acpsim"); err == nil {
		return ""
	}
	return "acpsim is not on PATH: go install github.com/acpsim/acpsim/cmd/acpsim@latest (or go install ./cmd/acpsim in a checkout)"
}
