package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkClientRun runs acpsim check-client with the adapter interop/NAME
// (node; "NAME ARG..." gives it arguments) in a fresh directory, so
// acpsim-failures/ lands there.
func checkClientRun(t *testing.T, adapter string, args ...string) (string, int) {
	t.Helper()
	requireNode(t)
	acpsim(t) // the test binary plays acpsim for the tap and the Agent
	t.Chdir(t.TempDir())
	name, adapterArgs, _ := strings.Cut(adapter, " ")
	args = append(append([]string{"check-client"}, args...), "--", "node", filepath.Join(interopDir, name))
	args = append(args, strings.Fields(adapterArgs)...)
	return acpsimRun(t, args...)
}

// The keyed Client on the official SDK keeps its key with the pending input
// and resends it after every kill and restart: inserted once, told once.
func TestCheckClientPassesTheKeyedSDKClient(t *testing.T) {
	out, code := checkClientRun(t, "keyed-client-adapter.mjs", "--seeds", "4", "--first-seed", "2", "--fault-rates", "kill=0.4,client-restart=0.3")
	if code != 0 || !strings.Contains(out, "PASS: 4 seeds") {
		t.Fatalf("exit %d, want 0 and PASS:\n%s", code, out)
	}
	if n := strings.Count(out, "0 kills, 0 cuts, 0 client restarts"); n > 1 {
		t.Fatalf("%d of 4 seeds had no fault, so little was checked:\n%s", n, out)
	}
}

// The SDK as shipped sends no key: its app's resend after the Agent died
// inserts the message again, and acpsim says so, with the rule.
func TestCheckClientReportsTheSDKClientsDuplicates(t *testing.T) {
	out, code := checkClientRun(t, "sdk-client-adapter.mjs", "--seeds", "3", "--first-seed", "2", "--fault-rates", "kill=0.5")
	if code != 1 || !strings.Contains(out, "duplicate") || !strings.Contains(out, "unkeyed-resend") {
		t.Fatalf("exit %d, want 1 with duplicate and unkeyed-resend:\n%s", code, out)
	}
	if !strings.Contains(out, "RFD: ") || !strings.Contains(out, "rerun: acpsim check-client --seeds=1 --first-seed=") {
		t.Fatalf("a failure must cite the RFD and print the rerun:\n%s", out)
	}
	kept, _ := filepath.Glob("acpsim-failures/check-client-*-seed-*.ndjson")
	if len(kept) == 0 {
		t.Fatalf("no failing trace kept in acpsim-failures/:\n%s", out)
	}
	// The kept trace is a tap's: judge reads it, and view draws it.
	if jout, jcode := acpsimRun(t, "judge", kept[0]); jcode == 2 || !strings.Contains(jout, "not judged on a tap's trace") {
		t.Fatalf("judge %s: exit %d:\n%s", kept[0], jcode, jout)
	}
	html := filepath.Join(t.TempDir(), "v.html")
	if vout, vcode := acpsimRun(t, "view", kept[0], "-o", html); vcode != 0 {
		t.Fatalf("view: exit %d:\n%s", vcode, vout)
	}
}

// A Client that makes a new key for every attempt is named by the rule it
// breaks: the same key on every attempt.
func TestCheckClientNamesANewKeyPerAttempt(t *testing.T) {
	out, code := checkClientRun(t, "fresh-key-client-adapter.mjs", "--seeds", "3", "--first-seed", "2", "--fault-rates", "kill=0.5")
	if code != 1 || !strings.Contains(out, "key-changed") || !strings.Contains(out, "It sends the same key on every attempt") {
		t.Fatalf("exit %d, want 1 with key-changed and its RFD sentence:\n%s", code, out)
	}
}

// Through a keyed Client, an Agent that forgets its keys shows: the tap's
// trace, with faults on, judges as two messageIds for one key.
func TestCheckClientTapTraceShowsADuplicatingAgent(t *testing.T) {
	out, code := checkClientRun(t, "keyed-client-adapter.mjs", "--seeds", "2", "--first-seed", "2", "--fault-rates", "kill=0.5,client-restart=0",
		"--agent-flags", "--agent ignore-key")
	if code != 1 || !strings.Contains(out, "duplicate") {
		t.Fatalf("exit %d, want 1 with duplicate:\n%s", code, out)
	}
	kept, _ := filepath.Glob("acpsim-failures/check-client-*.ndjson")
	if len(kept) == 0 {
		t.Fatal("no failing trace kept")
	}
	if jout, jcode := acpsimRun(t, "judge", kept[0]); jcode != 1 || !strings.Contains(jout, "wrong-id") {
		t.Fatalf("judge of the tap's trace: exit %d, want 1 with wrong-id:\n%s", jcode, jout)
	}
}

func TestCheckClientBrokenAdapterAndBadUsage(t *testing.T) {
	dir := t.TempDir()
	echo := filepath.Join(dir, "echo.sh")
	if err := os.WriteFile(echo, []byte("#!/bin/sh\nwhile read l; do echo \"$l\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, code := acpsimRun(t, "check-client", "--seeds", "1", "--", echo)
	if code != 1 || !strings.Contains(out, "broke its contract") || !strings.Contains(out, `stdout line 1: no "outcome"`) {
		t.Fatalf("an adapter that echoes its input: exit %d, want 1 naming the line:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check-client"}, "no Client adapter"},
		{[]string{"check-client", "--seeds", "0", "--", "x"}, "--seeds 0"},
		{[]string{"check-client", "--fault-rates", "drop=0.1", "--", "x"}, `unknown fault kind "drop"`},
		{[]string{"check-client", "--repeats", "2", "--", "x"}, "--repeats 2"},
		{[]string{"check-client", "--agent-flags", "'open", "--", "x"}, "--agent-flags"},
	} {
		out, code := acpsimRun(t, c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, out)
		}
	}
	out, code = acpsimRun(t, "check-client", "--seeds", "1", "--", "/nonexistent/adapter")
	if code != 2 || !strings.Contains(out, "cannot start the adapter") {
		t.Fatalf("a missing adapter: exit %d:\n%s", code, out)
	}
}
