package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/properties/hop"
)

// @thinkwell/conductor 0.5.7 (npm), the published conductor of ACP proxy
// chains, run as a process (interop/conductor-via.mjs) between acpsim's
// Clients and the reference Agent: the key reaches the Agent unchanged and
// every submission is inserted once, but the conductor renumbers the
// requests it forwards and forwards $/cancel_request with the Client's id,
// so the user's cancel names nothing the Agent was sent. The hop recorded
// between the conductor and the Agent shows it.
func TestCheckViaTheConductorFindsItsUnmappedCancel(t *testing.T) {
	requireNode(t)
	requireInteropPackage(t, "@thinkwell/conductor")
	via := "node " + filepath.Join(interopDir, "conductor-via.mjs")
	out, code := checkRun(t, "--seeds", "4", "--via", via, "--junit", "check.xml", "--", "self", "agent")
	if code != exitOK || !strings.Contains(out, "proxy→Agent hop: recorded in 4 of 4 seeds") || !strings.Contains(out, "PASS: every submission") {
		t.Fatalf("exit %d, want a PASS with the hop recorded in every seed:\n%s", code, out)
	}
	if !strings.Contains(out, "(the proxy: "+hop.UnmappedCancel) || !strings.Contains(out, hop.Rule(hop.UnmappedCancel)) {
		t.Fatalf("want the seeds where a user cancelled to name %s, with its rule:\n%s", hop.UnmappedCancel, out)
	}
	// Nor the JUnit file a CI reads: the seeds' properties name it.
	xml, err := os.ReadFile("check.xml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(xml), `name="proxyFindings" value="`+hop.UnmappedCancel+`"`) || !strings.Contains(string(xml), `name="proxy: `+hop.UnmappedCancel+`"`) {
		t.Fatalf("the JUnit file must name the proxy's %s on its seeds:\n%s", hop.UnmappedCancel, xml)
	}
	// The last line alone must not read as a clean path.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS") || !strings.Contains(last, "beside the verdict, the proxy: "+hop.UnmappedCancel+" in ") {
		t.Fatalf("the PASS line must name the proxy's %s beside the verdict: %q", hop.UnmappedCancel, last)
	}
}
