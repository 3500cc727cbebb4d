package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A restart command that starts its Agent in the background and returns
// (the Agent keeping the command's output open) is done when it exits, not
// when the Agent does; a failing one still fails.
func TestRestartCommandReturnsWhileItsBackgroundAgentHoldsTheOutput(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	out, err := RunRestart(exec.Command("sh", "-c", "sleep 60 & echo $! > "+pidFile+"; echo serving"))
	took := time.Since(start)
	if b, rerr := os.ReadFile(pidFile); rerr == nil {
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if err != nil || !strings.Contains(string(out), "serving") {
		t.Fatalf("RunRestart: %v, output %q; want success with the command's output", err, out)
	}
	if took > restartPipeWait+3*time.Second {
		t.Fatalf("RunRestart took %v: it waited for the background Agent", took)
	}
	if _, err := RunRestart(exec.Command("sh", "-c", "echo broken; exit 3")); err == nil {
		t.Fatal("a restart command that exits 3 succeeded")
	}
}
