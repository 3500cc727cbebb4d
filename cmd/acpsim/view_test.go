package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pageModel reads the model a page written by acpsim view carries.
func pageModel(t *testing.T, page string) (m struct {
	Shown, Total int
	Window       string
	Verdict      string
}) {
	t.Helper()
	_, rest, ok := strings.Cut(page, `<script type="application/json" id="model">`)
	body, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatalf("no model in the page:\n%.500s", page)
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("model: %v", err)
	}
	return m
}

// view writes one page per trace: to -o, next to the trace by default, or
// to stdout with -o -; --max-events (or its twin) cuts a long trace to a
// window the page describes, and --all shows everything.
func TestViewWritesThePageOfATrace(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "naive.ndjson")
	// 20 prompts make a trace longer than the default cap, whatever its
	// verdict (a naive Client usually duplicates some).
	if code, _, errOut := run(t, "run", "--seed", "1", "--policy", "naive", "--prompts", "20", "--trace", trace); code != exitOK && code != exitAnomaly {
		t.Fatalf("setup run: exit %d: %s", code, errOut)
	}
	out := filepath.Join(dir, "run.html")
	code, stdout, stderr := run(t, "view", trace, "-o", out)
	if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "wrote "+out+": ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := pageModel(t, string(page))
	if m.Total <= 400 || m.Shown != 400 || !strings.Contains(m.Window, "--all") || !strings.HasSuffix(stdout, "; "+m.Verdict+"\n") {
		t.Errorf("default cap: shown %d of %d, window %q, verdict %q, stdout %q", m.Shown, m.Total, m.Window, m.Verdict, stdout)
	}

	if code, _, stderr := run(t, "view", "--all", trace, "-o", out); code != exitOK {
		t.Fatalf("--all: exit %d: %s", code, stderr)
	}
	page, _ = os.ReadFile(out)
	if m := pageModel(t, string(page)); m.Shown != m.Total || m.Window != "" {
		t.Errorf("--all: shown %d of %d, window %q", m.Shown, m.Total, m.Window)
	}

	t.Setenv("ACPSIM_MAX_EVENTS", "50")
	if code, _, stderr := run(t, "view", trace); code != exitOK {
		t.Fatalf("default -o: exit %d: %s", code, stderr)
	}
	page, err = os.ReadFile(filepath.Join(dir, "naive.html"))
	if err != nil {
		t.Fatalf("no page next to the trace: %v", err)
	}
	if m := pageModel(t, string(page)); m.Shown > 50 || m.Shown < 40 {
		t.Errorf("ACPSIM_MAX_EVENTS=50: shown %d", m.Shown)
	}

	code, stdout, _ = run(t, "view", "--max-events", "0", trace, "-o", "-")
	if code != exitOK || !strings.HasPrefix(stdout, "<!DOCTYPE html>") {
		t.Fatalf("-o -: exit %d, stdout %.100q", code, stdout)
	}
	if m := pageModel(t, stdout); m.Shown != m.Total {
		t.Errorf("--max-events 0 over ACPSIM_MAX_EVENTS=50: shown %d of %d", m.Shown, m.Total)
	}
}

// Bad input gets one line on stderr and exit 2, and no page is written.
func TestViewBadInputIsOneLineAndExit2(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "ok.ndjson")
	if code, _, _ := run(t, "run", "--prompts", "1", "--trace", trace); code != exitOK {
		t.Fatalf("setup run: exit %d", code)
	}
	garbage := filepath.Join(dir, "garbage.ndjson")
	os.WriteFile(garbage, []byte("not a trace\n"), 0o644)
	full, _ := os.ReadFile(trace)
	lines := strings.SplitAfter(string(full), "\n")
	broken := filepath.Join(dir, "broken.ndjson")
	os.WriteFile(broken, []byte(lines[0]+lines[1]+`{"t":1,"seq":2,"kind":"teleport"}`+"\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing trace", []string{"view", filepath.Join(dir, "missing.ndjson"), "-o", filepath.Join(dir, "a.html")}, "no such file"},
		{"not a trace", []string{"view", garbage, "-o", filepath.Join(dir, "a.html")}, "garbage.ndjson:1:"},
		{"malformed event", []string{"view", broken, "-o", filepath.Join(dir, "a.html")}, "broken.ndjson:3:"},
		{"trace is a directory", []string{"view", dir, "-o", filepath.Join(dir, "a.html")}, "is a directory"},
		{"output directory missing", []string{"view", trace, "-o", filepath.Join(dir, "nope", "a.html")}, "directory " + filepath.Join(dir, "nope") + " does not exist"},
		{"output is a directory", []string{"view", trace, "-o", dir}, "is a directory, expected an HTML file name"},
		{"output under a file", []string{"view", trace, "-o", filepath.Join(trace, "a.html")}, "is not a directory"},
		{"output is the trace", []string{"view", trace, "-o", trace}, "is the trace itself"},
		{"negative cap", []string{"view", trace, "--max-events", "-1"}, "--max-events -1"},
		{"no trace", []string{"view"}, "accepts 1 arg(s), received 0"},
		{"two traces", []string{"view", trace, trace}, "accepts 1 arg(s), received 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (stdout %q)", code, exitUsage, stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "acpsim: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q: want one line starting acpsim: containing %q", stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "a.html")); err == nil {
		t.Errorf("a page was written for bad input")
	}
}
