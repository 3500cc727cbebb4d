package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/sim/matrix"
)

// A design and a parameterised policy that are not built in run on every
// link beside the reference, and a design file gives the same table.
func TestMatrixRunsYourDesignAndPolicyAndAFileGivesTheSameTable(t *testing.T) {
	args := []string{"matrix", "--seeds", "6", "--shrink", "0", "--policies", "keyed,bounded:attempts=2"}
	inline, code := acpsimRun(t, append(args, "--design", "mine=busy:reject,keys:memory")...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, inline)
	}
	for _, want := range []string{"link stdio", "link http", "link ws", "bounded:attempts=2  mine", "keyed               reference", "--max-attempts=2 --policy=bounded"} {
		if !strings.Contains(inline, want) {
			t.Errorf("matrix output lacks %q:\n%s", want, inline)
		}
	}
	file := filepath.Join(t.TempDir(), "designs.txt")
	if err := os.WriteFile(file, []byte("# mine\nmine = busy:reject, keys:memory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, code := acpsimRun(t, append(args, "--design-file", file)...)
	tables := func(s string) string { s, _, _ = strings.Cut(s, "agent designs:"); return s }
	if code != 0 || tables(fromFile) != tables(inline) {
		t.Fatalf("--design-file: exit %d, tables differ from --design's:\n%s\n---\n%s", code, fromFile, inline)
	}
}

func TestADesignIsCheckedAsItsRunFlagsAre(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--design", "mine=busy:reject", "--busy", "hold"}, "--busy and --design mine (busy:reject) both set busy"},
		{[]string{"run", "--design", "nodes-3"}, "runs on http, ws only"},
		{[]string{"run", "--design", "a=busy:reject", "--design", "b=keys:memory"}, "this command runs one"},
		{[]string{"run", "--policy", "keyed:attempts=3"}, "attempts is a parameter of bounded only"},
		{[]string{"matrix", "--policies", "bounded:patience=2"}, `unknown parameter "patience"`},
		{[]string{"swarm", "--design", "mine=bussy:reject"}, `unknown setting "bussy"`},
	} {
		out, code := acpsimRun(t, c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("acpsim %q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, out)
		}
	}
}

// A run of a design from a file names, in its rerun command, the design's
// own flags: the command reproduces the run without the file.
func TestARerunOfADesignNeedsNoFile(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("d.txt", []byte("forgetful = agent:memory-keys\n"), 0o644)
	out, code := acpsimRun(t, "run", "--seed", "3", "--design-file", "d.txt", "--fault-rates", "kill=0.2")
	if code != 1 || !strings.Contains(out, "rerun: acpsim run --seed 3 --agent=memory-keys --fault-rates=kill=0.2") || strings.Contains(out, "rerun: acpsim run --seed 3 --design") {
		t.Fatalf("exit %d, want 1 with a rerun command of the design's flags and no file:\n%s", code, out)
	}
	again, code2 := acpsimRun(t, "run", "--seed", "3", "--agent=memory-keys", "--fault-rates=kill=0.2")
	if code2 != code || strings.Count(again, "- duplicate:") != strings.Count(out, "- duplicate:") {
		t.Fatalf("the rerun command gives exit %d (%d before):\n%s", code2, code, again)
	}
}

func TestKnobsListsEverySettingAndParameter(t *testing.T) {
	out, code := acpsimRun(t, "knobs")
	for _, want := range []string{"busy", "keys", "agent", "nodes", "proxy", "links", "attempts", "--max-attempts", "age", "--stale-after", "node-memory-keys=keys:memory,nodes:3 (on http, ws)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("acpsim knobs (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
}

func TestMutantsCatchesAKnownBadDesignOfYours(t *testing.T) {
	out, code := acpsimRun(t, "mutants", "--runs", "1", "--design", "forgetful=agent:memory-keys")
	if code != 0 || !strings.Contains(out, "design  forgetful") || !strings.Contains(out, "all 1 mutants caught") {
		t.Fatalf("exit %d, want the design caught:\n%s", code, out)
	}
}

// The alternatives table: every alternative of the RFD on every link, with
// its passage; the RFD's own row clean, naive resends duplicating, and the
// key written apart from its message caught.
func TestMatrixAlternativesMeasuresEachAgainstTheRFD(t *testing.T) {
	out, code := acpsimRun(t, "matrix", "--alternatives", "--seeds", "20", "--shrink", "0", "--links", "stdio")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, a := range matrix.Alternatives {
		if !strings.Contains(out, a.Name) || !strings.Contains(out, a.RFD) {
			t.Errorf("the table lacks the alternative %q or its passage", a.Name)
		}
	}
	row := func(name string) string { return tableRow(t, out, name) }
	if r := row("the RFD"); !strings.Contains(r, "keyed × reference") || !strings.Contains(r, " ·  ") {
		t.Errorf("the RFD's row must be clean: %q", r)
	}
	if r := row("today: naive resend"); !strings.Contains(r, "duplicate") {
		t.Errorf("naive resends must duplicate: %q", r)
	}
	if r := row("key and message not in one transaction"); !strings.Contains(r, "duplicate") {
		t.Errorf("a binding written after the turn must duplicate: %q", r)
	}
	// A key on session/new: the RFD's duplicate sessions (made for an
	// attempt whose answer was lost) are gone when the key is stored.
	unused := regexp.MustCompile(`  ([1-9][0-9]*) of [0-9]+ \(`)
	if r := row("the RFD"); !unused.MatchString(r) {
		t.Errorf("the RFD's row must show unused sessions: %q", r)
	}
	if r := row("a key on session/new too, bound in the store"); !strings.Contains(r, "keyed-create × create-keys-store") || !strings.Contains(r, "  0 of ") || !strings.Contains(r, " ·  ") {
		t.Errorf("a stored key on session/new must leave no unused session and no anomaly: %q", r)
	}
	if strings.Contains(out, "--alternatives=") {
		t.Errorf("a rerun command carries --alternatives:\n%s", out)
	}
	if out, code := acpsimRun(t, "matrix", "--alternatives", "--policies", "keyed"); code != 2 || !strings.Contains(out, "give one or the other") {
		t.Errorf("--alternatives with --policies: exit %d:\n%s", code, out)
	}
}

// The status quo: ACP v1 with today's Clients beside v2 with the RFD, on
// the same seeds. The RFD's row is clean; a v1 Client that resends
// duplicates, one that does not loses input silently, and one that says it
// does not know is honest but leaves its users not knowing.
func TestMatrixStatusQuoPutsV1BesideTheRFD(t *testing.T) {
	out, code := acpsimRun(t, "matrix", "--status-quo", "--seeds", "20", "--shrink", "0", "--links", "stdio")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	row := func(name string) string { return tableRow(t, out, name) }
	if r := row("v2 with the RFD"); !strings.Contains(r, "keyed × reference") || !strings.Contains(r, " ·  ") {
		t.Errorf("the RFD's row must be clean: %q", r)
	}
	if r := row("v1, the Client resends"); !strings.Contains(r, "naive × v1") || !strings.Contains(r, "duplicate") {
		t.Errorf("a v1 Client that resends must duplicate: %q", r)
	}
	if r := row("v1, the Client does not resend"); !strings.Contains(r, "lost") {
		t.Errorf("a v1 Client that never resends must lose input: %q", r)
	}
	honest := regexp.MustCompile(` ·  +[1-9][0-9]*\.[0-9] `)
	if r := row("v1, the Client does not resend and says it does not know"); !honest.MatchString(r) {
		t.Errorf("an honest v1 Client shows no anomaly and leaves users not knowing: %q", r)
	}
	if out, code := acpsimRun(t, "matrix", "--status-quo", "--alternatives"); code != 2 || !strings.Contains(out, "give one") {
		t.Errorf("--status-quo with --alternatives: exit %d:\n%s", code, out)
	}
}

// tableRow is the line of a text table whose first cell is name.
func tableRow(t *testing.T, out, name string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), name+"  ") {
			return l
		}
	}
	t.Fatalf("no row %q:\n%s", name, out)
	return ""
}
