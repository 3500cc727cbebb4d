package design_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/world"
)

func TestASpecSetsWhatTheSameRunFlagsSet(t *testing.T) {
	d, err := design.Parse("mine=busy:reject, keys=memory ,retain:3", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Flags(); !slices.Equal(got, []string{"--busy=reject", "--keys=memory", "--retain=3"}) {
		t.Fatalf("flags %q", got)
	}
	cfg := world.DefaultConfig()
	if err := d.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Knobs.Busy != "reject" || cfg.Knobs.Keys != "memory" || cfg.Knobs.Retain != 3 || d.Links != nil {
		t.Fatalf("applied %+v, links %v", cfg.Knobs, d.Links)
	}
	if again, err := design.Parse(d.Spec(), nil); err != nil || !reflect.DeepEqual(again.Settings, d.Settings) {
		t.Fatalf("Spec %q does not read back: %v", d.Spec(), err)
	}
}

func TestNodesMakeADesignRemoteAndAKnownBadAgentIsADesign(t *testing.T) {
	d, err := design.Parse("forgetful=agent:memory-keys,nodes:3", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Links, design.Remote) || d.RunsOn(world.LinkStdio) {
		t.Fatalf("links %v: nodes sit behind a remote endpoint", d.Links)
	}
	cfg := world.DefaultConfig()
	if err := d.Apply(&cfg); err != nil || cfg.Agent != "memory-keys" || cfg.Nodes != 3 {
		t.Fatalf("applied agent %q nodes %d: %v", cfg.Agent, cfg.Nodes, err)
	}
}

func TestBadSpecsSayWhatWasExpected(t *testing.T) {
	for spec, want := range map[string]string{
		"nosuch":                    `not one of reference, busy-reject`,
		"Mine=busy:reject":          "must be a word of a-z, 0-9 and -",
		"reference=busy:reject":     "a built-in design's",
		"mine=":                     "no settings after =",
		"mine=bussy:reject":         `unknown setting "bussy": expected one of agent, busy`,
		"mine=busy:maybe":           `expected one of reject, hold, breakpoint`,
		"mine=busy":                 "expected KEY:VALUE",
		"mine=agent:telepathic":     `unknown agent "telepathic"`,
		"mine=nodes:3,links:stdio":  "needs remote links",
		"mine=links:carrier-pigeon": `link "carrier-pigeon"`,
	} {
		if _, err := design.Parse(spec, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want an error saying %q", spec, err, want)
		}
	}
}

func TestADesignFileReadsAsTheSameSpecsAndNamesItsBadLine(t *testing.T) {
	ds, err := design.ReadFile("testdata/designs.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := design.Names(ds); !slices.Equal(got, []string{"forgetful", "impatient"}) || ds[0].Why != "bindings in node memory: failover forgets them" {
		t.Fatalf("designs %q, first why %q", got, ds[0].Why)
	}
	inline, _ := design.Parse("impatient=busy:reject", nil)
	if !reflect.DeepEqual(inline.Settings, ds[1].Settings) {
		t.Fatalf("file %v, inline %v", ds[1].Settings, inline.Settings)
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("# ok\nfine = busy:reject\n\nbroken = keys:everywhere\n"), 0o644)
	if _, err := design.ReadFile(bad); err == nil || !strings.Contains(err.Error(), "bad.txt:4: design broken: keys:everywhere") {
		t.Fatalf("error %v, want it to name bad.txt:4 and the setting", err)
	}
}

func TestPoliciesTakeTheirOwnParametersOnly(t *testing.T) {
	p, err := design.ParsePolicy("bounded:attempts=6:backoff=50ms")
	if err != nil {
		t.Fatal(err)
	}
	cfg := world.DefaultConfig()
	if err := p.Apply(&cfg); err != nil || cfg.Policy != "bounded" || cfg.MaxAttempts != 6 || cfg.Backoff.String() != "50ms" {
		t.Fatalf("applied %s attempts %d backoff %v: %v", cfg.Policy, cfg.MaxAttempts, cfg.Backoff, err)
	}
	if got := p.Flags(); !slices.Equal(got, []string{"--policy=bounded", "--max-attempts=6", "--backoff=50ms"}) {
		t.Fatalf("flags %q", got)
	}
	for spec, want := range map[string]string{
		"keyed:attempts=3":   "attempts is a parameter of bounded only",
		"stale:age=soon":     "expected a positive duration",
		"bounded:attempts=0": "1 or more",
		"bounded:patience=9": `unknown parameter "patience"`,
		"bounded:attempts":   "expected NAME=VALUE",
		"optimistic":         `unknown policy "optimistic"`,
	} {
		if _, err := design.ParsePolicy(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePolicy(%q): %v, want an error saying %q", spec, err, want)
		}
	}
}

// Every setting a design can make is a flag of acpsim run (the rerun
// commands depend on it) except links, which says where a design runs.
func TestEveryKeyHasValuesAndADefault(t *testing.T) {
	for _, k := range design.Keys() {
		if k.Values == "" || k.Doc == "" || (k.Default == "" && k.Name != "live-only") {
			t.Errorf("key %s: values %q, default %q, doc %q", k.Name, k.Values, k.Default, k.Doc)
		}
	}
}
