package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runSelf runs this test binary as the acpsim executable with args, stdin
// from stdin, in dir, and returns its output, exit code and peak RSS in
// bytes (of it and the children it waited for: the kernel's ru_maxrss).
func runSelf(t *testing.T, dir string, stdin []byte, env []string, args ...string) (out string, code int, maxRSS int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1"), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("acpsim %q did not end within 60s:\n%s", args, b.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru != nil {
		maxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return b.String(), cmd.ProcessState.ExitCode(), maxRSS
}

// An adapter that writes 1 GiB without a newline is a broken adapter, and
// acpsim reads no more of it than its line limit: its memory stays small.
func TestCheckClientAdapterWithAnEndlessLineIsBrokenInBoundedMemory(t *testing.T) {
	out, code, rss := runSelf(t, t.TempDir(), nil, nil,
		"check-client", "--seeds", "1", "--", "sh", "-c", "exec head -c 1073741824 /dev/zero")
	if code != 1 || !strings.Contains(out, "broke its contract") ||
		!strings.Contains(out, "stdout line 1: a line longer than 16777216 bytes without a newline, not read further") {
		t.Fatalf("exit %d, want 1 and a broken adapter naming its endless line:\n%s", code, out)
	}
	if rss == 0 || rss > 100<<20 {
		t.Fatalf("acpsim's peak RSS was %d MB, want under 100 MB", rss>>20)
	}
}

// What an adapter writes reaches the terminal escaped: an escape sequence in
// its line is shown, not acted on.
func TestCheckClientBrokenAdapterLineIsEscaped(t *testing.T) {
	out, code, _ := runSelf(t, t.TempDir(), nil, nil,
		"check-client", "--seeds", "1", "--", "sh", "-c", `printf '\033[2J\033]0;owned\007\302\233\n'; exec sleep 10`)
	if code != 1 || !strings.Contains(out, "broke its contract") {
		t.Fatalf("exit %d, want 1 and a broken adapter:\n%s", code, out)
	}
	if strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Fatalf("the report holds the adapter's raw control bytes: %q", out)
	}
	if !strings.Contains(out, `\x1b[2J\x1b]0;owned\a\u009b`) {
		t.Fatalf("the report must show the adapter's line escaped:\n%s", out)
	}
}

// A broken Agent's id and stderr reach the terminal escaped too.
func TestCheckBrokenAgentBytesAreEscaped(t *testing.T) {
	for _, c := range []struct{ name, agent, want string }{
		{"unknown id", `read l; printf '{"jsonrpc":"2.0","id":"\302\233x","result":{}}\n'; exec sleep 10`,
			`answered request id "\u009bx", which this connection never sent`},
		{"stderr", `printf '\033]0;owned\007 crashed\n' >&2; exit 1`, `\x1b]0;owned\a crashed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := checkRun(t, "--seeds", "1", "--", "sh", "-c", c.agent)
			if code != exitAnomaly || !strings.Contains(out, "BROKEN AGENT") || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, want 1, a broken Agent and %s:\n%s", code, c.want, out)
			}
			if strings.ContainsAny(out, "\x1b\x07\u009b") {
				t.Fatalf("the report holds the Agent's raw control bytes: %q", out)
			}
		})
	}
}
