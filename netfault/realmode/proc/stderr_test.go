package proc

import (
	"fmt"
	"strings"
	"testing"
)

// The verdict's line is the error, not whatever the runtime printed last,
// and the excerpt keeps the error line even when a long stack follows it.
func TestStderrExcerptFindsTheErrorLine(t *testing.T) {
	stack := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "    at frame%d (file.js:%d:1)\n", i, i)
		}
		return b.String()
	}
	for _, c := range []struct {
		name, stderr, headline string
		first                  string // the excerpt's first line
		lines, total           int
	}{
		{"node", "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module 'nope'\n" + stack(3) + "\nNode.js v20.20.2\n",
			"Error: Cannot find module 'nope'", "node:internal/modules/cjs/loader:1228", 8, 8},
		{"python", "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nModuleNotFoundError: No module named 'x'\n",
			"ModuleNotFoundError: No module named 'x'", "Traceback (most recent call last):", 3, 3},
		{"go panic, long stack", "starting\npanic: runtime error: index out of range\n\ngoroutine 1 [running]:\n" + stack(30),
			"panic: runtime error: index out of range", "panic: runtime error: index out of range", 20, 33},
		{"no error line", "one\ntwo\n", "two", "one", 2, 2},
		{"nothing", "\n  \n", "", "", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			headline, lines, total := StderrExcerpt(c.stderr)
			if headline != c.headline || len(lines) != c.lines || total != c.total {
				t.Fatalf("got %q, %d lines, total %d; want %q, %d, %d\n%s", headline, len(lines), total, c.headline, c.lines, c.total, strings.Join(lines, "\n"))
			}
			if len(lines) > 0 && lines[0] != c.first {
				t.Errorf("excerpt starts %q, want %q", lines[0], c.first)
			}
			if c.name == "go panic, long stack" && (lines[1] != "…" || !strings.HasPrefix(lines[len(lines)-1], "    at frame29")) {
				t.Errorf("want the panic line, …, and the last 20 lines:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// A process's stderr is kept up to its last megabyte, saying what was cut.
func TestStderrTailKeepsTheEnd(t *testing.T) {
	var b StderrTail
	line := strings.Repeat("x", 1023) + "\n"
	for range 3 * 1024 {
		b.Write([]byte(line))
	}
	b.Write([]byte("the end\n"))
	s := b.String()
	if !strings.HasPrefix(s, "[… the first ") || !strings.HasSuffix(s, "\nthe end") || len(s) > stderrKeep+100 {
		t.Fatalf("kept %d bytes starting %.60q ending %q", len(s), s, s[len(s)-20:])
	}
}
