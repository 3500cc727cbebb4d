package suite_test

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/properties/conform/suite"
	"github.com/acpsim/acpsim/sim"
)

// model runs a case against one installation of a model Agent in process:
// every connection feeds one state machine (as a remote Agent's server
// does), a kill crashes its store and starts it again, and waiting fires
// the Agent's timers in virtual-time order. It is deterministic: the same
// case and Agent give the same frames.
type model struct {
	name   string
	knobs  agent.Knobs
	disk   *store.Disk
	m      agent.Machine
	ids    int
	now    time.Duration
	timers []timer
	e      *suite.Exec
}

type timer struct {
	at    time.Duration
	id    int
	batch *store.Batch // a deferred write (an adapter's runtime): outlives a kill
}

func (md *model) start() {
	f, err := agent.Lookup(md.name)
	if err != nil {
		panic(err)
	}
	kept := md.timers[:0]
	for _, t := range md.timers {
		if t.batch != nil {
			kept = append(kept, t)
		}
	}
	md.timers = kept
	md.m = f(md.knobs, func() store.Store { return md.disk }, agent.Env{
		Name:   "a",
		Choose: sim.Healthy{}.Choose,
		NewID:  func() string { md.ids++; return "m" + strconv.Itoa(md.ids) },
	})
}

func (md *model) apply(outs []agent.Output) {
	for _, o := range outs {
		switch o.Kind {
		case agent.OutSend:
			md.e.Received(o.Conn, o.Frame)
		case agent.OutSync:
			md.disk.Sync()
		case agent.OutTimer:
			md.timers = append(md.timers, timer{at: md.now + o.After, id: o.ID})
		case agent.OutDeferred:
			b := o.Batch
			md.timers = append(md.timers, timer{at: md.now + o.After, batch: &b})
		}
	}
}

// fire runs the earliest timer; false when none is left.
func (md *model) fire() bool {
	if len(md.timers) == 0 {
		return false
	}
	sort.SliceStable(md.timers, func(i, j int) bool { return md.timers[i].at < md.timers[j].at })
	t := md.timers[0]
	md.timers = md.timers[1:]
	md.now = t.at
	if t.batch != nil {
		if md.disk.Commit(*t.batch) == nil {
			md.disk.Sync()
		}
		return true
	}
	md.apply(md.m.Timer(t.id))
	return true
}

// runModel runs c against a fresh installation of the named model Agent.
func runModel(c *suite.Case, name string, knobs agent.Knobs) suite.Verdict {
	md := &model{name: name, knobs: knobs, disk: store.NewDisk(), e: suite.NewExec(c)}
	md.start()
	for steps := 0; steps < 100000; steps++ {
		a := md.e.Next()
		switch a.Kind {
		case suite.ActConnect:
			md.apply(md.m.Connect(a.Conn))
		case suite.ActSend:
			md.apply(md.m.Receive(a.Conn, a.Frame))
		case suite.ActCut:
			md.apply(md.m.Disconnect(a.Conn))
		case suite.ActKill:
			md.disk.Crash(false)
			md.start()
		case suite.ActWait:
			if !md.fire() {
				md.e.TimedOut()
			}
		case suite.ActDone:
			return md.e.Verdict()
		}
	}
	panic("case " + c.ID + " never ended")
}

func cases(t *testing.T) []*suite.Case {
	t.Helper()
	cs, err := suite.Cases()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestTheReferenceAgentPassesEveryCaseThatApplies(t *testing.T) {
	for _, c := range cases(t) {
		v := runModel(c, agent.Reference, agent.DefaultKnobs())
		if v.Status == suite.Fail {
			t.Errorf("%s (%s): fail: %s\n%s", c.ID, c.Title, v.Why, frames(v))
		}
		// The reference holds busy prompts: only the case about prompts
		// inserted during active work does not apply to it.
		if (v.Status == suite.NA) != (c.ID == "rfd-7") {
			t.Errorf("%s: %s (%s), want n/a only for rfd-7", c.ID, v.Status, v.Why)
		}
	}
}

func TestBusyKnobsDecideWhichHeldCasesApply(t *testing.T) {
	for _, tc := range []struct {
		busy, na, why string
	}{
		{agent.BusyBreakpoint, "rfd-4", "does not hold prompts: it inserted second during active work"},
		{agent.BusyReject, "rfd-4", "does not hold prompts: second (session/prompt, request 4 on c1), sent while the session was running, was answered error"},
	} {
		k := agent.DefaultKnobs()
		k.Busy = tc.busy
		for _, c := range cases(t) {
			v := runModel(c, agent.Reference, k)
			if v.Status == suite.Fail {
				t.Errorf("busy=%s: %s fails: %s", tc.busy, c.ID, v.Why)
			}
			if c.ID == tc.na && (v.Status != suite.NA || !strings.Contains(v.Why, tc.why)) {
				t.Errorf("busy=%s: %s is %s (%s), want n/a because the Agent %s", tc.busy, c.ID, v.Status, v.Why, tc.why)
			}
			if c.ID == "rfd-7" && tc.busy == agent.BusyBreakpoint && v.Status != suite.Pass {
				t.Errorf("busy=breakpoint: rfd-7 is %s (%s), want pass", v.Status, v.Why)
			}
		}
	}
}

func TestEveryMutantFailsACaseNamingItsRule(t *testing.T) {
	for _, name := range mutants.Names() {
		var failed []string
		for _, c := range cases(t) {
			if v := runModel(c, name, agent.DefaultKnobs()); v.Status == suite.Fail {
				failed = append(failed, c.ID)
				if c.Quote == "" || v.Why == "" || len(v.Frames) == 0 {
					t.Errorf("%s fails %s without its sentence, explanation and frames", name, c.ID)
				}
			}
		}
		if len(failed) == 0 {
			t.Errorf("mutant %s passes every case", name)
		}
		t.Logf("%-20s fails %s", name, strings.Join(failed, " "))
	}
}

func TestKeysInMemoryFailTheRestartCase(t *testing.T) {
	k := agent.DefaultKnobs()
	k.Keys = agent.KeysMemory
	for _, c := range cases(t) {
		v := runModel(c, agent.Reference, k)
		if c.ID == "rfd-3" && (v.Status != suite.Fail || !strings.Contains(v.Why, "must get the original's messageId")) {
			t.Errorf("rfd-3 with keys in memory: %s (%s), want a failure: the retry after the restart inserted again", v.Status, v.Why)
		}
	}
}

func frames(v suite.Verdict) string {
	var b strings.Builder
	for _, f := range v.Frames {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}
