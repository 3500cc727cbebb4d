package matrix_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/properties"
	simdesign "github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/matrix"
	"github.com/acpsim/acpsim/sim/world"
)

func design(t *testing.T, name string) matrix.Design {
	t.Helper()
	d, ok := matrix.LookupDesign(name)
	if !ok {
		t.Fatalf("no design %q", name)
	}
	return d
}

func small(t *testing.T, jobs int) *matrix.Report {
	t.Helper()
	rep, err := matrix.Run(matrix.Config{
		Base:     world.DefaultConfig(),
		Policies: []string{"none", "naive", "keyed"},
		Designs:  []matrix.Design{design(t, "reference"), design(t, "node-memory-keys")},
		Links:    []string{world.LinkStdio, world.LinkHTTP},
		Seeds:    10, FirstSeed: 1, Jobs: jobs, Shrink: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The report (counts, chosen seeds, shrunk counterexamples) is the same
// whatever the number of jobs, and rows come in table order.
func TestJobsDoNotChangeTheReport(t *testing.T) {
	var outs [2]bytes.Buffer
	for i, jobs := range []int{1, 3} {
		if err := small(t, jobs).WriteJSON(&outs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
		t.Fatalf("--jobs 1 and 3 differ:\n%s\n---\n%s", outs[0].String(), outs[1].String())
	}
	rep := small(t, 2)
	var order []string
	for _, r := range rep.Rows {
		order = append(order, r.Link+"/"+r.Policy+"/"+r.Design)
	}
	want := []string{"stdio/none/reference", "stdio/naive/reference", "stdio/keyed/reference",
		"http/none/reference", "http/none/node-memory-keys", "http/naive/reference", "http/naive/node-memory-keys",
		"http/keyed/reference", "http/keyed/node-memory-keys"}
	if !slices.Equal(order, want) {
		t.Fatalf("rows %v, want %v", order, want)
	}
	for _, r := range rep.Rows {
		if len(r.Failing) != len(properties.Kinds) {
			t.Errorf("%s: %d kinds counted, want every kind", r.Design, len(r.Failing))
		}
		for _, ce := range r.Counterexamples {
			if r.Failing[ce.Kind] == 0 || !strings.Contains(ce.Run, "--policy="+r.Policy) || !ce.Shrunk || ce.Size.Faults > ce.SeedSize.Faults {
				t.Errorf("%s × %s: counterexample %+v", r.Policy, r.Design, ce)
			}
		}
		if n := len(r.Counterexamples); n != countFailing(r) {
			t.Errorf("%s × %s: %d counterexamples for %d failing kinds", r.Policy, r.Design, n, countFailing(r))
		}
		if r.Policy == "keyed" && r.Design == "reference" && r.Failed != 0 {
			t.Errorf("keyed against the reference over %s: %d seeds failed", r.Link, r.Failed)
		}
	}
}

func countFailing(r matrix.Row) int {
	n := 0
	for _, v := range r.Failing {
		if v > 0 {
			n++
		}
	}
	return n
}

// Each design changes the configuration of the reference on every link it
// runs on (a row equal to the reference would only cost time), and its name
// can be part of a file name.
func TestEveryDesignDiffersFromTheReference(t *testing.T) {
	c := matrix.Config{Base: world.DefaultConfig()}
	names := map[string]bool{}
	for _, d := range matrix.Designs {
		if names[d.Name] || !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(d.Name) || d.Why == "" {
			t.Errorf("design %q: duplicate, not a file-name word, or no reason", d.Name)
		}
		names[d.Name] = true
		for _, link := range matrix.Links {
			if !d.RunsOn(link) {
				continue
			}
			ref, _, err := c.Cell(link, matrix.Designs[0], "keyed")
			if err != nil {
				t.Fatal(err)
			}
			got, flags, err := c.Cell(link, d, "keyed")
			if err != nil {
				t.Fatalf("%s over %s: %v", d.Name, link, err)
			}
			same := reflect.DeepEqual(ref, got)
			if same != (d.Name == "reference") {
				t.Errorf("%s over %s: equal to the reference: %v", d.Name, link, same)
			}
			if !slices.IsSorted(flags) || !slices.Contains(flags, "--link="+link) {
				t.Errorf("%s: flags %v", d.Name, flags)
			}
		}
	}
	// A cell's rates are its own: switching on HTTP's faults for one cell
	// leaves the base, and every other cell, alone.
	before := maps.Clone(c.Base.Rates)
	if _, _, err := c.Cell(world.LinkHTTP, matrix.Designs[0], "keyed"); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(before, c.Base.Rates) {
		t.Fatal("Cell changed the base rates")
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		n, of int
		want  string
	}{{0, 100, "·"}, {1, 1000, "<1%"}, {5, 1000, "<1%"}, {12, 100, "12%"}, {125, 1000, "13%"}, {999, 1000, ">99%"}, {1000, 1000, "100%"}} {
		if got := matrix.Percent(tc.n, tc.of); got != tc.want {
			t.Errorf("Percent(%d, %d) = %q, want %q", tc.n, tc.of, got, tc.want)
		}
	}
}

// Every renderer shows the same cells; the SVG is well-formed XML.
func TestRenderers(t *testing.T) {
	rep := &matrix.Report{FirstSeed: 1, Seeds: 40, Clients: 1, Prompts: 10, Kinds: properties.Kinds,
		Links: []string{"stdio"}, Policies: []string{"naive"}, Shrink: 0,
		Designs: []matrix.DesignReport{{Name: "reference", Why: "x < y & z", Flags: []string{}, Links: []string{"stdio"}}},
		Rows: []matrix.Row{{Link: "stdio", Policy: "naive", Design: "reference", Seeds: 40, Failed: 30,
			Failing: map[string]int{"duplicate": 30, "lost": 0},
			Counterexamples: []matrix.Counterexample{{Kind: "duplicate", Seed: 2, Run: "acpsim run --seed 2 --link=stdio --policy=naive",
				SeedSize: matrix.Size{Faults: 3, Prompts: 10, Events: 300}, Size: matrix.Size{Faults: 3, Prompts: 10, Events: 300}}}}},
	}
	var text, md, svg bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "md": md.String(), "svg": svg.String()} {
		for _, want := range []string{"75%", "naive", "duplicate"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
	if !strings.Contains(text.String(), "run:    acpsim run --seed 2") || !strings.Contains(md.String(), "`acpsim run --seed 2") {
		t.Errorf("a renderer lacks the rerun command:\n%s\n%s", text.String(), md.String())
	}
	dec := xml.NewDecoder(&svg)
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
	}
}

// A product matrix with a v1 design leaves out the keyed policies' cells
// against it, and says so, instead of refusing the whole matrix; the
// other cells run.
func TestAKeyedPolicyAgainstAV1DesignIsNotRun(t *testing.T) {
	v1 := matrix.Design{Name: "v1", Why: "ACP v1", Settings: []simdesign.Setting{{Key: "protocol", Value: "1"}}}
	rep, err := matrix.Run(matrix.Config{
		Base: world.DefaultConfig(), Policies: []string{"naive", "keyed"},
		Designs: []matrix.Design{design(t, "reference"), v1},
		Links:   []string{world.LinkStdio}, Seeds: 3, FirstSeed: 1, Jobs: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.NotRun) != 1 || !strings.Contains(rep.NotRun[0], "keyed × v1: not run") {
		t.Errorf("not run: %q, want keyed × v1 named", rep.NotRun)
	}
	for _, row := range rep.Rows {
		if row.Policy == "keyed" && row.Design == "v1" {
			t.Errorf("a keyed × v1 row ran")
		}
	}
	if len(rep.Rows) != 3 {
		t.Errorf("%d rows, want 3 (naive × both, keyed × reference)", len(rep.Rows))
	}
}
