package suite_test

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/properties/conform/suite"
)

func caseByID(t *testing.T, id string) *suite.Case {
	t.Helper()
	for _, c := range cases(t) {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no case %s", id)
	return nil
}

func TestBaselinesRunFirstAndEveryOtherCaseNamesItsOwn(t *testing.T) {
	cs := cases(t)
	for i, id := range []string{"baseline-init", "baseline-new", "baseline-turn", "baseline-resume", "baseline-list", "baseline-close"} {
		if cs[i].ID != id {
			t.Errorf("case %d is %s, want %s", i+1, cs[i].ID, id)
		}
	}
	for _, c := range cs {
		if !c.IsBaseline() && len(c.Requires) == 0 {
			t.Errorf("%s (%s) names no baseline it needs", c.ID, c.File)
		}
	}
}

// A failed baseline blocks a case that wholly needs it, and leaves
// unjudged only the part of a case that needs it for that part.
func TestAFailedBaselineBlocksOrLeavesPartUnjudged(t *testing.T) {
	resume := suite.Verdict{Case: caseByID(t, "baseline-resume"), Status: suite.Fail, Why: "transcript was answered error -32601"}
	failed := map[string]suite.Verdict{"baseline-resume": resume}
	blocked, _ := suite.Plan(caseByID(t, "rfd-2"), failed)
	if blocked == nil || blocked.Status != suite.Blocked || blocked.BlockedBy != "baseline-resume" ||
		blocked.Why != "blocked by baseline-resume: transcript was answered error -32601" {
		t.Fatalf("rfd-2 with resume failed: %+v, want blocked by baseline-resume", blocked)
	}
	// baseline-close needs resume: a case on close is blocked by resume, the root.
	closeV, _ := suite.Plan(caseByID(t, "baseline-close"), failed)
	failed["baseline-close"] = *closeV
	if b, _ := suite.Plan(caseByID(t, "close-1"), failed); b == nil || b.BlockedBy != "baseline-resume" {
		t.Errorf("close-1: %+v, want blocked by baseline-resume", b)
	}
	c := caseByID(t, "key-1")
	b, skip := suite.Plan(c, failed)
	if b != nil || skip["transcript"].By != "baseline-resume" {
		t.Fatalf("key-1 is blocked (%v) or skips %v: want only its transcript skipped", b, skip)
	}
	e := suite.NewExec(c)
	e.Skip(skip)
	v := runModelExec(e, agent.Reference, agent.DefaultKnobs(), true)
	if v.Status != suite.Pass || len(v.NotJudged) != 1 || !strings.Contains(v.NotJudged[0], "needs baseline-resume") {
		t.Errorf("key-1 without its transcript: %s %q, want pass with the replay not judged", v.Status, v.NotJudged)
	}
	for _, f := range v.Log {
		if strings.Contains(string(f.Bytes), `"session/resume"`) {
			t.Errorf("key-1 sent a resume its baseline showed refused: %s", f)
		}
	}
	// Every baseline passed: nothing blocked, nothing skipped.
	if b, skip := suite.Plan(c, map[string]suite.Verdict{"baseline-resume": {Case: resume.Case, Status: suite.Pass}}); b != nil || skip != nil {
		t.Errorf("key-1 with every baseline passed: blocked %v, skip %v", b, skip)
	}
}

// The key diagnosis names the cause only when every keyed retry got a new
// messageId: the ignore-key mutant, not the reference.
func TestKeyDiagnosis(t *testing.T) {
	var ref, keyless []suite.Verdict
	for _, c := range cases(t) {
		ref = append(ref, runModel(c, agent.Reference, agent.DefaultKnobs(), true))
		keyless = append(keyless, runModel(c, "ignore-key", agent.DefaultKnobs(), true))
	}
	if d := suite.KeyDiagnosis(ref); d != "" {
		t.Errorf("the reference gets a key diagnosis: %s", d)
	}
	if d := suite.KeyDiagnosis(keyless); !strings.HasSuffix(d, "the Agent does not act on idempotencyKey") {
		t.Errorf("the ignore-key mutant gets no key diagnosis: %q", d)
	}
}

// A case the Agent already showed does not apply stops there: rfd-3 with
// sessions in memory sends nothing after the resume answered -32002.
func TestACaseStopsOnceItDoesNotApply(t *testing.T) {
	k := agent.DefaultKnobs()
	k.SessionsIn = agent.SessionsMemory
	v := runModel(caseByID(t, "rfd-3"), agent.Reference, k, true)
	if v.Status != suite.NA {
		t.Fatalf("rfd-3 with sessions in memory: %s (%s), want n/a", v.Status, v.Why)
	}
	last := v.Log[len(v.Log)-1]
	if last.Out || !strings.Contains(string(last.Bytes), "-32002") {
		t.Errorf("rfd-3 went on after the resume answered -32002: its last frame is %s", last)
	}
}
