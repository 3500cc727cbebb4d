package parallel

import (
	"runtime/debug"
	"testing"
)

// settings reads the collector's percent and limit without changing them.
func settings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

func TestTuneGCSetsTheSeedSettingsAndRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	p0, l0 := settings()
	restore := TuneGC()
	if p, l := settings(); p != GCPercent || l != MemoryLimit {
		t.Errorf("after TuneGC: GOGC %d, limit %d; want %d, %d", p, l, GCPercent, MemoryLimit)
	}
	restore()
	if p, l := settings(); p != p0 || l != l0 {
		t.Errorf("after restore: GOGC %d, limit %d; want the %d, %d it found", p, l, p0, l0)
	}
}

func TestTuneGCLeavesTheUsersChoice(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "100") // the runtime read it at start; only TuneGC reads it now
			p0, l0 := settings()
			defer TuneGC()()
			if p, l := settings(); p != p0 || l != l0 {
				t.Errorf("%s set: TuneGC changed GOGC %d → %d, limit %d → %d", env, p0, p, l0, l)
			}
		})
	}
}
