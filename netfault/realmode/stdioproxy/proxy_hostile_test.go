package stdioproxy

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault/realmode/internal/realtest"
)

// lockedBuffer is a bytes.Buffer the Agent's stderr copier and the test
// may use at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hostileProxy runs an honest proxy in front of the Agent script agent,
// writes lines as the Client and ends its input, and returns what the
// Client got, the proxy's stderr and its exit code. The proxy must end
// within limit.
func hostileProxy(t *testing.T, agent string, grace, limit time.Duration, lines ...string) (got []string, stderr string, code int) {
	t.Helper()
	realtest.NoLeaks(t)
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	outR, outW := io.Pipe()
	var errb lockedBuffer
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Run(Config{Agent: []string{"sh", "-c", agent}, Mode: proxy.Honest, ExitGrace: grace,
			NewID: func() string { return "fresh" }, In: in, Out: outW, Err: &errb})
		outW.Close()
		done <- result{code, err}
	}()
	read := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		read <- got
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return <-read, errb.String(), r.code
	case <-time.After(limit):
		t.Fatalf("the proxy did not end within %v; stderr: %s", limit, errb.String())
		return nil, "", 0
	}
}

// An Agent that ignores the end of its input is killed after the grace
// period, and the proxy exits with the kill's code.
func TestProxyKillsAnAgentThatIgnoresTheEndOfItsInput(t *testing.T) {
	start := time.Now()
	_, stderr, code := hostileProxy(t, "exec sleep 100", 200*time.Millisecond, 10*time.Second)
	if code != 137 || !strings.Contains(stderr, "the Agent did not exit within 200ms of the end of its input: killed it") {
		t.Fatalf("exit %d, stderr %q: want 137 and the kill said", code, stderr)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("took %v, want about the 200ms grace", took)
	}
}

// An Agent's line is read up to proc.MaxLine: one that never ends gets the
// Agent killed, not the proxy's memory filled.
func TestProxyKillsAnAgentWritingAnEndlessLine(t *testing.T) {
	_, stderr, code := hostileProxy(t, "exec cat /dev/zero", 0, 20*time.Second)
	if code != 137 || !strings.Contains(stderr, "the Agent wrote a line longer than 16777216 bytes without a newline: killed it") {
		t.Fatalf("exit %d, stderr %q: want 137 and the endless line said", code, stderr)
	}
}

// answerTwice answers every request twice under the proxy's id: first with
// $FIRST (a response body, without the id), then with a result.
const answerTwice = `while IFS= read -r l; do
  id=$(printf '%s' "$l" | sed -n 's/.*"id":\("[^"]*"\).*/\1/p')
  if [ -n "$id" ]; then
    printf '{"jsonrpc":"2.0","id":%s,%s}\n' "$id" "$FIRST"
    printf '{"jsonrpc":"2.0","id":%s,"result":{"again":true}}\n' "$id"
  fi
done`

// Every answer goes back under the Client's id: a malformed one (result and
// error both) and a repeated one too, so that a checker behind the proxy
// sees what the Agent did.
func TestProxyMapsMalformedAndRepeatedAnswersBack(t *testing.T) {
	for _, c := range []struct{ name, first, want string }{
		{"malformed", `"result":{},"error":{"code":-32603,"message":"both"}`,
			`{"error":{"code":-32603,"message":"both"},"id":7,"jsonrpc":"2.0","result":{}}`},
		{"repeated", `"result":{"ok":true}`, `{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("FIRST", c.first)
			got, _, _ := hostileProxy(t, answerTwice, 5*time.Second, 10*time.Second, keyedPrompt)
			want := []string{c.want, `{"jsonrpc":"2.0","id":7,"result":{"again":true}}`}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("the Client got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
