//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bench

import "time"

var start = time.Now()

// CPUTime is, where the process's CPU time cannot be read, the wall time
// since the package was initialized.
func CPUTime() time.Duration { return time.Since(start) }
