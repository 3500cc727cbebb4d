package suite_test

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/properties/conform/suite"
	"github.com/acpsim/acpsim/traces"
)

// runSuite runs every case against a model Agent and judges the run under
// a session contract.
func runSuite(t *testing.T, name string, knobs agent.Knobs, stdio bool, contract string) ([]suite.Verdict, suite.Contract) {
	t.Helper()
	var vs []suite.Verdict
	for _, c := range cases(t) {
		vs = append(vs, runModel(c, name, knobs, stdio))
	}
	return suite.HoldTo(vs, contract)
}

func byID(vs []suite.Verdict) map[string]suite.Verdict {
	m := map[string]suite.Verdict{}
	for _, v := range vs {
		m[v.Case.ID] = v
	}
	return m
}

// An Agent that keeps sessions in memory is legal under auto and process
// (the restart cases do not apply) and fails each of them under durable,
// citing the sentence on keys across restarts rather than the case's own.
func TestTheSessionContractDecidesTheRestartCases(t *testing.T) {
	memory := agent.DefaultKnobs()
	memory.SessionsIn = agent.SessionsMemory
	for _, tr := range transports {
		auto, c := runSuite(t, agent.Reference, memory, tr.stdio, traces.SessionsAuto)
		if c.Sessions != traces.SessionsProcess || !strings.Contains(c.Why, "no session survived an Agent restart") {
			t.Errorf("%s: memory sessions under auto: contract %+v, want process", tr.name, c)
		}
		durable, c := runSuite(t, agent.Reference, memory, tr.stdio, traces.SessionsDurable)
		if c.Sessions != traces.SessionsDurable {
			t.Errorf("%s: contract %+v, want durable as asked", tr.name, c)
		}
		process, _ := runSuite(t, agent.Reference, memory, tr.stdio, traces.SessionsProcess)
		d, p := byID(durable), byID(process)
		failed := 0
		for _, v := range auto {
			id := v.Case.ID
			if v.Status == suite.Fail || p[id].Status != v.Status {
				t.Errorf("%s: %s is %s under auto and %s under process, want the same and no failure", tr.name, id, v.Status, p[id].Status)
			}
			gone := v.Status == suite.NA && v.Sessions == suite.Vanished
			switch {
			case gone && d[id].Status != suite.Fail:
				t.Errorf("%s: %s found the session gone but is %s under durable", tr.name, id, d[id].Status)
			case gone:
				failed++
				if src, q := d[id].Rule(); !strings.Contains(q, "across connections and Agent restarts") || !strings.Contains(d[id].Why, "-32002") {
					t.Errorf("%s: %s under durable cites %s %q: %s", tr.name, id, src, q, d[id].Why)
				}
			case d[id].Status != v.Status:
				t.Errorf("%s: %s is %s under durable, %s under auto, though its session was not gone", tr.name, id, d[id].Status, v.Status)
			}
		}
		if failed == 0 {
			t.Errorf("%s: no case found the session gone", tr.name)
		}
	}
}

// The reference stores sessions: auto decides durable from the restart
// cases, and every case that applies passes.
func TestAutoIsDurableWhenASessionSurvivesARestart(t *testing.T) {
	vs, c := runSuite(t, agent.Reference, agent.DefaultKnobs(), true, "")
	if c.Sessions != traces.SessionsDurable || !strings.Contains(c.Why, "rfd-3") {
		t.Errorf("contract %+v, want durable, shown by rfd-3", c)
	}
	for _, v := range vs {
		if v.Status == suite.Fail {
			t.Errorf("%s fails: %s", v.Case.ID, v.Why)
		}
	}
}

// Auto judges the run as a whole: once one case shows sessions surviving a
// restart, a case whose session was gone fails, however it was reached.
func TestAutoHoldsAStoringAgentToEverySession(t *testing.T) {
	cs := cases(t)
	vs := []suite.Verdict{
		{Case: cs[0], Status: suite.Pass, Sessions: suite.Survived},
		{Case: cs[1], Status: suite.NA, Why: "gone", Sessions: suite.Vanished},
		{Case: cs[2], Status: suite.NA, Why: "does not hold prompts"},
	}
	out, c := suite.HoldTo(vs, traces.SessionsAuto)
	if c.Sessions != traces.SessionsDurable || out[1].Status != suite.Fail || out[2].Status != suite.NA || out[0].Status != suite.Pass {
		t.Errorf("contract %+v, verdicts %s %s %s; want durable, pass fail n/a", c, out[0].Status, out[1].Status, out[2].Status)
	}
	if vs[1].Status != suite.NA {
		t.Error("HoldTo changed the verdicts it was handed")
	}
	vs[0].Sessions = suite.Unseen
	if out, c := suite.HoldTo(vs, traces.SessionsAuto); c.Sessions != traces.SessionsProcess || out[1].Status != suite.NA {
		t.Errorf("no survivor: contract %+v, %s; want process and n/a", c, out[1].Status)
	}
}
