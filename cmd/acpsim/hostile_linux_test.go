package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/traces"
)

// runSelf runs this test binary as the acpsim executable with args, stdin
// from stdin, in dir, and returns its output, exit code and peak RSS in
// bytes (its VmHWM, polled while it runs).
func runSelf(t *testing.T, dir string, stdin []byte, env []string, args ...string) (out string, code int, maxRSS int64) {
	t.Helper()
	return runSelfFrom(t, dir, bytes.NewReader(stdin), env, args...)
}

// runSelfFrom is runSelf with its stdin read from r.
func runSelfFrom(t *testing.T, dir string, r io.Reader, env []string, args ...string) (out string, code int, maxRSS int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1"), env...)
	cmd.Stdin = r
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The peak is read from the child's VmHWM, which belongs to the memory
	// it has since its exec; the kernel's ru_maxrss would also count the
	// test binary it was forked from (hundreds of MB late in a full run).
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	var err error
	for waiting := true; waiting; {
		select {
		case err = <-done:
			waiting = false
		case <-tick.C:
			maxRSS = max(maxRSS, vmHWM(status))
		case <-deadline:
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("acpsim %q did not end within 60s:\n%s", args, b.String())
		}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return b.String(), cmd.ProcessState.ExitCode(), maxRSS
}

// vmHWM is the VmHWM line of a /proc status file in bytes, 0 if unreadable.
func vmHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
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

// endless is n bytes of 'x' with no newline, made as they are read.
func endless(n int64) io.Reader { return io.LimitReader(xReader{}, n) }

type xReader struct{}

func (xReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// A Client or an Agent that writes 1 GiB without a newline through acpsim
// tap costs the tap its line limit, not the gigabyte: the Client's input
// ends there, the Agent is killed, and each is said in one line.
func TestTapBoundsEndlessLines(t *testing.T) {
	for _, c := range []struct {
		name  string
		stdin io.Reader
		agent string
		code  int
		want  string
	}{
		{"client", endless(1 << 30), "cat > /dev/null", 0, "acpsim tap: the Client wrote a line longer than 16777216 bytes without a newline: its input ends there"},
		{"agent", nil, "exec head -c 1073741824 /dev/zero", 137, "acpsim tap: the Agent wrote a line longer than 16777216 bytes without a newline: killed it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			trace := filepath.Join(dir, "t.ndjson")
			stdin := c.stdin
			if stdin == nil {
				stdin = strings.NewReader("")
			}
			out, code, rss := runSelfFrom(t, dir, stdin, nil, "tap", "--trace", trace, "--", "sh", "-c", c.agent)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, want %d and %q:\n%.2000s", code, c.code, c.want, out)
			}
			if rss == 0 || rss > 100<<20 {
				t.Fatalf("the tap's peak RSS was %d MB, want under 100 MB", rss>>20)
			}
			if _, err := traces.ReadFile(trace); err != nil {
				t.Fatalf("the tap's trace does not read back: %v", err)
			}
		})
	}
}

