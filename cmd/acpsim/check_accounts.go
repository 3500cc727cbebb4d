package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/acpsim/acpsim/properties"
)

// accountTally sums the seeds' accounts (properties.Account): per
// property, the submissions it applied to and was judged for over the whole
// run, and why not the rest, so a check's summary says what its PASS
// covers.
type accountTally struct {
	order []string
	by    map[string]*properties.Account
	why   map[string]map[string]int
}

func (t *accountTally) add(r *properties.Report) {
	if t.by == nil {
		t.by, t.why = map[string]*properties.Account{}, map[string]map[string]int{}
	}
	for _, a := range r.Accounts {
		sum := t.by[a.Property]
		if sum == nil {
			sum = &properties.Account{Property: a.Property}
			t.by[a.Property], t.why[a.Property] = sum, map[string]int{}
			t.order = append(t.order, a.Property)
		}
		sum.Of += a.Of
		sum.Judged += a.Judged
		sum.Partly += a.Partly
		for _, n := range a.NotJudged {
			t.why[a.Property][n.Why] += n.N
		}
	}
}

// total is the summed account of property kind, its groups by size.
func (t *accountTally) total(kind string) properties.Account {
	sum := t.by[kind]
	if sum == nil {
		return properties.Account{Property: kind}
	}
	a := *sum
	a.NotJudged = nil
	for why, n := range t.why[kind] {
		a.NotJudged = append(a.NotJudged, properties.NotJudged{N: n, Why: why})
	}
	sort.Slice(a.NotJudged, func(i, j int) bool {
		x, y := a.NotJudged[i], a.NotJudged[j]
		return x.N > y.N || x.N == y.N && x.Why < y.Why
	})
	return a
}

// write prints the account of every property over the seeds reported.
func (t *accountTally) write(out io.Writer) {
	if len(t.order) == 0 {
		return
	}
	fmt.Fprintln(out, "judged (over the seeds with a verdict):")
	for _, k := range t.order {
		fmt.Fprintf(out, "  %s\n", t.total(k).Line())
	}
}

// judgedSome reports whether the run judged at most once and never
// silently lost each for at least one submission it applies to.
func (t *accountTally) judgedSome() bool {
	dup, lost := t.total(properties.Duplicate), t.total(properties.Lost)
	return (dup.Judged > 0 || dup.Partly > 0) && (lost.Judged > 0 || lost.Of == 0)
}

// seedList names seeds: "seed 5", "seeds 5 and 25", "seeds 5, 9 and 25".
func seedList(seeds []uint64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("seed %d", seeds[0])
	}
	s := "seeds "
	for i, n := range seeds {
		switch {
		case i == len(seeds)-1:
			s += fmt.Sprintf(" and %d", n)
		case i > 0:
			s += fmt.Sprintf(", %d", n)
		default:
			s += fmt.Sprint(n)
		}
	}
	return s
}

// pass is the PASS line of a run with no failing or inconclusive seed: it
// names only what was judged.
func (t *accountTally) pass() string {
	dup, lost := t.total(properties.Duplicate), t.total(properties.Lost)
	if dup.Complete() && lost.Complete() {
		return "PASS: every submission inserted at most once and never silently lost"
	}
	line := "PASS on what was judged: no submission inserted twice or silently lost ("
	if !dup.Complete() {
		line += fmt.Sprintf("at most once judged against a transcript for %d of %d submissions, from the Agent's answers for %d; ", dup.Judged, dup.Of, dup.Partly)
	}
	if !lost.Complete() {
		line += fmt.Sprintf("never silently lost judged for %d of %d; ", lost.Judged, lost.Of)
	}
	return line[:len(line)-2] + ")"
}
