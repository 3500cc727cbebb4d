package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// An interrupted check (SIGINT, SIGTERM) kills its Agent processes, leaves
// no scratch directory in $TMPDIR, and exits at once with the shell's code.
func TestAnInterruptedCheckLeavesNoScratchDirectoryAndNoAgent(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitInterrupted}, {syscall.SIGTERM, exitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			tmp, pids := t.TempDir(), filepath.Join(t.TempDir(), "pids")
			agent := fmt.Sprintf(`echo $$ >> %s; exec %s agent`, pids, os.Args[0])
			cmd := exec.Command(os.Args[0], "check", "--seeds", "4", "--jobs", "2", "--", "sh", "-c", agent)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1", "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for n := 0; n < 2; time.Sleep(20 * time.Millisecond) { // Agents up, seeds under way
				b, _ := os.ReadFile(pids)
				n = len(strings.Fields(string(b)))
			}
			time.Sleep(300 * time.Millisecond)
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Fatalf("%v; want exit %d: %s", err, c.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "scratch directories removed") {
				t.Errorf("stderr does not say what it did: %q", stderr.String())
			}
			if took > 5*time.Second {
				t.Errorf("exited %v after the signal, want promptly", took)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("$TMPDIR holds %v after check", left)
			}
			b, _ := os.ReadFile(pids)
			if live := running(t, pids, len(strings.Fields(string(b)))); len(live) > 0 {
				t.Errorf("Agent processes still running after check: %v", live)
			}
		})
	}
}
