package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// deadPid is the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func dirsIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// The sweep removes the scratch directories of processes that are gone and
// nothing else: not a live process's, not one without an owner in its
// name, not a file, not another program's.
func TestSweepScratchRemovesOnlyDeadOwnersDirectories(t *testing.T) {
	tmp := t.TempDir()
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	dead := deadPid(t)
	mk := func(name string, file bool) {
		p := filepath.Join(tmp, name)
		var err error
		if file {
			err = os.WriteFile(p, nil, 0o644)
		} else if err = os.Mkdir(p, 0o755); err == nil {
			err = os.WriteFile(filepath.Join(p, "agent.db"), []byte("x"), 0o644) // not empty: RemoveAll, not Remove
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	stale := []string{scratchName("acpsim-check-3-", dead) + "123", scratchName("acpsim-check-client-", dead) + "9", scratchName("acpsim-conform-initialize-", dead) + "42"}
	kept := []string{
		scratchName("acpsim-check-1-", live.Process.Pid) + "5", // its owner runs
		scratchName("acpsim-check-2-", os.Getpid()) + "6",      // ours
		"acpsim-check-4-77",                           // no owner in its name (an older acpsim)
		"other-check-1-pid" + fmt.Sprint(dead) + "-1", // not acpsim's
		scratchName("acpsim-check-5-", dead) + "x",    // not MkdirTemp's suffix
	}
	for _, n := range stale {
		mk(n, false)
	}
	for _, n := range kept {
		mk(n, false)
	}
	file := scratchName("acpsim-check-6-", dead) + "8"
	mk(file, true)
	sweepScratch(tmp)
	got := dirsIn(t, tmp)
	want := append(slices.Clone(kept), file)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after the sweep %s holds\n%q\nwant\n%q", tmp, got, want)
	}
}

// A check killed with SIGKILL leaves its seeds' scratch directories; the
// next run sweeps them.
func TestTheNextRunSweepsAKilledChecksScratchDirectories(t *testing.T) {
	tmp, pids := t.TempDir(), filepath.Join(t.TempDir(), "pids")
	agent := fmt.Sprintf(`echo $$ >> %s; exec %s agent`, pids, os.Args[0])
	cmd := exec.Command(os.Args[0], "check", "--seeds", "4", "--jobs", "2", "--", "sh", "-c", agent)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1", "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for n := 0; n < 2; time.Sleep(20 * time.Millisecond) { // both seeds under way
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("the check's Agents did not start")
		}
		b, _ := os.ReadFile(pids)
		n = len(strings.Fields(string(b)))
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	b, _ := os.ReadFile(pids)
	for _, f := range strings.Fields(string(b)) { // its Agents, orphaned: the test's to end
		var pid int
		fmt.Sscan(f, &pid)
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	left := dirsIn(t, tmp)
	if len(left) < 2 {
		t.Fatalf("the killed check left %q in its temp dir, want its two seeds' scratch directories", left)
	}
	var out bytes.Buffer
	next := exec.Command(os.Args[0], "check", "--seeds", "1", "--", os.Args[0], "agent")
	next.Dir = t.TempDir()
	next.Env = append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1", "TMPDIR="+tmp)
	next.Stdout, next.Stderr = &out, &out
	if err := next.Run(); err != nil {
		t.Fatalf("the next check: %v\n%s", err, out.String())
	}
	if still := dirsIn(t, tmp); len(still) > 0 {
		t.Fatalf("after the next run %s still holds %q (the killed run left %q)", tmp, still, left)
	}
}
