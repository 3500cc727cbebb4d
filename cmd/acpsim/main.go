// Command acpsim is a deterministic chaos simulator for the Agent Client
// Protocol's prompt idempotency: it runs model Clients and Agents over
// virtual links, injects the faults those links really produce, and checks
// that every submission is inserted at most once and never silently lost.
//
// Exit codes: 0 every property held; 1 a property failed; 2 bad usage or bad
// input; 3 inconclusive (a run hit its cap: no anomaly, but not all judged);
// 130 and 143 check, check-client or conform interrupted (interrupt.go).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit codes scripts can rely on.
const (
	exitOK           = 0
	exitAnomaly      = 1
	exitUsage        = 2
	exitInconclusive = 3
	exitFailpoint    = 137 // acpsim agent stopped at an enabled failpoint, as a SIGKILL would
)

// exitError carries an exit code out of a command.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs the command line args and returns the exit code; errors go
// to stderr as one line.
func execute(args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	var ee exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(stderr, "acpsim: %v\n", oneLine(err.Error()))
		return exitUsage
	}
}

func oneLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
