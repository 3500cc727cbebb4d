package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// testdataPath is a file of testdata/ as an absolute path: checkRun runs
// in a directory of its own.
func testdataPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A --via proxy that forwards nothing and echoes every request's params as
// its result answers session/new without a sessionId: a broken path,
// within the start timeout, and never the PASS it got before (with no
// session/prompt in the trace).
func TestCheckThroughAnEchoingProxyIsABrokenPathWithinStartTimeout(t *testing.T) {
	requireNode(t)
	via := "node " + testdataPath(t, "echo-proxy.mjs") + " {agent}"
	dir := filepath.Join(t.TempDir(), "traces")
	start := time.Now()
	out, code := checkRun(t, "--seeds", "3", "--trace-dir", dir, "--via", via, "--", "self", "agent")
	took := time.Since(start)
	if code != exitAnomaly || strings.Contains(out, "PASS") ||
		!strings.Contains(out, "seed 1: BROKEN PATH: the proxy or the Agent behind it answered session/new without a sessionId") ||
		!strings.Contains(out, "stopped after seed 1") || strings.Contains(out, "seed 2:") {
		t.Fatalf("exit %d, want 1 with a broken path naming session/new without sessionId on seed 1, and no later seed:\n%s", code, out)
	}
	if took > 10*time.Second { // --start-timeout 5s (measured: 1s); --cap 60s
		t.Errorf("the verdict took %v, want it within the start timeout, far from the cap", took)
	}
	for _, log := range readTraces(t, dir) {
		for _, e := range log.Events {
			if strings.Contains(e.Frame, `"method":"session/prompt"`) {
				t.Fatalf("a session/prompt went out with no session made: %s", e.Frame)
			}
		}
	}
}

// An Agent that answers initialize and then nothing: session/new never
// answered is a broken Agent once --start-timeout has passed.
func TestCheckAnAgentThatNeverAnswersSessionNewIsBrokenWithinStartTimeout(t *testing.T) {
	requireNode(t)
	start := time.Now()
	out, code := checkRun(t, "--seeds", "2", "--start-timeout", "2s", "--", "node", testdataPath(t, "silent-after-initialize.mjs"))
	took := time.Since(start)
	if code != exitAnomaly || strings.Contains(out, "PASS") ||
		!strings.Contains(out, "seed 1: BROKEN AGENT: the Agent answered initialize but no session/new on that connection within 2s") {
		t.Fatalf("exit %d, want 1 with a broken Agent that never answered session/new:\n%s", code, out)
	}
	if took > 6*time.Second { // --start-timeout 2s (Node may take one to answer initialize on a busy machine); --cap 60s
		t.Errorf("the verdict took %v, want about the 2s start timeout", took)
	}
}

// The reference Agent answers every session/new: no set-up verdict, even
// when the proxy loses many of its answers (the Client asks again on the
// same connection) or kills it mid-set-up.
func TestCheckAnAgentThatAnswersSessionNewIsNotCalledBroken(t *testing.T) {
	out, code := checkRun(t, "--seeds", "4", "--fault-rates", "drop=0.3,kill=0.1", "--", "self", "agent")
	if code != exitOK || strings.Contains(out, "BROKEN") {
		t.Fatalf("exit %d, want 0 and no broken Agent:\n%s", code, out)
	}
}

// The lines said of interop/v1-agent.mjs, which answers protocolVersion 1.
var (
	v1Version     = acp.ReadPeerVersion([]byte(`{"protocolVersion":1}`))
	v1AgentLine   = v1Version.V1Line("the Agent")
	v1JudgedLine  = v1Version.V1JudgedLine("the Client")
	v1TapLine     = v1Version.V1TapLine("the Agent")
	v1JudgedAgent = v1Version.V1JudgedLine("the Agent")
)

// An ACP v1 Agent: check sees it answer initialize in v1 and runs again
// under v1, with Clients that never resend a prompt; every seed is judged
// (the Agent keeps sessions in memory, so what died with a process is
// named not judged), the summary says it was judged under v1, and judge
// and view on a seed's trace judge it the same way, with the line.
func TestCheckJudgesAV1AgentUnderV1(t *testing.T) {
	requireNode(t)
	dir := filepath.Join(t.TempDir(), "traces")
	out, code := checkRun(t, "--seeds", "3", "--trace-dir", dir, "--", "node", filepath.Join(interopDir, "v1-agent.mjs"))
	if code != exitOK || !strings.Contains(out, "the Agent answered initialize in ACP v1: checking again under v1") ||
		!strings.Contains(out, "policy classes-only") || !strings.Contains(out, "protocol: "+v1JudgedLine) ||
		!strings.Contains(out, "seed 3: pass") || !strings.Contains(out, "schema: every frame conforms to ACP v1") ||
		!strings.Contains(out, "PASS on what was judged") || strings.Contains(out, "BROKEN") {
		t.Fatalf("exit %d, want 0, every seed judged under v1 and said so:\n%s", code, out)
	}
	trace := filepath.Join(dir, "check-seed-1.ndjson")
	judged, code := acpsimRun(t, "judge", trace)
	if code != exitOK || !strings.Contains(judged, "\n"+v1JudgedLine+"\n") || !strings.Contains(judged, "PASS") {
		t.Fatalf("judge: exit %d, want 0 with the v1 line and a verdict:\n%s", code, judged)
	}
	page := filepath.Join(t.TempDir(), "v.html")
	if viewed, code := acpsimRun(t, "view", trace, "-o", page); code != exitOK || strings.Contains(viewed, "inconclusive") {
		t.Fatalf("view: exit %d, want a verdict:\n%s", code, viewed)
	}
	// Pinned to v2, the same Agent is named in one line and nothing is judged.
	pinned, code := checkRun(t, "--seeds", "2", "--protocol", "2", "--", "node", filepath.Join(interopDir, "v1-agent.mjs"))
	if code != exitInconclusive || !strings.Contains(pinned, "seed 1: "+v1AgentLine) || strings.Contains(pinned, "seed 2:") {
		t.Fatalf("--protocol 2: exit %d, want 3 with the v1 line on seed 1 alone:\n%s", code, pinned)
	}
}

