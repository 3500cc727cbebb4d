//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bench

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used so far, user and system. The
// per-core-second figures divide by it rather than by wall time: run with
// -cpu 1 (one thread runs Go code, the garbage collector included), it is
// the core time the work took, while wall time on a shared machine also
// counts the time spent waiting for a core.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
