package stdioproxy

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault/realmode/internal/realtest"
)

// echoAgent logs every line it reads to $LOG and answers each request with a
// result, after $PAUSE seconds, under the id the proxy gave it; it exits 3
// at the end of its stdin.
const echoAgent = `while IFS= read -r l; do
  printf '%s\n' "$l" >> "$LOG"
  id=$(printf '%s' "$l" | sed -n 's/.*"id":\("[^"]*"\).*/\1/p')
  if [ -n "$id" ]; then sleep "$PAUSE"; printf '{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}\n' "$id"; fi
done
exit 3`

// proxyRun runs a proxy of mode in front of echoAgent, writes lines as the
// Client, waits for that many answers, then closes the Client's side. It
// returns what the Client got, what the Agent read and the exit code.
func proxyRun(t *testing.T, mode string, pause string, retryAfter time.Duration, answers int, lines ...string) (got, agentRead []string, code int) {
	t.Helper()
	realtest.NoLeaks(t) // no reader, writer or timer outlives the proxy
	log := filepath.Join(t.TempDir(), "agent.log")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ids := 0
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Run(Config{Agent: []string{"sh", "-c", echoAgent}, Env: append(os.Environ(), "LOG="+log, "PAUSE="+pause),
			Mode: mode, RetryAfter: retryAfter, NewID: func() string { ids++; return "fresh-" + strconv.Itoa(ids) },
			In: inR, Out: outW, Err: io.Discard})
		outW.Close()
		done <- result{code, err}
	}()
	for _, l := range lines {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	br := bufio.NewReader(outR)
	for range answers {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the Client got %q, then %v", got, err)
		}
		got = append(got, strings.TrimSuffix(l, "\n"))
	}
	inW.Close()
	rest, _ := io.ReadAll(br)
	if len(rest) > 0 {
		got = append(got, strings.Split(strings.TrimSuffix(string(rest), "\n"), "\n")...)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	b, _ := os.ReadFile(log)
	return got, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), r.code
}

const keyedPrompt = `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}],"idempotencyKey":"k1"}}`

// An honest proxy gives the Agent ids of its own, keeps the key, maps the
// answer back to the Client's id, forwards a line that is not JSON as it
// is, and exits with the Agent's code once both sides are done.
func TestProxyForwardsAndMapsIDsBack(t *testing.T) {
	got, read, code := proxyRun(t, proxy.Honest, "0", 0, 1, keyedPrompt, "not json {")
	if code != 3 {
		t.Errorf("exit %d, want the Agent's 3", code)
	}
	if len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":7,"result":{"ok":true}}` {
		t.Errorf("the Client got %q, want one answer to id 7", got)
	}
	if len(read) != 2 || !strings.Contains(read[0], `"id":"p0-1"`) || !strings.Contains(read[0], `"idempotencyKey":"k1"`) || read[1] != "not json {" {
		t.Errorf("the Agent read %q, want the prompt under id p0-1 with its key, then the line as sent", read)
	}
}

// A fresh-key-retry proxy sends an unanswered prompt again with a key of its
// own; the Client hears one answer.
func TestProxyRetriesWithAFreshKey(t *testing.T) {
	got, read, _ := proxyRun(t, proxy.FreshKeyRetry, "0.3", 20*time.Millisecond, 1, keyedPrompt)
	if len(got) != 1 || !strings.Contains(got[0], `"id":7`) {
		t.Errorf("the Client got %q, want one answer to id 7", got)
	}
	if len(read) != 2 || !strings.Contains(read[0], `"idempotencyKey":"k1"`) || !strings.Contains(read[1], `"idempotencyKey":"fresh-1"`) {
		t.Errorf("the Agent read %q, want the prompt, then the proxy's retry with its fresh key", read)
	}
}

func TestProxyStripsKeys(t *testing.T) {
	_, read, _ := proxyRun(t, proxy.StripKey, "0", 0, 1, keyedPrompt)
	if len(read) != 1 || strings.Contains(read[0], "idempotencyKey") || !strings.Contains(read[0], `"text":"hi"`) {
		t.Errorf("the Agent read %q, want the prompt without its key", read)
	}
}

// Every JSON number and string is a legal id: the proxy maps the Agent's
// answer back to the id the Client wrote, byte for byte.
func TestProxyMapsEveryLegalIDBack(t *testing.T) {
	ids := []string{`1e3`, `0.0`, `-0`, `1.5`, `18446744073709551616`, `"\u0061"`, `"a<b&c>"`, `"é"`, `null`}
	var lines []string
	for _, id := range ids {
		lines = append(lines, strings.Replace(keyedPrompt, `"id":7`, `"id":`+id, 1))
	}
	got, _, _ := proxyRun(t, proxy.Honest, "0", 0, len(ids), lines...)
	if len(got) != len(ids) {
		t.Fatalf("the Client got %q, want %d answers", got, len(ids))
	}
	for i, id := range ids {
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":{"ok":true}}`; got[i] != want {
			t.Errorf("the Client got %s, want %s", got[i], want)
		}
	}
}
