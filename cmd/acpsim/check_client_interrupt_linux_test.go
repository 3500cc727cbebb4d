package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An interrupted check-client (SIGINT, SIGTERM) judges none of the seeds
// it cut short: no FAIL, no broken adapter, no failure trace; it exits at
// once with the shell's code and leaves no scratch directory.
func TestAnInterruptedCheckClientPrintsNoVerdictForSeedsItCutShort(t *testing.T) {
	requireNode(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitInterrupted}, {syscall.SIGTERM, exitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			tmp, dir := t.TempDir(), t.TempDir()
			cmd := exec.Command(os.Args[0], "check-client", "--seeds", "4", "--jobs", "2", "--prompts", "200",
				"--", "node", filepath.Join(interopDir, "keyed-client-adapter.mjs"))
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1", "TMPDIR="+tmp)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) { // both seeds' Agents up
				traces, _ := filepath.Glob(filepath.Join(tmp, "acpsim-check-client-*", "seed-*", "trace.ndjson"))
				if len(traces) >= 2 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no seed under way after 20s: %s", stderr.String())
				}
			}
			time.Sleep(500 * time.Millisecond)
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Fatalf("%v; want exit %d:\n%s%s", err, c.code, stdout.String(), stderr.String())
			}
			if out := stdout.String(); strings.Contains(out, "FAIL") || strings.Contains(out, "broken") || strings.Contains(out, "PASS") {
				t.Errorf("a verdict for seeds cut short:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(dir, failuresDir)); err == nil {
				t.Errorf("%s written for seeds cut short", failuresDir)
			}
			if took > 5*time.Second {
				t.Errorf("exited %v after the signal, want promptly", took)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("$TMPDIR holds %v after check-client", left)
			}
		})
	}
}
