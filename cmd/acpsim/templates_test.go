package main

// The Agent templates in interop/ are what docs/agent-wire.md tells a user
// to copy; these tests keep the promise that they pass `acpsim conform` and
// `acpsim check` as shipped, so the guide cannot drift from the wire. The
// Python template needs python3 on PATH, the Node one node (CI has both):
// without them the tests fail, they never skip.

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// requirePython fails the test unless python3 is on PATH.
func requirePython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is not on PATH: the template tests run interop/template-agent.py and interop/template-client-adapter.py (Python 3.8+, standard library only)")
	}
}

// templateAgentNA are the cases that do not apply to an Agent keeping its
// sessions in memory and holding prompts while a turn runs: the sessions
// end with the process (rfd-2, rfd-3, rfd-5, session-2) and no prompt is
// inserted during work (rfd-7). Any other n/a means the template lost a
// method conform needs.
var templateAgentNA = []string{"rfd-2", "rfd-3", "rfd-5", "rfd-7", "session-2"}

// templateAgents are the Agent templates docs/agent-wire.md offers, with
// the interpreter each needs on PATH.
var templateAgents = []struct{ interpreter, file string }{
	{"python3", "template-agent.py"},
	{"node", "template-agent.mjs"},
}

// requireInterpreter fails the test unless name is on PATH: python3, or
// node (the Node template uses Node's standard library alone, no npm
// package).
func requireInterpreter(t *testing.T, name string) {
	t.Helper()
	if name == "python3" {
		requirePython(t)
		return
	}
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is not on PATH: the template Agent tests run interop/template-agent.mjs (Node.js 18+, standard library only)", name)
	}
}

func TestTemplateAgentsPassConform(t *testing.T) {
	for _, tpl := range templateAgents {
		t.Run(tpl.file, func(t *testing.T) {
			requireInterpreter(t, tpl.interpreter)
			t.Parallel()
			out, code := conformProcess(t, "--", tpl.interpreter, filepath.Join(interopDir, tpl.file))
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
				t.Errorf("n/a cases %v, want %v (sessions in memory, prompts held):\n%s", na, templateAgentNA, out)
			}
		})
	}
}

func TestTemplateAgentsPassCheck(t *testing.T) {
	bin := acpsim(t)
	for _, tpl := range templateAgents {
		t.Run(tpl.file, func(t *testing.T) {
			requireInterpreter(t, tpl.interpreter)
			out, code := execIn(t, t.TempDir(), bin, "check", "--seeds", "4", "--start-timeout", "30s", "--",
				tpl.interpreter, filepath.Join(interopDir, tpl.file))
			if code != 0 {
				t.Fatalf("acpsim check exit %d, want 0:\n%s", code, out)
			}
			if !regexp.MustCompile(`(?m)^4 seed\(s\) in .*: 4 passed, 0 failed, 0 broken Agent, 0 inconclusive$`).MatchString(out) {
				t.Fatalf("want every seed passed:\n%s", out)
			}
		})
	}
}
