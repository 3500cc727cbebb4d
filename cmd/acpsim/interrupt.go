package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acpsim/acpsim/netfault/realmode/proc"
)

// Exit codes of an interrupted check, check-client or conform: the shell's
// 128 + the signal's number.
const (
	exitInterrupted = 130 // SIGINT
	exitTerminated  = 143 // SIGTERM
)

// scratchDirs are the temporary directories live now: an interrupt removes
// them, as the deferred removals that will not run would have.
var scratchDirs struct {
	mu   sync.Mutex
	dirs map[string]bool
}

// makeScratch is os.MkdirTemp in the temp dir, removed by removeScratch or
// by an interrupt. Its name holds this process's pid (scratchName), so that
// the first one a process makes can sweep those a killed run left.
func makeScratch(pattern string) (string, error) {
	sweepOnce.Do(func() { sweepScratch(os.TempDir()) })
	scratchDirs.mu.Lock() // made and listed at once: an interrupt sees it
	defer scratchDirs.mu.Unlock()
	dir, err := os.MkdirTemp("", scratchName(pattern, os.Getpid()))
	if err != nil {
		return "", err
	}
	if scratchDirs.dirs == nil {
		scratchDirs.dirs = map[string]bool{}
	}
	scratchDirs.dirs[dir] = true
	return dir, nil
}

// scratchName is the MkdirTemp pattern of a scratch directory of process
// pid: "acpsim-check-3-" becomes "acpsim-check-3-pid1234-", and MkdirTemp
// adds its random digits.
func scratchName(pattern string, pid int) string {
	return pattern + "pid" + strconv.Itoa(pid) + "-"
}

// scratchOwner reads the owner's pid back from a scratch directory's name;
// only a name acpsim makes has one.
var scratchOwner = regexp.MustCompile(`^acpsim-.*-pid([1-9][0-9]*)-[0-9]+$`)

var sweepOnce sync.Once

// sweepScratch removes the scratch directories in tmp whose owner process
// is gone: a run killed by SIGKILL removes nothing (no handler runs), and
// its Agents' stores would stay in the temp dir for good. A directory whose
// owner runs (or whose pid another process took since) is left alone, as
// is anything else in tmp. Errors are ignored: the sweep is a courtesy.
func sweepScratch(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "acpsim-") {
			continue
		}
		m := scratchOwner.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() || processRuns(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
}

// processRuns says whether process pid exists (a zombie too: its parent
// has not reaped it yet, and may still remove what it made). Permission
// denied means it exists, under another user.
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

// removeScratch removes dir under the lock: an interrupt arriving meanwhile
// waits, and does not exit half way through the removal.
func removeScratch(dir string) {
	scratchDirs.mu.Lock()
	defer scratchDirs.mu.Unlock()
	delete(scratchDirs.dirs, dir)
	_ = os.RemoveAll(dir)
}

// removeAllSettled removes dir, again while an Agent killed a moment ago
// may still be writing its last files into it (SIGKILL is delivered, not
// waited for), for up to a second.
func removeAllSettled(dir string) {
	for range 50 {
		if os.RemoveAll(dir) == nil {
			if _, err := os.Stat(dir); os.IsNotExist(err) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exitOnInterrupt makes SIGINT and SIGTERM, until stop is called, kill
// every Agent (and adapter) process started, remove the scratch
// directories, say so on stderr and exit 130 or 143. The run is abandoned,
// not judged: a seed cut short proves nothing. stop waits for an interrupt
// being handled, which exits: the command's own ending (its processes
// killed under it) must not exit first with another code.
func exitOnInterrupt(stderr io.Writer, name string) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done, ignored := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			proc.KillAll()
			scratchDirs.mu.Lock() // held to the exit: no seed makes another
			for dir := range scratchDirs.dirs {
				removeAllSettled(dir)
			}
			code := exitInterrupted
			if sig == syscall.SIGTERM {
				code = exitTerminated
			}
			fmt.Fprintf(stderr, "acpsim %s: %v: stopped, its Agent processes killed and scratch directories removed (exit %d)\n", name, sig, code)
			os.Exit(code)
		case <-done:
			close(ignored)
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
		<-ignored
	}
}
