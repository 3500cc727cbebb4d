package main

// The output a README console block shows under a command is compared with
// what the command prints now, by content, not only its exit code (issue
// 28): a README whose figures went stale fails. The convention:
//   - The lines after a "$ " line, up to the next one, are its output.
//   - A line that is only "…" (or "...") stands for any number of lines
//     left out; a "…" inside a line stands for any text there.
//   - Durations (372ms, 1.5s, 9m28s) are not compared: they are the
//     machine's, not the build's.
//   - The lines shown must appear in that order; lines between them are
//     allowed only where a "…" line says so; the shown output may start
//     after the command's does (progress on stderr) and stop before it.
//   - A command whose flags the test changes (exampleOverrides) prints
//     another run's output, so its output is not compared.
// When a change to acpsim changes the figures, the failure prints the
// output as it is now: paste it over the block, keeping the "…" lines.

import (
	"regexp"
	"strings"
	"testing"
)

// durations are the figures of the clock in an output line.
var durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m|h)(\d+(\.\d+)?(ms|s|m))*\b`)

func normalizeOutput(line string) string {
	return strings.TrimRight(durations.ReplaceAllString(line, "<time>"), " ")
}

// elided reports whether a shown line stands for lines left out.
func elided(line string) bool {
	t := strings.TrimSpace(line)
	return t == "…" || t == "..."
}

// lineMatches reports whether got is the shown line want, a "…" in want
// standing for any text.
func lineMatches(want, got string) bool {
	want, got = normalizeOutput(want), normalizeOutput(got)
	parts := strings.Split(want, "…")
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last {
			return strings.HasSuffix(rest, p) && len(rest) >= len(p)
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return true
}

// outputMismatch compares the shown output with the output got; it returns
// "" when they agree, else what the first disagreement is.
func outputMismatch(shown []string, got string) string {
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	// What comes before the first line shown (progress on stderr, the
	// timing line) may be left out.
	i := 0
	skip := true
	for _, w := range shown {
		if elided(w) {
			skip = true
			continue
		}
		found := false
		for ; i < len(lines); i++ {
			if lineMatches(w, lines[i]) {
				found = true
				i++
				break
			}
			if !skip && strings.TrimSpace(w) != "" {
				return "the README shows\n      " + w + "\n    where the command printed\n      " + lines[i]
			}
			if !skip {
				break // a shown blank line with nothing blank here
			}
		}
		if !found {
			return "the README shows\n      " + w + "\n    which the command's output does not hold (in order)"
		}
		skip = false
	}
	return ""
}

func TestOutputMatching(t *testing.T) {
	got := "seed 3 · 10 prompts\n\nduplicate: s1 was inserted twice in 372ms\nfaults: kill 1/9\nFAIL\n"
	for _, c := range []struct {
		shown []string
		ok    bool
	}{
		{[]string{"seed 3 · 10 prompts", "", "duplicate: s1 was inserted twice in 5s"}, true},
		{[]string{"seed 3 · 10 prompts", "…", "FAIL"}, true},
		{[]string{"seed 3 · … prompts", "", "duplicate: … twice…"}, true},
		{[]string{"seed 3 · 10 prompts", "FAIL"}, false},   // lines left out without a "…"
		{[]string{"seed 4 · 10 prompts"}, false},           // another figure
		{[]string{"…", "faults: kill 2/9"}, false},         // a stale count
		{[]string{"…", "faults: kill 1/9", "FAIL"}, true},  // in order
		{[]string{"…", "FAIL", "faults: kill 1/9"}, false}, // out of order
	} {
		if bad := outputMismatch(c.shown, got); (bad == "") != c.ok {
			t.Errorf("%q: mismatch %q, want ok %v", c.shown, bad, c.ok)
		}
	}
}

// compareShownOutput fails t when e shows output the command did not print.
func compareShownOutput(t *testing.T, e example, got string) {
	t.Helper()
	if len(e.shown) == 0 || e.overridden {
		return
	}
	for len(e.shown) > 0 && strings.TrimSpace(e.shown[len(e.shown)-1]) == "" {
		e.shown = e.shown[:len(e.shown)-1]
	}
	if bad := outputMismatch(e.shown, got); bad != "" {
		t.Errorf("%s: %s\n  its output is not what the README shows: %s\n  the command's output now:\n%s", e.where, e.line, bad, outputEnd(got, 60))
	}
}
