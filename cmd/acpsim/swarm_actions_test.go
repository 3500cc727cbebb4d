package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/sim/world"
)

// actionLines reads a summary's user action lines: class → on, failed
// (check's lines have an exercised column between them).
func actionLines(t *testing.T, out string) map[string][2]int {
	t.Helper()
	got := map[string][2]int{}
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z-]+) +.+? +(\d+)(?: +\d+)? +(\d+)$`).FindAllStringSubmatch(out, -1) {
		if _, ok := users.ActionClassOf(m[1]); ok {
			var on, failed int
			fmt.Sscan(m[2], &on)
			fmt.Sscan(m[3], &failed)
			got[m[1]] = [2]int{on, failed}
		}
	}
	return got
}

// By default a swarm switches user action classes per seed: one line per
// class, counting exactly the seeds whose draw had it on; the reference
// Agent fails in none.
func TestSwarmActionClassesByDefault(t *testing.T) {
	code, out, _ := run(t, "swarm", "--seeds", "200")
	if code != exitOK || !strings.Contains(out, "· action classes ·") || !strings.Contains(out, "user actions (each seed") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	want := map[string][2]int{}
	for seed := uint64(1); seed <= 200; seed++ {
		for _, c := range users.DrawActions(seed, users.DefaultActionBase).On {
			want[c] = [2]int{want[c][0] + 1, 0}
		}
	}
	if got := actionLines(t, out); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("action lines %v, the draws say %v:\n%s", got, want, out)
	}
}

// --actions=off (or ACPSIM_ACTIONS=off) is the swarm of before action
// classes: every seed without user actions, as the library's plain swarm
// runs it, and no action lines.
func TestSwarmActionsOffIsThePlainSwarm(t *testing.T) {
	args := []string{"swarm", "--seeds", "150", "--policy", "naive", "--format", "json"}
	code, out, _ := run(t, append(args, "--actions=off")...)
	t.Setenv("ACPSIM_ACTIONS", "off")
	code2, out2, _ := run(t, args...)
	if code != exitAnomaly || code2 != code {
		t.Fatalf("exit %d and %d with ACPSIM_ACTIONS=off, want %d:\n%s", code, code2, exitAnomaly, out)
	}
	var cli, env world.SummaryFile
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out2), &env); err != nil {
		t.Fatal(err)
	}
	base := world.DefaultConfig()
	base.Policy = "naive"
	sum, err := world.Swarm(world.SwarmConfig{Base: base, FirstSeed: 1, Seeds: 150, Classes: true})
	if err != nil {
		t.Fatal(err)
	}
	if cli.ActionClasses != nil || cli.Config.Actions {
		t.Errorf("--actions=off: action classes %v", cli.ActionClasses)
	}
	for _, f := range []*world.SummaryFile{&cli, &env} {
		if f.Failed != sum.Failed || fmt.Sprint(f.Anomalies) != fmt.Sprint(world.NewSummaryFile(sum, world.SummaryConfig{}, world.ShardInfo{}, func(world.SeedFailure) string { return "" }).Anomalies) ||
			f.Stats != world.StatsCount(sum.Stats) || len(f.Failures) != len(sum.Failures) {
			t.Fatalf("--actions=off summary differs from the plain swarm's: failed %d vs %d", f.Failed, sum.Failed)
		}
		for i, fl := range f.Failures {
			if fl.Seed != sum.Failures[i].Seed || strings.Contains(fl.Rerun, "--cancels") || fl.ActionsOn != nil {
				t.Fatalf("failure %d: %+v, plain swarm's seed %d", i, fl, sum.Failures[i].Seed)
			}
		}
	}
}

// A failing seed's rerun states the actions it drew and reproduces its
// anomalies on its own.
func TestSwarmActionRerunReproducesTheSeed(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, _ := run(t, "swarm", "--seeds", "200", "--agent", "cancel-keeps-held", "--show", "3")
	if code != exitAnomaly || !strings.Contains(out, "(actions on: ") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	kinds, args := rerunLines(t, out)
	if len(args) != 3 {
		t.Fatalf("%d rerun commands, want 3:\n%s", len(args), out)
	}
	for i, a := range args {
		if !regexp.MustCompile(` --cancels=\d+ --closes=\d+ --forks=\d+`).MatchString(a) || strings.Contains(a, "--actions") {
			t.Errorf("rerun %q: want the seed's actions stated and no --actions", a)
		}
		code, rout, _ := run(t, append([]string{"run"}, strings.Fields(a)...)...)
		if code != exitAnomaly {
			t.Fatalf("rerun %q: exit %d:\n%s", a, code, rout)
		}
		for _, k := range strings.Split(kinds[i], ", ") {
			if !strings.Contains(rout, "- "+k+":") {
				t.Errorf("rerun %q: no %s:\n%s", a, k, rout)
			}
		}
	}
}

// The cancel, close and fork mutants are caught with default flags, and
// the class their bug needs is on in every failing seed.
func TestSwarmCatchesTheActionMutantsWithDefaultFlags(t *testing.T) {
	for _, m := range []struct{ agent, class string }{
		{"cancel-only-named", "cancel-request"},
		{"cancel-keeps-held", "session-cancel"},
		{"insert-after-close", "close-resume"},
		{"fork-forgets-parent", "fork"},
	} {
		code, out, _ := run(t, "swarm", "--seeds", "300", "--agent", m.agent)
		fails := regexp.MustCompile(`(?m)^seeds failed: (\d+) of`).FindStringSubmatch(out)
		if code != exitAnomaly || fails == nil || !regexp.MustCompile(`(?m)^  `+mutants.Catches(m.agent)+` +\d+ in \d+ seeds$`).MatchString(out) {
			t.Fatalf("%s: exit %d, want %d with %s:\n%s", m.agent, code, exitAnomaly, mutants.Catches(m.agent), out)
		}
		if got := actionLines(t, out)[m.class]; fmt.Sprint(got[1]) != fails[1] {
			t.Errorf("%s: class %s failed in %d seeds, %s seeds failed", m.agent, m.class, got[1], fails[1])
		}
	}
}

// An --actions value that is neither on nor off is bad usage.
func TestSwarmActionsBadUsage(t *testing.T) {
	for _, args := range [][]string{{"--actions", "some"}, {"--cancel-by", "phone"}} {
		code, _, stderr := run(t, append([]string{"swarm", "--seeds", "1"}, args...)...)
		if code != exitUsage || !slices.ContainsFunc([]string{"--actions \"some\": expected on or off", "expected either, request or session"}, func(s string) bool { return strings.Contains(stderr, s) }) {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
