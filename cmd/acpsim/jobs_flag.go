package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/pflag"
)

// registerJobs adds -j/--jobs, the same on every command that runs work side
// by side: 0 (the default) is one per core, and the output never depends on it.
func registerJobs(fs *pflag.FlagSet, jobs *int, what string) {
	fs.IntVarP(jobs, "jobs", "j", 0, what+" run side by side (0: one per core); the output does not depend on it")
}

// resolveJobs turns --jobs into a count of workers: 0 is one per core, at
// most limit when limit > 0.
func resolveJobs(jobs, limit int) (int, error) {
	if jobs < 0 {
		return 0, fmt.Errorf("--jobs %d: expected 0 (one per core) or more", jobs)
	}
	if jobs == 0 {
		jobs = runtime.GOMAXPROCS(0)
		if limit > 0 {
			jobs = min(jobs, limit)
		}
	}
	return jobs, nil
}