// A v1 Agent on the official SDK's default (v1) API, with a store and
// session/load but no session/list: judged under v1 and passed; the same
// Agent dropping the last user message from its replay fails, lost.
func TestCheckAV1AgentOnTheSDKsV1API(t *testing.T) {
	requireNode(t)
	agent := filepath.Join(interopDir, "sdk-v1-agent.mjs")
	out, code := checkRun(t, "--seeds", "4", "--", "node", agent)
	if code != exitOK || !strings.Contains(out, "checking again under v1") || !strings.Contains(out, "\nPASS") ||
		!strings.Contains(out, "lost: judged for") || !strings.Contains(out, "schema: every frame conforms to ACP v1") {
		t.Fatalf("exit %d, want a PASS judged under v1:\n%s", code, out)
	}
	out, code = checkRun(t, "--seeds", "3", "--", "node", agent, "--bug", "lose-last")
	if code != exitAnomaly || !strings.Contains(out, "FAIL: lost") {
		t.Fatalf("--bug lose-last: exit %d, want 1 with lost:\n%s", code, out)
	}
}

// A known-bad v1 Agent fails under v1: lost-writes (each process writes back
// the session list it loaded) loses another process's sessions.
func TestCheckFailsAKnownBadV1Agent(t *testing.T) {
	out, code := checkRun(t, "--seeds", "4", "--", "self", "agent", "--protocol", "1", "--agent", "lost-writes")
	if code != exitAnomaly || !strings.Contains(out, "FAIL: ") || !strings.Contains(out, "session-lost") || !strings.Contains(out, "protocol: ") {
		t.Fatalf("exit %d, want 1 with session-lost judged under v1:\n%s", code, out)
	}
}

// acpsim tap in front of a v1 Agent passes the session through and says
// once on stderr that the Agent speaks v1, however often it answers so;
// judge on the tap's trace judges it under v1 (frames only).
func TestTapSaysOnceThatItsAgentSpeaksV1(t *testing.T) {
	requireNode(t)
	trace := filepath.Join(t.TempDir(), "tap.ndjson")
	cmd := exec.Command(acpsim(t), "tap", "--trace", trace, "--", "node", filepath.Join(interopDir, "v1-agent.mjs"))
	init := `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":2,"capabilities":{},"info":{"name":"c","version":"1"}}}`
	cmd.Stdin = strings.NewReader(strings.ReplaceAll(init, "%d", "1") + "\n" + strings.ReplaceAll(init, "%d", "2") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tap: %v\n%s", err, stderr.String())
	}
	if n := strings.Count(stdout.String(), `"protocolVersion":1`); n != 2 {
		t.Fatalf("the Client got %d v1 answers, want both passed through:\n%s", n, stdout.String())
	}
	if got := stderr.String(); got != "acpsim tap: "+v1TapLine+"\n" {
		t.Fatalf("tap's stderr %q, want the v1 line once", got)
	}
	if log, err := traces.ReadFile(trace); err != nil || log.Header.Observed != traces.ObservedAtTap {
		t.Fatalf("the tap's trace: %v", err)
	}
	judged, _ := acpsimRun(t, "judge", trace)
	if !strings.Contains(judged, v1JudgedAgent) {
		t.Fatalf("judge of the tap's trace: want the v1 line:\n%s", judged)
	}
}

// A v2 Agent behind the tap: nothing said on stderr.
func TestTapSaysNothingOfAV2Agent(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "tap.ndjson")
	cmd := exec.Command(acpsim(t), "tap", "--trace", trace, "--", os.Args[0], "agent")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"capabilities":{},"info":{"name":"c","version":"1"}}}` + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tap: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"protocolVersion":2`) || strings.Contains(stderr.String(), "v1") {
		t.Fatalf("stdout %q, stderr %q: want the v2 answer and no v1 line", stdout.String(), stderr.String())
	}
}
