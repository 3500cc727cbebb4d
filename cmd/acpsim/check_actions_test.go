package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// By default check switches user action classes per seed: each seed's line
// names its classes, the summary counts them per class, and each seed's
// rerun command states the actions it drew, so that it plays the same
// users again.
func TestCheckActionClassesByDefault(t *testing.T) {
	dir := t.TempDir()
	out, code := checkRun(t, "--seeds", "3", "--trace-dir", dir, "--", "self", "agent")
	if code != 0 || !strings.Contains(out, "· action classes\n") || !strings.Contains(out, "user actions (each seed") {
		t.Fatalf("exit %d, want 0 with action classes:\n%s", code, out)
	}
	want := map[string][2]int{}
	for seed := uint64(1); seed <= 3; seed++ {
		d := users.DrawActionsOn(seed, checkActionBase, checkActionOn)
		names := "none"
		if len(d.On) > 0 {
			names = strings.Join(d.On, ", ")
		}
		if line := fmt.Sprintf("seed %d: pass · actions: %s · ", seed, names); !strings.Contains(out, line) {
			t.Errorf("no line %q:\n%s", line, out)
		}
		for _, c := range d.On {
			want[c] = [2]int{want[c][0] + 1, 0}
		}
		log, err := traces.ReadFile(fmt.Sprintf("%s/check-seed-%d.ndjson", dir, seed))
		if err != nil {
			t.Fatal(err)
		}
		if stated := "--actions=off" + actionArgs(d.Actions); !strings.Contains(log.Header.Command, stated) {
			t.Errorf("seed %d: rerun %q does not state %q", seed, log.Header.Command, stated)
		}
		if seed == 1 {
			rerunPlaysTheSameUsers(t, log)
		}
	}
	for _, c := range users.PresentActionClasses(checkActionBase) {
		if _, ok := want[c]; !ok {
			want[c] = [2]int{}
		}
	}
	if got := actionLines(t, out); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("action lines %v, the draws say %v:\n%s", got, want, out)
	}
}

// rerunPlaysTheSameUsers runs a seed's rerun command again and compares the
// users it played: the same actions and the same submissions.
func rerunPlaysTheSameUsers(t *testing.T, log *traces.Log) {
	t.Helper()
	words := strings.Fields(log.Header.Command)[2:] // after "acpsim check"
	dir := t.TempDir()
	words = append([]string{"--trace-dir", dir}, words...)
	for i, w := range words {
		if strings.HasSuffix(w, "acpsim.test") || w == os.Args[0] {
			words[i] = "self"
		}
	}
	if _, code := checkRun(t, words...); code != 0 {
		t.Fatalf("rerun %v: exit %d", words, code)
	}
	again, err := traces.ReadFile(fmt.Sprintf("%s/check-seed-%d.ndjson", dir, log.Header.Seed))
	if err != nil {
		t.Fatal(err)
	}
	if again.Header.Actions != log.Header.Actions || !slices.Equal(submissions(again), submissions(log)) {
		t.Fatalf("rerun played actions %q, submissions %v; the seed %q, %v", again.Header.Actions, submissions(again), log.Header.Actions, submissions(log))
	}
}

func submissions(log *traces.Log) []string {
	var out []string
	for _, e := range log.Events {
		if e.Kind == traces.KindSubmit {
			out = append(out, e.Sub+" "+e.Text)
		}
	}
	slices.Sort(out)
	return out
}

// --actions=off is check as before action classes: the count flags as
// given (none by default), no action lines.
func TestCheckActionsOff(t *testing.T) {
	dir := t.TempDir()
	out, code := checkRun(t, "--seeds", "2", "--actions=off", "--trace-dir", dir, "--", "self", "agent")
	if code != 0 || strings.Contains(out, "action") {
		t.Fatalf("exit %d, want 0 and no actions:\n%s", code, out)
	}
	for _, log := range readTraces(t, dir) {
		if log.Header.Actions != "" || strings.Contains(log.Header.Command, "--cancels") {
			t.Errorf("seed %d: actions %q, rerun %q", log.Header.Seed, log.Header.Actions, log.Header.Command)
		}
	}
}

// With default flags check forks, so a real Agent that forgets the parent's
// key bindings on a fork is caught. Real time makes which seeds catch it
// vary: 7 and 11 of 60, 4 and 8 of 30 in runs by hand (a rate of 0.13 to
// 0.27), so 32 seeds miss it at worst about once in 90 runs.
func TestCheckCatchesForkForgetsParentWithDefaultFlags(t *testing.T) {
	out, code := checkRun(t, "--seeds", "32", "--jobs", "4", "--", "self", "agent", "--agent", "fork-forgets-parent")
	if code != 1 || !strings.Contains(out, "  duplicate ") || !strings.Contains(out, "--forks=") {
		t.Fatalf("exit %d, want 1 with a duplicate and a rerun stating the forks:\n%s", code, out)
	}
}
