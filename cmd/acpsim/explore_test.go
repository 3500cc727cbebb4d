package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/mutants"
)

// exploreCatches are the flags with which `acpsim explore --prompts 3
// --faults 2` catches each mutant, and the anomaly its first counterexample
// shows (mutants.Catches unless said). A mutant whose bug needs a user who
// cancels, closes or forks gets one; a bug that needs a scenario three
// prompts rarely draw (a key repeated in another case or another session,
// a prompt held behind another when the user cancels or closes) gets a seed
// whose users draw it.
var exploreCatches = map[string]struct {
	flags []string
	kind  string
}{
	// Its bug (a retry after a restart is submitted again) shows first as
	// the work run again for a message already inserted.
	"adapter-no-rebuild": {nil, "rework"},
	// It refuses (-32602) a key another session recorded with another
	// prompt: a legal key never used in this session, refused.
	"agent-scoped-keys": {[]string{"--seed", "9"}, "bad-reply"},
	"bind-on-arrival":   {nil, ""},
	"cancel-keeps-held": {[]string{"--cancels", "1", "--seed", "4"}, ""},
	"cancel-only-named": {[]string{"--cancels", "1", "--seed", "28"}, ""},
	// Two attempts of one key held when the user cancels: the Client
	// resends before a round of work ends (mutants.NeedsOf).
	"cancel-spares-other-attempts": {[]string{"--cancels", "1", "--sessions", "1", "--timeout", "30ms", "--seed", "9"}, ""},
	"echo-key":                     {nil, ""},
	"fold-key-case":                {[]string{"--seed", "86"}, ""},
	"fork-copies-bindings":         {[]string{"--forks", "1", "--seed", "23"}, ""},
	"fork-forgets-parent":          {[]string{"--forks", "1"}, ""},
	"fresh-live-id-on-retry":       {nil, ""},
	"ignore-key":                   {nil, ""},
	"insert-after-close":           {[]string{"--closes", "1", "--seed", "4"}, ""},
	"key-in-list-meta":             {nil, ""},
	// The key of a shape the Agent miscounts: seed 3 draws 255 four-byte
	// code points for one of its three submissions.
	"key-length-in-bytes": {nil, ""},
	"key-length-in-utf16": {[]string{"--seed", "3"}, ""},
	"lenient-key":         {nil, ""},
	// Lost updates need two nodes on one store; the first schedule in
	// depth-first order clobbers a session with its key's binding, so a
	// retry on the other node is answered with a new messageId.
	"lost-writes":        {[]string{"--link", "ws", "--nodes", "2"}, "wrong-id"},
	"memory-keys":        {nil, ""},
	"new-id-on-retry":    {nil, ""},
	"new-ids-on-replay":  {nil, ""},
	"newest-id-on-retry": {nil, ""},
	// Caught without a fault: the observer's resumes after the heal fail.
	"resume-always-errors": {nil, ""},
	"rework-on-retry":      {nil, ""},
	// A held prompt cancelled, and its user sends it again (one in eight):
	// seed 12 draws both, in one busy session.
	"withdrawn-key-stays-cancelled": {[]string{"--cancels", "1", "--sessions", "1", "--seed", "12"}, "stray-cancel"},
}

// Every mutant Agent is caught by explore at the bound the design names,
// with the anomaly the table says, and a trace that replay reproduces.
func TestExploreCatchesEveryMutant(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, name := range agent.Names() {
		if name == agent.Reference || name == agent.Adapter {
			continue
		}
		if _, ok := exploreCatches[name]; !ok {
			t.Errorf("%s: not in the table: find the flags with which explore catches it", name)
		}
	}
	for _, name := range mutants.Names() {
		c := exploreCatches[name]
		t.Run(name, func(t *testing.T) {
			args := append([]string{"explore", "--prompts", "3", "--faults", "2", "--agent", name}, c.flags...)
			code, out, errs := run(t, args...)
			if code != exitAnomaly || !strings.Contains(out, "counterexample after") {
				t.Fatalf("%v: exit %d, want %d and a counterexample; output:\n%s%s", args, code, exitAnomaly, out, errs)
			}
			want := c.kind
			if want == "" {
				want = mutants.Catches(name)
			}
			if !strings.Contains(out, "\n- "+want+":") {
				t.Errorf("%v: no %s in the counterexample's report:\n%s", args, want, out)
			}
			m := regexp.MustCompile(`trace: (\S+)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no trace path in:\n%s", out)
			}
			code, out, errs = run(t, "replay", m[1])
			if code != exitAnomaly || !strings.Contains(out, "outcome: the same as recorded") {
				t.Errorf("replay %s: exit %d, output:\n%s%s", m[1], code, out, errs)
			}
		})
	}
}

// The reference Agent passes a small bound; the output says how many
// schedules, per number of faults.
func TestExploreReferencePasses(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errs := run(t, "explore", "--prompts", "2", "--faults", "1", "--workers", "2")
	if code != exitOK || !regexp.MustCompile(`all \d+ schedules explored, 0 anomalies · 1 with 0, \d+ with 1 faults`).MatchString(out) {
		t.Fatalf("exit %d, output:\n%s%s", code, out, errs)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("a passing explore wrote %v", entries)
	}
}

// The counterexample is the same whatever the number of workers, and it
// lists its forced choices.
func TestExploreCounterexampleIndependentOfWorkers(t *testing.T) {
	t.Chdir(t.TempDir())
	var outs []string
	for _, w := range []string{"1", "2", "4"} {
		code, out, errs := run(t, "explore", "--prompts", "2", "--faults", "2", "--agent", "memory-keys", "--workers", w)
		if code != exitAnomaly {
			t.Fatalf("--workers %s: exit %d, output:\n%s%s", w, code, out, errs)
		}
		i := strings.Index(out, "forced choices")
		if i < 0 {
			t.Fatalf("no forced choices in:\n%s", out)
		}
		// Each run writes a trace of its own, named apart.
		outs = append(outs, regexp.MustCompile(`acpsim-failures/\S+`).ReplaceAllString(out[i:], "TRACE"))
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Fatalf("the counterexample depends on the workers:\n%s\n---\n%s\n---\n%s", outs[0], outs[1], outs[2])
	}
	if entries, _ := filepath.Glob("acpsim-failures/explore-*-memory-keys-seed-1*.ndjson"); len(entries) != 3 {
		t.Errorf("acpsim-failures/ holds %v, want a trace of each of the 3 runs", entries)
	}
}

func TestExploreBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--kinds", "cut,explode"}, "unknown fault kind"},
		{[]string{"explore", "--delays", "7ms"}, "not a delay step"},
		{[]string{"explore", "--faults", "-1"}, "--faults -1"},
		{[]string{"explore", "-j", "-1"}, "--jobs -1"},
		{[]string{"explore", "--agent", "nobody"}, "unknown agent"},
	} {
		code, out, errs := run(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q: want exit 2 and %q", tc.args, code, errs, out, tc.want)
		}
	}
	// --kinds and --delays narrow the space: with no kind at all only the
	// run without faults is left.
	code, out, _ := run(t, "explore", "--prompts", "1", "--kinds", "reject", "--faults", "1")
	if code != exitOK || !slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool {
		return strings.HasPrefix(l, "all 2 schedules explored") // one prompt, one reject decision
	}) {
		t.Errorf("--kinds reject: exit %d, output:\n%s", code, out)
	}
}
