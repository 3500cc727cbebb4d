package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/sim/classes"
)

func TestClassesPrintsBothPromptRows(t *testing.T) {
	code, out, stderr := run(t, "classes")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var prompt []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "session/prompt ") {
			prompt = append(prompt, line)
		}
	}
	if len(prompt) != 2 {
		t.Fatalf("%d session/prompt rows, want 2:\n%s", len(prompt), out)
	}
	joined := strings.Join(prompt, "\n")
	for _, want := range []string{"(keyed)", "(no key)", " keyed ", " duplicating ", "RFD"} {
		if !strings.Contains(joined, want) {
			t.Errorf("session/prompt rows lack %q:\n%s", want, joined)
		}
	}
	for _, want := range []string{"method", "direction", "class", "source", "reason", "$/cancel_request", "session/update", "notification", "agent→client request"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

func TestClassesVerifyPasses(t *testing.T) {
	code, out, stderr := run(t, "classes", "--verify")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q, output:\n%s", code, stderr, out)
	}
	for _, want := range []string{"verified:", "not simulated:", "session/prompt", "PASS:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "FAILED:") {
		t.Errorf("a row failed:\n%s", out)
	}
}

func TestClassesHelpAndBadUsage(t *testing.T) {
	if _, out, _ := run(t, "--help"); !strings.Contains(out, "classes") {
		t.Errorf("--help does not name classes:\n%s", out)
	}
	if code, _, stderr := run(t, "classes", "extra"); code != exitUsage || !strings.HasPrefix(stderr, "acpsim: ") {
		t.Errorf("classes extra: exit %d, stderr %q", code, stderr)
	}
}

// A failed row is printed as FAILED and counted, which makes --verify exit 1.
func TestClassesVerifyReportsAFailure(t *testing.T) {
	var out bytes.Buffer
	failed := writeVerify(&out, []classes.Result{
		{Method: "session/new", Class: "as-is", Detail: "not converged: 2 sessions listed instead of 1"},
		{Method: "session/update", Class: "never", NotSimulated: "a notification"},
		{Method: "session/list", Class: "as-is", Verified: true, Detail: "converged"},
	})
	if failed != 1 || !strings.Contains(out.String(), "FAILED:        session/new") || !strings.Contains(out.String(), "FAIL: 1 of 2") {
		t.Fatalf("failed=%d, output:\n%s", failed, out.String())
	}
}
