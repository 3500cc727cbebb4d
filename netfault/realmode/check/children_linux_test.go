package check

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/netfault/realmode/internal/realtest"
)

// leftBehind is a shell Agent's script that starts a child in a session
// of its own (out of the Agent's process group) holding its stdout, then
// goes on with rest. Both write their pid to pids.
func leftBehind(pids, child, rest string) []string {
	script := fmt.Sprintf(`setsid %s sh -c 'echo $$ >> %s; exec sleep 1000' & echo $$ >> %s; %s`, child, pids, pids, rest)
	return []string{"sh", "-c", script}
}

// alive lists which of the pids written to file still run (a zombie is
// dead: only its parent has not reaped it yet).
func alive(t *testing.T, file string, want int) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var pids, live []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: %q", file, f)
		}
		pids = append(pids, pid)
		if isLive(pid) {
			live = append(live, pid)
		}
	}
	if len(pids) != want {
		t.Fatalf("%s holds %d pids, want %d: the Agent's script did not run as meant", file, len(pids), want)
	}
	return live
}

// isLive says whether pid is a process that runs: its /proc/PID/stat is
// there and not a zombie's (dead, only not yet reaped).
func isLive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(b[i+1:])
	return len(f) >= 2 && string(f[0]) != "Z"
}

// An Agent that leaves a child holding its stdout still gets its verdict
// within the start timeout, and nothing it started outlives the run: the
// child in a session of its own, one that cleared its environment too (found
// as the Agent's descendant, or as a holder of its stdout once the Agent
// exited), and one whose parent (the Agent) exited.
func TestCheckEndsAndLeavesNoChildWhenTheAgentLeavesOneHoldingStdout(t *testing.T) {
	realtest.NoLeaks(t)
	for _, c := range []struct {
		name, child, rest, kind string
	}{
		{"never answers", "", "exec sleep 1000", BrokenNoAnswer},
		{"env cleared, never answers", "env -i", "exec sleep 1000", BrokenNoAnswer},
		{"exits", "", "while [ $(wc -l < PIDS) -lt 2 ]; do sleep 0.05; done; exit 0", BrokenExitedAtStart},
		{"env cleared, exits", "env -i", "while [ $(wc -l < PIDS) -lt 2 ]; do sleep 0.05; done; exit 0", BrokenExitedAtStart},
	} {
		t.Run(c.name, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			cfg := checkConfig(1)
			cfg.Clients = 1 // one Agent process: two pids
			cfg.Agent = leftBehind(pids, c.child, strings.ReplaceAll(c.rest, "PIDS", pids))
			start := time.Now()
			res, err := Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			if res.Broken == nil || res.Broken.Kind != c.kind {
				t.Errorf("broken %+v, want kind %s", res.Broken, c.kind)
			}
			if took > cfg.StartTimeout+3*time.Second {
				t.Errorf("took %v, want within the start timeout %v and a little", took, cfg.StartTimeout)
			}
			// A SIGKILL is delivered when the kernel gets to it: on a
			// loaded machine a killed child may run on for a moment.
			// One that was never found sleeps on for 1000 s.
			live := alive(t, pids, 2)
			for wait := time.Now(); len(live) > 0 && time.Since(wait) < 2*time.Second; live = alive(t, pids, 2) {
				time.Sleep(20 * time.Millisecond)
			}
			if len(live) > 0 {
				t.Errorf("still running 2s after the run: %v", live)
			}
		})
	}
}
