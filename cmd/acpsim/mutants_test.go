package main

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/sim/mutation"
)

// `acpsim mutants` catches every mutant within 100 seeds in every run, each
// by the anomaly it must be caught by, and prints the same table whatever
// --jobs says.
func TestMutantsCatchesEveryMutant(t *testing.T) {
	code, out, errs := run(t, "mutants", "--jobs", "1")
	if code != exitOK || !strings.Contains(out, "PASS: all ") {
		t.Fatalf("exit %d, want %d; output:\n%s%s", code, exitOK, out, errs)
	}
	for _, m := range mutation.All() {
		row := regexp.MustCompile(`(?m)^` + m.Actor + ` +` + regexp.QuoteMeta(m.Name) + ` +` + m.Expect + ` +5/5 +\d`)
		if !row.MatchString(out) {
			t.Errorf("no row for %s %s caught 5/5 in:\n%s", m.Actor, m.Name, out)
		}
	}
	code2, out2, _ := run(t, "mutants", "--jobs", "2")
	if code2 != code || out2 != out {
		t.Errorf("--jobs 2 (exit %d) differs from --jobs 1 (exit %d):\n%s\n---\n%s", code2, code, out2, out)
	}
}

// A mutant not caught within --max-seeds fails the command, and says where
// it looked.
func TestMutantsNotCaughtExits1(t *testing.T) {
	code, out, errs := run(t, "mutants", "--max-seeds", "1", "--runs", "2", "fork-forgets-parent")
	if code != exitAnomaly {
		t.Fatalf("exit %d, want %d; output:\n%s%s", code, exitAnomaly, out, errs)
	}
	for _, want := range []string{"0/2", ">1", "run 1 (seeds 2-2): no anomaly", "FAIL: 0 of 1 mutants"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// The JSON output has the table's numbers.
func TestMutantsJSON(t *testing.T) {
	args := []string{"mutants", "--runs", "2", "reuse-key", "cancel-keeps-held", "strip-key"}
	_, table, _ := run(t, args...)
	code, out, errs := run(t, append(args, "--format", "json")...)
	if code != exitOK {
		t.Fatalf("exit %d; output:\n%s%s", code, out, errs)
	}
	var rep struct {
		MaxSeeds, Runs, Caught int
		OK                     bool
		Mutants                []struct {
			Actor, Name, Expects, Rerun string
			CaughtRuns                  int     `json:"caught_runs"`
			Median                      float64 `json:"median_seeds"`
			Kinds                       []string
			PerRun                      []struct{ Seed uint64 } `json:"per_run"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in:\n%s", err, out)
	}
	if !rep.OK || rep.Caught != 3 || len(rep.Mutants) != 3 || rep.Runs != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, m := range rep.Mutants {
		row := m.Actor + " +" + regexp.QuoteMeta(m.Name) + " +" + m.Expects + " +" + regexp.QuoteMeta(
			strings.Join([]string{itoa(m.CaughtRuns) + "/2", ftoa(m.Median), strings.Join(m.Kinds, ", ")}, "#")) + " .* " + regexp.QuoteMeta(m.Rerun) + "\n"
		row = strings.ReplaceAll(row, "#", " +")
		if !regexp.MustCompile(row).MatchString(table) || len(m.PerRun) != 2 {
			t.Errorf("%s: %+v is not the table's row:\n%s", m.Name, m, table)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func ftoa(f float64) string { b, _ := json.Marshal(f); return string(b) }

func TestMutantsBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"mutants", "no-such-mutant"},
		{"mutants", "--format", "xml"},
		{"mutants", "--max-seeds", "0"},
	} {
		if code, _, _ := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	code, out, _ := run(t, "mutants", "--list", "gives-up-silently")
	if code != exitOK || !strings.Contains(out, "after MaxAttempts unanswered attempts drops the submission") {
		t.Errorf("--list: exit %d:\n%s", code, out)
	}
}

// A mutant's rerun flags, read by `acpsim run`'s own flags, give the run
// that caught it, and rerunning its first catching seed fails again.
func TestMutantRerunIsTheRunThatCaughtIt(t *testing.T) {
	t.Chdir(t.TempDir()) // a failing run writes acpsim-failures/
	for _, m := range mutation.All() {
		var sf simFlags
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		sf.register(fs)
		if err := fs.Parse(m.Setup.Flags()); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		got, err := sf.config()
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		want, _ := m.Setup.Config()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v read by run's flags:\n%+v\nthe mutant's run:\n%+v", m.Name, m.Setup.Flags(), got, want)
		}
	}
	res, err := mutation.Run(mutation.All(), mutation.Options{MaxSeeds: 100, Runs: 1, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		args := strings.Fields(strings.TrimPrefix(r.Rerun, "acpsim "))
		if code, out, errs := run(t, args...); code != exitAnomaly || !strings.Contains(out, "\n- "+r.Runs[0].Kinds[0]+":") {
			t.Errorf("%s: %s: exit %d, want %d with %s:\n%s%s", r.Name, r.Rerun, code, exitAnomaly, r.Runs[0].Kinds[0], out, errs)
		}
	}
}
