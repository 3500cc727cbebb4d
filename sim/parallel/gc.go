package parallel

import (
	"os"
	"runtime/debug"
)

// The collector's settings for a process that runs many whole simulations
// one after another (swarm, explore, matrix, mutants). A ten-prompt seed
// keeps about 2 MB live, so at Go's default (GOGC=100, a 4 MB minimum goal)
// the collector ran every three or four seeds and its write barriers were on
// for about 40% of the run: GCPercent 800 made seeds 14–23% faster on one
// core (README "Speed"). MemoryLimit is a soft ceiling that takes over from
// GCPercent when what a run keeps grows (a failing run's traces, a long
// seed), so a heap of nine times the live data stays bounded.
const (
	GCPercent   = 800
	MemoryLimit = 1 << 30
)

// TuneGC sets GCPercent and MemoryLimit for this process unless the user
// chose either through GOGC or GOMEMLIMIT, and returns what restores the
// settings it found. Only the commands that run many seeds call it: acpsim
// judge holds a whole trace's records live, where nine times would not fit.
func TuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(GCPercent)
	limit := debug.SetMemoryLimit(MemoryLimit)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
