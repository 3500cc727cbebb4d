package simtest_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/sim/simtest"
)

// recorder is a simtest.TB that keeps what Check said.
type recorder struct {
	name   string
	failed string
	logs   []string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	if r.failed == "" {
		r.failed = fmt.Sprintf(format, args...)
	}
}

// twoStepStore is a design written from scratch for this test: the key
// binding of a prompt is written in a second step, with the next batch the
// process commits, after its message. A process that dies in between keeps
// the message and loses the binding, so the retry after the restart is
// taken for a new submission: the message is inserted twice.
type twoStepStore struct {
	store.Store
	pending []store.Binding // in process memory until the next commit
}

func (s *twoStepStore) Commit(b store.Batch) error {
	if len(s.pending) > 0 {
		if err := s.Store.Commit(store.Batch{Bindings: s.pending}); err != nil {
			return err
		}
		s.pending = nil
	}
	s.pending, b.Bindings = b.Bindings, nil
	return s.Store.Commit(b)
}

func (s *twoStepStore) Binding(session, key string) (store.Binding, bool) {
	for _, b := range s.pending {
		if b.Session == session && b.Key == key {
			return b, true
		}
	}
	return s.Store.Binding(session, key)
}

func twoStepAgent(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	reference, err := agent.Lookup(agent.Reference)
	if err != nil {
		panic(err)
	}
	return reference(k, func() store.Store { return &twoStepStore{Store: open()} }, env)
}

// The design is caught: the test fails with the anomaly's prose, a trace
// and a replay command, and the replay command, run, fails the same way.
func TestADesignWithTheBindingWrittenAfterTheMessageIsCaught(t *testing.T) {
	if os.Getenv("SIMTEST_REPLAY_CHILD") != "" { // the printed command, run below
		r := &recorder{name: t.Name()}
		simtest.Check(r, simtest.Options{Agent: twoStepAgent, Name: "two-step", Links: []string{"stdio"}})
		fmt.Println("REPLAYED:", r.failed)
		return
	}
	t.Setenv(simtest.ReplayEnv, "")
	dir := t.TempDir()
	r := &recorder{name: t.Name()}
	simtest.Check(r, simtest.Options{Agent: twoStepAgent, Name: "two-step", Seeds: 40, Links: []string{"stdio"}, Dir: dir})
	if !strings.Contains(r.failed, "duplicate") || !strings.Contains(r.failed, "was inserted twice") {
		t.Fatalf("Check did not report the duplicate in prose:\n%s", r.failed)
	}
	m := regexp.MustCompile(`(?m)^replay: (cd (\S+) && ACPSIM_REPLAY=(\S+) go test -run '\^(\w+)\$' \.)$`).FindStringSubmatch(r.failed)
	if m == nil {
		t.Fatalf("no replay command in:\n%s", r.failed)
	}
	if _, err := os.Stat(m[3]); err != nil || m[4] != t.Name() {
		t.Fatalf("replay names trace %s (%v) and test %s", m[3], err, m[4])
	}
	// The replay, in process: the same anomaly from the trace alone.
	t.Setenv(simtest.ReplayEnv, m[3])
	again := &recorder{name: t.Name()}
	simtest.Check(again, simtest.Options{Agent: twoStepAgent, Name: "two-step", Seeds: 40, Links: []string{"stdio"}, Dir: dir})
	if !strings.Contains(again.failed, "replayed") || !strings.Contains(again.failed, "duplicate") {
		t.Fatalf("the replay did not fail the same way:\n%s", again.failed)
	}
	// The replay command as printed, in a go test of its own.
	cmd := exec.Command("sh", "-c", m[1]+" -v -count=1")
	cmd.Env = append(os.Environ(), "SIMTEST_REPLAY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "REPLAYED: simtest: replayed") || !strings.Contains(string(out), "duplicate") {
		t.Fatalf("the printed replay command (%v) did not reproduce:\n%s", err, out)
	}
}

// The reference design passes; a known-bad model Agent named as a design
// is caught too.
func TestTheReferencePassesAndAKnownBadDesignFails(t *testing.T) {
	t.Setenv(simtest.ReplayEnv, "")
	r := &recorder{name: t.Name()}
	simtest.Check(r, simtest.Options{Seeds: 10, Dir: t.TempDir()})
	if r.failed != "" || len(r.logs) == 0 || !strings.Contains(r.logs[0], "10 seeds on each of stdio, http, ws") {
		t.Fatalf("the reference: failed %q, logs %q", r.failed, r.logs)
	}
	bad := &recorder{name: t.Name()}
	simtest.Check(bad, simtest.Options{Design: "forgetful=agent:memory-keys", Seeds: 40, Links: []string{"http"}, Dir: t.TempDir()})
	if !strings.Contains(bad.failed, "forgetful") && !strings.Contains(bad.failed, "duplicate") {
		t.Fatalf("memory-keys not caught: %q", bad.failed)
	}
}

func TestBadOptionsFailWithWhatWasExpected(t *testing.T) {
	t.Setenv(simtest.ReplayEnv, "")
	for _, c := range []struct {
		o    simtest.Options
		want string
	}{
		{simtest.Options{Policy: "optimistic"}, `unknown policy "optimistic"`},
		{simtest.Options{Design: "nodes-3", Links: []string{"stdio"}}, "runs on http, ws only"},
		{simtest.Options{Agent: twoStepAgent, Design: "adapter"}, "names the model Agent"},
	} {
		r := &recorder{name: t.Name()}
		simtest.Check(r, c.o)
		if !strings.Contains(r.failed, c.want) {
			t.Errorf("Check(%+v): %q, want %q", c.o, r.failed, c.want)
		}
	}
}
