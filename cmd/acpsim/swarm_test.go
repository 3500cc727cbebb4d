package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/sim/world"
)

// rerunLines are the failing seeds' lines of a swarm's output: the
// anomalies and the rerun command's arguments after "acpsim run ".
func rerunLines(t *testing.T, out string) (kinds, args []string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		_, cmd, ok := strings.Cut(line, "rerun: ")
		if !ok {
			continue
		}
		_, a, ok := strings.Cut(cmd, "acpsim run ")
		if !ok || i == 0 {
			t.Fatalf("rerun line %q", line)
		}
		_, k, _ := strings.Cut(lines[i-1], ": ")
		k, _, _ = strings.Cut(k, " (classes on")
		kinds, args = append(kinds, k), append(args, a)
	}
	return kinds, args
}

// By default each seed switches fault classes on and off: the summary
// counts them, and each failing seed's rerun command states its rates and
// reproduces its anomalies on its own.
func TestSwarmClassesAreOnAndEachRerunReproduces(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, _ := run(t, "swarm", "--seeds", "60", "--policy", "naive", "--show", "4")
	if code != exitAnomaly {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	for _, want := range []string{"· fault classes ·", "fault classes (each seed", "not modelled: duplicate", "not modelled: partition", "(classes on: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, class := range world.PresentClasses(world.DefaultConfig().Rates) {
		if !regexp.MustCompile(`(?m)^  ` + class + ` +\S+( \S+)* +\d+ +\d+$`).MatchString(out) {
			t.Errorf("no row for class %s:\n%s", class, out)
		}
	}
	kinds, args := rerunLines(t, out)
	if len(args) != 4 {
		t.Fatalf("%d rerun commands, want 4:\n%s", len(args), out)
	}
	for i, a := range args {
		if !strings.Contains(a, "--fault-rates=client-restart=") || strings.Contains(a, "--classes") {
			t.Errorf("rerun %q: want the seed's rates and no swarm flags", a)
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

// --classes=off runs every seed at the flags' rates: no class table, and
// the rerun commands carry the user's own --fault-rates as given.
func TestSwarmClassesOff(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, _ := run(t, "swarm", "--seeds", "30", "--policy", "naive", "--classes=off", "--fault-rates", "kill=0.02", "--show", "2")
	if code != exitAnomaly || strings.Contains(out, "fault classes") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	_, args := rerunLines(t, out)
	for _, a := range args {
		// The user's flags as given, then the actions the seed drew.
		if !regexp.MustCompile(` --fault-rates=kill=0.02 --policy=naive --cancels=\d+ --closes=\d+ --forks=\d+`).MatchString(a) {
			t.Errorf("rerun %q", a)
		}
	}
	code, _, stderr := run(t, "swarm", "--seeds", "3", "--classes", "sometimes")
	if code != exitUsage || !strings.Contains(stderr, `--classes "sometimes": expected on or off`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// A rerun names every kind a class may change, and any other kind the user
// set away from run's default (route here), so nothing is left to flags
// the rerun does not repeat.
func TestRerunKindsKeepTheUsersOwnRates(t *testing.T) {
	cfg := world.DefaultConfig()
	cfg.Link, cfg.Nodes = world.LinkWS, 2
	cfg.EnableLinkFaults()
	cfg.Rates["route"] = 0.3
	d := world.DrawClasses(7, cfg.Rates, nil)
	got := world.FormatRates(d.Rates, rerunKinds(cfg, d.Rates))
	for _, k := range []string{"client-restart=", "cut=", "delay=", "kill=", "lose-unsynced=", "reject=", "route=0.3"} {
		if !strings.Contains(got, k) {
			t.Errorf("%q lacks %s", got, k)
		}
	}
	if strings.Contains(got, "post-lost") {
		t.Errorf("%q names an HTTP kind over ws", got)
	}
}

// --coverage lists the pairs hit with their counts and the pairs never
// hit; --guided says what it raised.
func TestSwarmCoverageListsThePairsNeverHit(t *testing.T) {
	code, out, _ := run(t, "swarm", "--seeds", "120", "--coverage", "--guided")
	if code != exitOK {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	m := regexp.MustCompile(`(?m)^coverage: (\d+) of (\d+) \(fault point × protocol state\) pairs hit \((\d+) more not reachable with these flags\):$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no coverage line:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  kill × respond-prompt +\d+ +\d+$`).MatchString(out) {
		t.Errorf("no count for kill × respond-prompt:\n%s", out)
	}
	if !strings.Contains(out, "never hit") || !strings.Contains(out, "guided: 2 batches of 100 seeds; rates raised for missing pairs: ") {
		t.Errorf("no never-hit or guided line:\n%s", out)
	}
	if m[1] == m[2] && !strings.Contains(out, "never hit: none") {
		t.Errorf("all hit, yet pairs listed as never hit:\n%s", out)
	}
}