// acpsim agent on stdio reads no more of a Client's line than its limit:
// a Client that writes 1 GiB without a newline stops it with an error
// that says so, in bounded memory.
func TestAgentStopsOnAnEndlessClientLine(t *testing.T) {
	out, code, rss := runSelfFrom(t, t.TempDir(), endless(1<<30), nil, "agent")
	if code == 0 || !strings.Contains(out, "the Client wrote a line longer than 16777216 bytes without a newline") {
		t.Fatalf("exit %d, want an error naming the endless line:\n%.2000s", code, out)
	}
	if rss == 0 || rss > 100<<20 {
		t.Fatalf("the Agent's peak RSS was %d MB, want under 100 MB", rss>>20)
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

// tapOnce runs `acpsim tap --trace trace` as a process in front of an Agent
// that notes its start in started and exits at once.
func tapOnce(t *testing.T, trace, started string) (out string, code int, maxRSS int64) {
	t.Helper()
	return runSelf(t, t.TempDir(), nil, nil, "tap", "--trace", trace, "--", "sh", "-c", "echo started >> "+started)
}

// A trace whose last line a killed tap left cut off is truncated back to
// its last whole line, said in one line, and appended to: the Agent starts.
func TestTapRecoversATraceWithACutOffLastLine(t *testing.T) {
	dir := t.TempDir()
	trace, started := filepath.Join(dir, "t.ndjson"), filepath.Join(dir, "started")
	if out, code, _ := tapOnce(t, trace, started); code != 0 {
		t.Fatalf("first tap: exit %d:\n%s", code, out)
	}
	whole, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []string{
		`{"t":99999,"seq":5,"kind":"send","link":"c1:a1#1","frame":"{\"jsonrpc\":\"2.0\",\"id\":1,\"res`, // no newline
		"\x00\x00\x00\x00\n", // a newline, but not an event
	} {
		if err := os.WriteFile(trace, append(slices.Clip(whole), cut...), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code, _ := tapOnce(t, trace, started)
		if code != 0 || !strings.Contains(out, fmt.Sprintf("acpsim tap: %s ended in a cut-off line (%d bytes", trace, len(cut))) ||
			strings.Count(out, "\n") != 1 {
			t.Fatalf("tap after a cut-off line: exit %d, want 0 and one line on stderr:\n%s", code, out)
		}
		log, err := traces.ReadFile(trace)
		if err != nil {
			t.Fatalf("the repaired trace does not read: %v", err)
		}
		restarts := 0
		for i, e := range log.Events {
			if e.Seq != int64(i+1) {
				t.Fatalf("event %d has seq %d: the numbering did not continue", i+1, e.Seq)
			}
			if e.Kind == traces.KindRestart {
				restarts++
			}
		}
		if restarts != 2 || log.Events[len(log.Events)-1].Kind != traces.KindDisconnect {
			t.Fatalf("the repaired trace holds %d restarts, want the first process and this one:\n%v", restarts, log.Events)
		}
	}
	b, _ := os.ReadFile(started)
	if n := strings.Count(string(b), "started"); n != 3 {
		t.Fatalf("the Agent started %d times, want 3", n)
	}
}

// Appending to a large trace reads its header and its end, not the whole:
// the tap's memory does not grow with the trace.
func TestTapAppendsToALargeTraceInBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	trace, started := filepath.Join(dir, "big.ndjson"), filepath.Join(dir, "started")
	if out, code, _ := tapOnce(t, trace, started); code != 0 {
		t.Fatalf("first tap: exit %d:\n%s", code, out)
	}
	f, err := os.OpenFile(trace, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	log, err := traces.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	seq, tm := int64(len(log.Events)), log.Events[len(log.Events)-1].T
	w := traces.NewAppendWriter(f, log.Header.Format)
	frame := `{"jsonrpc":"2.0","method":"session/update","params":{"text":"` + strings.Repeat("x", 1000) + `"}}`
	for size := int64(0); size < 200<<20; size += int64(len(frame)) + 100 {
		seq++
		tm++
		e := traces.Event{T: tm, Seq: seq, Kind: traces.KindSend, Link: "c1:a1#1", From: "a1#1", To: "c1", Dir: traces.AgentToClient, Frame: frame}
		if err := w.WriteEvent(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, code, rss := tapOnce(t, trace, started)
	if code != 0 {
		t.Fatalf("tap on a 200 MB trace: exit %d:\n%s", code, out)
	}
	if rss == 0 || rss > 100<<20 {
		t.Fatalf("tap's peak RSS on a 200 MB trace was %d MB, want under 100 MB", rss>>20)
	}
	lines := strings.Split(strings.TrimSuffix(string(tailOf(t, trace, 4096)), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, fmt.Sprintf(`"seq":%d,"kind":"disconnect"`, seq+3)) {
		t.Fatalf("the last event %s, want the disconnect as seq %d", last, seq+3)
	}
	for _, l := range lines[len(lines)-3:] {
		if !strings.Contains(l, "a1#2") {
			t.Fatalf("the appended events must name the second process: %s", l)
		}
	}
}

// tailOf is the last n bytes of path.
func tailOf(t *testing.T, path string, n int64) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	b := make([]byte, min(n, fi.Size()))
	if _, err := f.ReadAt(b, fi.Size()-int64(len(b))); err != nil {
		t.Fatal(err)
	}
	return b
}
