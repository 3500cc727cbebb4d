package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/acpsim/acpsim/netfault/realmode"
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
// by an interrupt.
func makeScratch(pattern string) (string, error) {
	scratchDirs.mu.Lock() // made and listed at once: an interrupt sees it
	defer scratchDirs.mu.Unlock()
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if scratchDirs.dirs == nil {
		scratchDirs.dirs = map[string]bool{}
	}
	scratchDirs.dirs[dir] = true
	return dir, nil
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
			realmode.KillAll()
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
