package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// startSDKServer starts interop/keyless-agent.mjs served by the official
// SDK's own AcpServer (Streamable HTTP on /acp, no WebSocket) and returns
// its URL.
func startSDKServer(t *testing.T) string {
	t.Helper()
	requireNode(t)
	cmd := exec.Command("node", filepath.Join(interopDir, "keyless-agent.mjs"), "--listen", "127.0.0.1:0", "--store", t.TempDir())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") || !strings.HasSuffix(line, "/acp\n") {
		t.Fatalf("first line on stdout %q (%v), want the URL", line, err)
	}
	return strings.TrimSpace(line)
}

// acpsim check and conform against an Agent on the SDK's v2 API served by
// the SDK's AcpServer (issue 30, item 1): the server wants Acp-Session-Id on
// every request naming a session, session/resume among them, and answers a
// WebSocket upgrade 426. No transport failure: the verdicts are about the
// Agent, which drops idempotencyKey as the SDK does.
func TestSDKHTTPServer(t *testing.T) {
	url := startSDKServer(t)
	bin := acpsim(t)
	transport := []string{"BROKEN AGENT", "Acp-Session-Id", "HTTP 4", "cannot connect"}
	t.Run("check", func(t *testing.T) {
		out, code := execIn(t, t.TempDir(), bin, "check", "--url", url, "--seeds", "4", "--start-timeout", "30s")
		for _, bad := range transport {
			if strings.Contains(out, bad) {
				t.Errorf("check --url says %q: a transport failure, not a verdict on the Agent:\n%s", bad, out)
			}
		}
		if code != 1 || !strings.Contains(out, "duplicate") {
			t.Fatalf("check --url exit %d, want 1 naming the duplicates a keyless Agent makes:\n%s", code, out)
		}
		if !strings.Contains(out, "judged for") {
			t.Errorf("check --url judged nothing:\n%s", out)
		}
	})
	t.Run("conform", func(t *testing.T) {
		out, code := execIn(t, t.TempDir(), bin, "conform", "--url", url)
		for _, bad := range transport {
			if strings.Contains(out, bad) {
				t.Errorf("conform --url says %q: a transport failure, not a verdict on the Agent:\n%s", bad, out)
			}
		}
		if !strings.Contains(out, "baselines: 6 of 6 passed") {
			t.Errorf("conform --url: a baseline failed against the SDK server:\n%s", out)
		}
		for _, c := range []string{"session-1       PASS", "retry-1         FAIL"} {
			if !strings.Contains(out, c) {
				t.Errorf("conform --url: want %q (resume works over the SDK's HTTP; the keyless Agent inserts a retry again):\n%s", c, out)
			}
		}
		if code != 1 {
			t.Errorf("conform --url exit %d, want 1 (the key rules fail on a keyless Agent)", code)
		}
	})
}
