// check's schema account: every frame of every seed checked as acpsim lint
// checks it (the official ACP v2 schema and the RFD's key rules, or the v1
// schema when initialize negotiated v1). A schema
// problem is a finding beside the verdict, not a failed property: whether a
// submission was lost or inserted twice is judged from what the frames say
// however they are shaped, and an Agent that writes `content` as an object
// loses nothing by it. The count line and the trace to lint make sure it is
// seen; the exit code stays the verdict's.

package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/traces"
)

// seedLint is what acpsim lint would find in one seed's trace.
type seedLint struct {
	frames int            // frames with at least one problem
	byRule map[string]int // problems per rule
}

// lintSeed checks every frame of a seed's trace.
func lintSeed(events []traces.Event) seedLint {
	l := seedLint{byRule: map[string]int{}}
	seen := map[int64]bool{}
	for _, p := range conform.TraceVersion(conform.Negotiated(events).Version, events) {
		l.byRule[p.Rule]++
		if !seen[p.Seq] {
			seen[p.Seq] = true
			l.frames++
		}
	}
	return l
}

// lintTally is the run's schema account, folded in seed order.
type lintTally struct {
	// v1: the seeds negotiated ACP v1, checked against its schema.
	v1            bool
	frames, seeds int
	byRule        map[string]int
	traces        []string // the traces of the seeds with problems, for the lint command
}

func (t *lintTally) add(s *checkSeed) {
	if s.lint.frames == 0 {
		return
	}
	t.frames += s.lint.frames
	t.seeds++
	if t.byRule == nil {
		t.byRule = map[string]int{}
	}
	for r, n := range s.lint.byRule {
		t.byRule[r] += n
	}
	if s.trace != "" {
		t.traces = append(t.traces, s.trace)
	}
}

// write prints the one schema line.
func (t *lintTally) write(out io.Writer) {
	if t.frames == 0 && t.v1 {
		fmt.Fprintln(out, "schema: every frame conforms to ACP v1 (as acpsim lint checks; the RFD's key rules are v2's)")
		return
	}
	if t.frames == 0 {
		fmt.Fprintln(out, "schema: every frame conforms to ACP v2 and the RFD's key rules (as acpsim lint checks)")
		return
	}
	rules := make([]string, 0, len(t.byRule))
	for r, n := range t.byRule {
		rules = append(rules, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(rules)
	broken := "ACP v2 or the RFD's key rules"
	if t.v1 {
		broken = "ACP v1"
	}
	fmt.Fprintf(out, "schema: %d %s in %d %s break %s (%s), a finding beside the verdict: %s\n",
		t.frames, plural(t.frames, "frame"), t.seeds, plural(t.seeds, "seed"), broken, strings.Join(rules, ", "), t.command())
}

// command is the acpsim lint command that lists the problems.
func (t *lintTally) command() string {
	if len(t.traces) == 0 {
		return "acpsim lint TRACE (write the traces with --trace-dir)"
	}
	return "acpsim lint " + strings.Join(t.traces, " ")
}
