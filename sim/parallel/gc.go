package parallel

import (
	"os"
	"runtime/debug"
)

// The collector's settings for a process that runs many whole simulations
// one after another and keeps little of each (swarm, explore, matrix,
// mutants: at most one trace per worker). A ten-prompt seed
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
// settings it found. Only the commands that run many seeds and keep little
// call it: past 512 MiB live the soft limit has the collector run more
// often than Go's default would, so acpsim judge, run and shrink, which hold
// whole traces, keep the default.
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
