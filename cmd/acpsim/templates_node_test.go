package main

// The Node template Agent, interop/template-agent.mjs, is the Python one
// (templates_test.go) ported to Node's standard library; docs/agent-wire.md
// offers both. These tests hold it to the same promise: `acpsim conform`
// with 0 failed, every baseline passed and the same n/a cases, and
// `acpsim check` passing every seed. It needs node on PATH (CI has it) but
// no npm package: without node the test fails, it never skips.

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// requireNodeOnPath fails the test unless node is on PATH. Unlike
// requireNode it does not ask for interop/node_modules: the template uses
// Node's standard library alone.
func requireNodeOnPath(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the Node template Agent test runs interop/template-agent.mjs (Node.js 18+, standard library only)")
	}
}

func TestTemplateNodeAgentPassesConform(t *testing.T) {
	requireNodeOnPath(t)
	t.Parallel()
	out, code := conformProcess(t, "--", "node", filepath.Join(interopDir, "template-agent.mjs"))
	if code != 0 {
		t.Fatalf("acpsim conform exit %d, want 0:\n%s", code, out)
	}
	if !strings.Contains(out, " 0 failed, ") || !strings.Contains(out, "baselines: 6 of 6 passed") {
		t.Fatalf("want 0 failed and every baseline passed:\n%s", out)
	}
	var na []string
	for id, verdict := range caseVerdicts(out) {
		switch verdict {
		case "FAIL", "BLOCKED":
			t.Errorf("%s: %s", id, verdict)
		case "N/A":
			na = append(na, id)
		}
	}
	sort.Strings(na)
	if strings.Join(na, " ") != strings.Join(templateAgentNA, " ") {
		t.Errorf("n/a cases %v, want %v, as for the Python template (sessions in memory, prompts held):\n%s", na, templateAgentNA, out)
	}
}

func TestTemplateNodeAgentPassesCheck(t *testing.T) {
	requireNodeOnPath(t)
	bin := acpsim(t)
	out, code := execIn(t, t.TempDir(), bin, "check", "--seeds", "4", "--start-timeout", "30s", "--",
		"node", filepath.Join(interopDir, "template-agent.mjs"))
	if code != 0 {
		t.Fatalf("acpsim check exit %d, want 0:\n%s", code, out)
	}
	if !regexp.MustCompile(`(?m)^4 seed\(s\) in .*: 4 passed, 0 failed, 0 broken Agent, 0 inconclusive$`).MatchString(out) {
		t.Fatalf("want every seed passed:\n%s", out)
	}
}
