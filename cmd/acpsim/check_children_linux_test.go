package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// setsidAgent is an Agent's script that starts a child in a session of its
// own holding its stdout and never answers; both write their pids to pids.
func setsidAgent(pids string) []string {
	return []string{"sh", "-c", fmt.Sprintf(`setsid sh -c 'echo $$ >> %[1]s; exec sleep 1000' & echo $$ >> %[1]s; exec sleep 1000`, pids)}
}

// running lists the pids in file that still run (a zombie does not: it is
// dead, only not reaped yet); want is how many the file must hold.
func running(t *testing.T, file string, want int) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b))
	if len(fields) != want {
		t.Fatalf("%s holds %q, want %d pids", file, fields, want)
	}
	var live []int
	for _, f := range fields {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := bytes.LastIndexByte(stat, ')'); err == nil && i > 0 && !bytes.HasPrefix(stat[i+1:], []byte(" Z")) {
			live = append(live, pid)
		}
	}
	return live
}

// An Agent that leaves a setsid child holding stdout is a broken Agent
// within --start-timeout (the issue allows 10 s more), and neither it nor
// its child outlives check.
func TestCheckEndsWhenTheAgentLeavesASetsidChildHoldingStdout(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	start := time.Now()
	out, code := checkRun(t, append([]string{"--seeds", "1", "--clients", "1", "--start-timeout", "2s", "--"}, setsidAgent(pids)...)...)
	took := time.Since(start)
	if code != exitAnomaly || !strings.Contains(out, "BROKEN AGENT: the Agent did not answer initialize within 2s") {
		t.Fatalf("exit %d, want 1 and a broken Agent:\n%s", code, out)
	}
	if took > 12*time.Second {
		t.Errorf("check took %v, want within --start-timeout 2s + 10s", took)
	}
	if live := running(t, pids, 2); len(live) > 0 {
		t.Errorf("still running after check: %v", live)
	}
}
