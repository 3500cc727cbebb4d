package suite_test

import (
	"maps"
	"slices"
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

// model runs a case against one installation of a model Agent in process,
// deterministically: the same case and Agent give the same frames. Remote
// (stdio false), every connection feeds one state machine, as a remote
// Agent's server does; stdio, each connection is its own process (its own
// machine) on the shared store, as acpsim conform starts them. A kill
// crashes the store and ends every process; waiting fires the timers in
// virtual-time order.
type model struct {
	name   string
	knobs  agent.Knobs
	stdio  bool
	disk   *store.Disk
	remote agent.Machine            // the one process, remote
	procs  map[string]agent.Machine // by connection, stdio
	ids    int
	now    time.Duration
	timers []timer
	e      *suite.Exec
}

type timer struct {
	at    time.Duration
	id    int
	m     agent.Machine
	batch *store.Batch // a deferred write (an adapter's runtime): outlives a kill
}

func (md *model) start() agent.Machine {
	f, err := agent.Lookup(md.name)
	if err != nil {
		panic(err)
	}
	return f(md.knobs, agent.ProcessStore(md.knobs, md.disk), agent.Env{
		Name:   "a",
		Choose: sim.Healthy{}.Choose,
		NewID:  func() string { md.ids++; return "m" + strconv.Itoa(md.ids) },
	})
}

// machine is the process serving conn.
func (md *model) machine(conn string) agent.Machine {
	if !md.stdio {
		return md.remote
	}
	return md.procs[conn]
}

// stop drops a process's timers; its deferred writes stay due.
func (md *model) stop(m agent.Machine) {
	kept := md.timers[:0]
	for _, t := range md.timers {
		if t.batch != nil || m != nil && t.m != m {
			kept = append(kept, t)
		}
	}
	md.timers = kept
}

func (md *model) apply(m agent.Machine, outs []agent.Output) {
	for _, o := range outs {
		switch o.Kind {
		case agent.OutSend:
			md.e.Received(o.Conn, o.Frame)
		case agent.OutSync:
			md.disk.Sync()
		case agent.OutTimer:
			md.timers = append(md.timers, timer{at: md.now + o.After, id: o.ID, m: m})
		case agent.OutDeferred:
			b := o.Batch
			md.timers = append(md.timers, timer{at: md.now + o.After, batch: b})
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
	md.apply(t.m, t.m.Timer(t.id))
	return true
}

// runModel runs c against a fresh installation of the named model Agent,
// reached over stdio or remotely.
func runModel(c *suite.Case, name string, knobs agent.Knobs, stdio bool) suite.Verdict {
	return runModelExec(suite.NewExec(c), name, knobs, stdio)
}

// runModelExec runs e (which may skip parts of its case) against the model.
func runModelExec(e *suite.Exec, name string, knobs agent.Knobs, stdio bool) suite.Verdict {
	c := e.Case()
	md := &model{name: name, knobs: knobs, stdio: stdio, disk: store.NewDisk(), procs: map[string]agent.Machine{}, e: e}
	if !stdio {
		md.remote = md.start()
	}
	for steps := 0; steps < 100000; steps++ {
		a := md.e.Next()
		switch a.Kind {
		case suite.ActConnect:
			if stdio {
				md.procs[a.Conn] = md.start()
			}
			m := md.machine(a.Conn)
			md.apply(m, m.Connect(a.Conn))
		case suite.ActSend:
			if m := md.machine(a.Conn); m != nil {
				md.apply(m, m.Receive(a.Conn, a.Frame))
			}
		case suite.ActCut:
			if m := md.machine(a.Conn); m != nil {
				md.apply(m, m.Disconnect(a.Conn))
				if stdio { // the process reads end of file and exits
					md.stop(m)
					delete(md.procs, a.Conn)
					md.e.Ended(a.Conn, "the Agent process exited")
				}
			}
		case suite.ActKill:
			md.disk.Crash(false)
			md.stop(nil)
			if stdio {
				for _, conn := range slices.Sorted(maps.Keys(md.procs)) { // in a fixed order: the frames log them
					md.e.Ended(conn, "the Agent process was killed")
				}
				md.procs = map[string]agent.Machine{}
			} else {
				md.remote = md.start()
			}
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

// transports are the two ways acpsim conform reaches an Agent.
var transports = []struct {
	name  string
	stdio bool
}{{"stdio", true}, {"remote", false}}

func cases(t *testing.T) []*suite.Case {
	t.Helper()
	cs, err := suite.Cases()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestTheReferenceAgentPassesEveryCaseThatApplies(t *testing.T) {
	for _, tr := range transports {
		for _, c := range cases(t) {
			v := runModel(c, agent.Reference, agent.DefaultKnobs(), tr.stdio)
			if a := runModel(c, agent.Adapter, agent.DefaultKnobs(), tr.stdio); a.Status != v.Status {
				t.Errorf("%s: %s: the adapter is %s (%s), the reference %s: the adapter is a legal design", tr.name, c.ID, a.Status, a.Why, v.Status)
			}
			if v.Status == suite.Fail {
				t.Errorf("%s: %s (%s): fail: %s\n%s", tr.name, c.ID, c.Title, v.Why, frames(v))
			}
			// The reference holds busy prompts: only the case about prompts
			// inserted during active work does not apply to it.
			if (v.Status == suite.NA) != (c.ID == "rfd-7") {
				t.Errorf("%s: %s: %s (%s), want n/a only for rfd-7", tr.name, c.ID, v.Status, v.Why)
			}
		}
	}
}

// Keeping sessions in memory is legal (ACP v2 notes, T3b): the cases that
// need a session to outlive its process do not apply, and none fails.
func TestSessionsInMemoryMakeTheRestartCasesNotApply(t *testing.T) {
	k := agent.DefaultKnobs()
	k.SessionsIn = agent.SessionsMemory
	for _, tr := range transports {
		var na []string
		for _, c := range cases(t) {
			v := runModel(c, agent.Reference, k, tr.stdio)
			if v.Status == suite.Fail {
				t.Errorf("%s: sessions in memory fail %s: %s\n%s", tr.name, c.ID, v.Why, frames(v))
			}
			if v.Status == suite.NA && c.ID != "rfd-7" {
				na = append(na, c.ID)
				if !strings.Contains(v.Why, "keeps sessions with its process") && !strings.Contains(v.Why, "does not outlive its connection") {
					t.Errorf("%s: %s is n/a for another reason: %s", tr.name, c.ID, v.Why)
				}
			}
		}
		// Remote, one process serves every connection: only a kill ends
		// its sessions.
		if !slices.Contains(na, "rfd-3") || tr.stdio != slices.Contains(na, "session-2") {
			t.Errorf("%s: n/a for %v, want rfd-3 among them, and session-2 over stdio only", tr.name, na)
		}
		t.Logf("%s: n/a %s", tr.name, strings.Join(na, " "))
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
			v := runModel(c, agent.Reference, k, true)
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

// Over stdio, as acpsim conform runs an executable, every mutant fails a
// case. Remote, one process serves every connection, so a mutant whose
// processes clobber each other's writes (lost-writes) has no second
// process to clobber: it alone may pass there.
func TestEveryMutantFailsACaseNamingItsRule(t *testing.T) {
	for _, tr := range transports {
		for _, name := range mutants.Names() {
			var failed []string
			for _, c := range cases(t) {
				if v := runModel(c, name, agent.DefaultKnobs(), tr.stdio); v.Status == suite.Fail {
					failed = append(failed, c.ID)
					if c.Quote == "" || v.Why == "" || len(v.Frames) == 0 {
						t.Errorf("%s: %s fails %s without its sentence, explanation and frames", tr.name, name, c.ID)
					}
				}
			}
			if len(failed) == 0 && (tr.stdio || name != "lost-writes") {
				t.Errorf("%s: mutant %s passes every case", tr.name, name)
			}
			t.Logf("%s: %-20s fails %s", tr.name, name, strings.Join(failed, " "))
		}
	}
}

// The cases a mutant is built to break name it: the session cases catch
// an Agent whose resume errors and one whose processes lose each other's
// sessions.
func TestTheSessionCasesCatchTheirMutants(t *testing.T) {
	want := map[string][]string{
		"resume-always-errors": {"session-1", "-32603"},
		"lost-writes":          {"session-2", "resumed1 (session/resume"},
	}
	for name, w := range want {
		for _, c := range cases(t) {
			if c.ID != w[0] {
				continue
			}
			v := runModel(c, name, agent.DefaultKnobs(), true)
			if v.Status != suite.Fail || !strings.Contains(v.Why, w[1]) {
				t.Errorf("%s on %s: %s (%s), want a failure naming %q", name, c.ID, v.Status, v.Why, w[1])
			}
		}
	}
}

func TestKeysInMemoryFailTheRestartCase(t *testing.T) {
	k := agent.DefaultKnobs()
	k.Keys = agent.KeysMemory
	for _, tr := range transports {
		for _, c := range cases(t) {
			v := runModel(c, agent.Reference, k, tr.stdio)
			if c.ID == "rfd-3" && (v.Status != suite.Fail || !strings.Contains(v.Why, "must get the original's messageId")) {
				t.Errorf("%s: rfd-3 with keys in memory: %s (%s), want a failure: the retry after the restart inserted again", tr.name, v.Status, v.Why)
			}
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
