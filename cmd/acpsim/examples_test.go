package main

// Every command example a user can copy is run, and its exit code checked:
// the command lines of README.md's sh and console blocks and every --help
// Example of every command, read from the cobra tree as built now, so the
// test follows the texts when they change.
//
// The convention, for README and --help alike:
//   - A line is a command when it starts with acpsim (after VAR=value
//     assignments); in a console block, after "$ ". "go run ./cmd/acpsim"
//     is acpsim. Other lines (make test, output) are not run.
//   - A comment on the line that says "exit N" claims exit code N; a line
//     claiming nothing claims 0.
//   - The lines of one README block, or of one command's Example, run in
//     order in one fresh directory, so an example may use a file an earlier line of
//     the same block wrote; input files no line writes come from
//     exampleInputs, and that table says how each is made.
//   - Placeholders for the reader's own programs (./my-agent, ./my-adapter)
//     stand for the reference ones (examplePlaceholders); files under /tmp
//     and ~ land in the test's directory.
//   - A few examples cannot run here (a server that runs until stopped, an
//     Agent at a URL the reader runs); exampleNotRun names each and why.
//   - The examples are meant to be cheap; the commands whose examples run
//     real processes in real time, or every policy against every design,
//     run smaller here, as exampleOverrides says, and still must exit as
//     claimed.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// example is one command line a user may copy, and the exit code it claims.
type example struct {
	where string // README.md:LINE or "acpsim CMD --help"
	line  string // as written
	cmd   string // as run: acpsim for go run, placeholders replaced
	exit  int
	// shown is the output a README console block shows under it
	// (examples_output_test.go); overridden: the test runs it with other
	// flags, so that output is another run's.
	shown      []string
	overridden bool
}

// exampleGroup is the examples that run in order in one directory.
type exampleGroup struct {
	name     string
	examples []example
}

// examplePlaceholders are the reader's own programs in the examples, each
// with the program of this repository that stands for it.
var examplePlaceholders = []struct{ placeholder, stand string }{
	{"./my-agent --flag", "acpsim agent"},
	{"my-agent --its-flags", "acpsim agent"},
	{"./my-agent", "acpsim agent"},
	{"./my-adapter", "node interop/keyed-client-adapter.mjs"},
	{"./my-proxy {agent}", "env {agent}"},
	{"systemctl restart my-agent", "true"},
}

// exampleNotRun are the examples that cannot run in a test, by a substring of
// their line, with the reason.
var exampleNotRun = []struct{ match, why string }{
	{"--listen ", "serves Streamable HTTP and WebSocket until it is stopped"},
	{"--url ", "needs an Agent the reader runs at that URL"},
	// README's "Reproducing a real-mode failure": check_reproduce_test.go
	// runs these very commands (with 20 repeats beside busy cores).
	{"keys-per-process-agent.py", "check_reproduce_test.go runs it, 30 seeds"},
	{"traces/check-seed-2.ndjson", "check_reproduce_test.go re-drives and shrinks the planted bug's failing seed"},
	{"--schedule small.ndjson --repeat", "check_reproduce_test.go re-drives the shrunk schedule 10 times"},
}

// exampleOverrides shrink the examples of a command, by its name: flags
// put after the example's own (the last of a flag wins), before any "--".
var exampleOverrides = map[string]struct{ flags, why string }{
	"check":        {"--seeds 6 --start-timeout 30s", "real Agent processes in real time: a seed takes about a second; --keys memory first duplicates at seed 4; a Node Agent takes a second to answer initialize alone, and more than the default 5 s beside the other tests' processes on two cores"},
	"check-client": {"--seeds 2", "real Node processes in real time, restarted often"},
	"conform":      {"--run '^rfd-[12]$'", "30 cases, each starting Agent processes in real time; rfd-2 is the one --keys memory fails"},
	"matrix":       {"--seeds 2 --shrink 0", "every policy against every design over every link: 200 seeds and their shrinking take minutes"},
	"mutants":      {"--runs 1", "every mutant five times takes CPU-seconds; once still catches each"},
}

// override applies exampleOverrides to cmd, an acpsim command line.
func override(cmd string) string {
	words := strings.Fields(cmd)
	for len(words) > 0 && envAssign.MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) < 2 {
		return cmd
	}
	o, ok := exampleOverrides[words[1]]
	if !ok {
		return cmd
	}
	for _, sep := range []string{" -- ", " > ", " | "} {
		if i := strings.Index(cmd, sep); i >= 0 {
			return cmd[:i] + " " + o.flags + cmd[i:]
		}
	}
	return cmd + " " + o.flags
}

// exampleInputs are the files examples read that no earlier line of their
// block writes, by the word the example uses, with the acpsim commands that
// make them in the example's directory.
var exampleInputs = map[string][]string{
	"designs.txt":                         {"printf 'mine = busy:reject, keys:memory  # rejects, forgets\\n' > designs.txt"},
	"a.ndjson":                            {"acpsim run --seed 7 --trace a.ndjson"},
	"seed1.ndjson":                        {"acpsim run --seed 1 --trace seed1.ndjson"},
	"run.ndjson":                          {"acpsim run --seed 7 --policy naive --trace run.ndjson"},
	"big.ndjson":                          {"acpsim run --seed 3 --policy none --trace big.ndjson"},
	"small.ndjson":                        {"acpsim run --seed 3 --policy naive --prompts 2 --trace small.ndjson"},
	"acpsim-failures/seed-7.ndjson":       {"acpsim run --seed 7 --agent ignore-key --trace acpsim-failures/seed-7.ndjson"},
	"acpsim-failures/seed-16.ndjson":      {"acpsim run --seed 16 --agent ignore-key --trace acpsim-failures/seed-16.ndjson"},
	"acpsim-failures/*.ndjson":            {"acpsim run --seed 7 --trace acpsim-failures/seed-7.ndjson"},
	"acpsim-failures/check-seed-4.ndjson": {"acpsim check --seeds 1 --first-seed 4 --trace-dir acpsim-failures -- acpsim agent"},
	// The names acpsim gives failure traces (a run id of when it ran).
	"acpsim-failures/run-20261204T152824-seed-7.ndjson":   {"acpsim run --seed 7 --agent ignore-key --trace acpsim-failures/run-20261204T152824-seed-7.ndjson"},
	"acpsim-failures/run-20261204T152824-seed-16.ndjson":  {"acpsim run --seed 16 --agent ignore-key --trace acpsim-failures/run-20261204T152824-seed-16.ndjson"},
	"acpsim-failures/check-20261204T152824-seed-4.ndjson": {"acpsim check --seeds 1 --first-seed 4 --trace-dir acpsim-failures -- acpsim agent", "mv acpsim-failures/check-seed-4.ndjson acpsim-failures/check-20261204T152824-seed-4.ndjson"},
	"check-seed-1.ndjson":                                 {"acpsim check --seeds 1 --trace-dir . -- acpsim agent --agent fresh-live-id-on-retry"},
	"acpsim-ledger.ndjson":                                {"acpsim swarm --seeds 20 --policy naive --ledger acpsim-ledger.ndjson"},
	"shards/*.json":                                       {"acpsim swarm --seeds 20 --shard 0/2 --summary-json shards/s0.json", "acpsim swarm --seeds 20 --shard 1/2 --summary-json shards/s1.json"},
}

var (
	exitClaim  = regexp.MustCompile(`\bexit (\d+)\b`)
	envAssign  = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=\S*$`)
	fenceStart = regexp.MustCompile("^```(\\w*)\\s*$")
)

// splitComment cuts a shell line at its comment: a # at the start of a word,
// outside quotes.
func splitComment(line string) (cmd, comment string) {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimSpace(line[:i]), line[i+1:]
		}
	}
	return strings.TrimSpace(line), ""
}

// parseExample reads one line; ok is false when it is not an acpsim command.
func parseExample(where, line string) (example, bool) {
	cmd, comment := splitComment(line)
	cmd = strings.Replace(cmd, "go run ./cmd/acpsim", "acpsim", 1)
	words := strings.Fields(cmd)
	for len(words) > 0 && envAssign.MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 || words[0] != "acpsim" {
		return example{}, false
	}
	e := example{where: where, line: strings.TrimSpace(line), cmd: cmd}
	if m := exitClaim.FindStringSubmatch(comment); m != nil {
		e.exit, _ = strconv.Atoi(m[1])
	}
	for _, p := range examplePlaceholders {
		e.cmd = strings.ReplaceAll(e.cmd, p.placeholder, p.stand)
	}
	before := e.cmd
	e.cmd = override(e.cmd)
	e.overridden = e.cmd != before
	return e, true
}

// readmeExamples are the command lines of README.md's sh and console
// blocks, a group per block.
func readmeExamples(t *testing.T) []exampleGroup {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []exampleGroup
	var g *exampleGroup
	in, lang := false, ""
	shownBy := -1 // the example whose output a console block's next lines show
	for i, line := range strings.Split(string(b), "\n") {
		if m := fenceStart.FindStringSubmatch(line); m != nil {
			if in = !in; in {
				lang = m[1]
				g = &exampleGroup{name: fmt.Sprintf("README.md:%d", i+1)}
				shownBy = -1
			} else if len(g.examples) > 0 {
				out = append(out, *g)
			}
			continue
		}
		if !in {
			continue
		}
		switch lang {
		case "sh":
		case "console":
			var ok bool
			if line, ok = strings.CutPrefix(line, "$ "); !ok {
				if shownBy >= 0 {
					g.examples[shownBy].shown = append(g.examples[shownBy].shown, line) // its output
				}
				continue
			}
			shownBy = -1 // until this line proves an acpsim command
		default:
			continue
		}
		if e, ok := parseExample(fmt.Sprintf("README.md:%d", i+1), line); ok {
			g.examples = append(g.examples, e)
			shownBy = len(g.examples) - 1
		}
	}
	return out
}

// helpExamples are the Example lines of every command, one group each.
func helpExamples() []exampleGroup {
	var out []exampleGroup
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example != "" {
			g := exampleGroup{name: strings.ReplaceAll(c.CommandPath(), " ", "_")}
			for _, line := range strings.Split(c.Example, "\n") {
				if e, ok := parseExample(c.CommandPath()+" --help", line); ok {
					g.examples = append(g.examples, e)
				}
			}
			out = append(out, g)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	return out
}

func TestEveryExampleClaimsItsExitCode(t *testing.T) {
	t.Parallel()
	requireNode(t)
	bin := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nACPSIM_TEST_AS_MAIN=1 exec %q \"$@\"\n", os.Args[0])
	if err := os.WriteFile(filepath.Join(bin, "acpsim"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	readme := readmeExamples(t)
	groups := append(readme, helpExamples()...)
	inReadme, total := 0, 0
	for i, g := range groups {
		if i < len(readme) {
			inReadme += len(g.examples)
		}
		total += len(g.examples)
	}
	if inReadme < 10 || total < 50 {
		t.Fatalf("%d README examples, %d in all: is the convention still what this test reads?", inReadme, total)
	}
	// The groups run side by side, more of them than cores: most examples
	// wait on real processes and timeouts. Those with the most real-time
	// examples start first, as they take longest.
	slices.SortStableFunc(groups, func(a, b exampleGroup) int { return realTime(b) - realTime(a) })
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(g.name, func(t *testing.T) { runExampleGroup(t, bin, g) })
		}()
	}
	wg.Wait()
}

// runExampleGroup runs g's examples in order in a fresh directory.
func runExampleGroup(t *testing.T, bin string, g exampleGroup) {
	dir := t.TempDir()
	interop, err := filepath.Abs(interopDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(interop, filepath.Join(dir, "interop")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir)
	made := map[string]bool{}
	for _, e := range g.examples {
		if why := notRun(e.line); why != "" {
			t.Logf("%s: not run (%s): %s", e.where, why, e.line)
			continue
		}
		cmd := strings.ReplaceAll(e.cmd, "/tmp/", dir+"/tmp/")
		os.MkdirAll(filepath.Join(dir, "tmp"), 0o755)
		for word, makers := range exampleInputs {
			if made[word] || !readsInput(cmd, word) {
				continue
			}
			made[word] = true
			os.MkdirAll(filepath.Join(dir, filepath.Dir(word)), 0o755)
			for _, m := range makers {
				if code, out, _ := runLine(dir, env, m); code > 1 {
					t.Fatalf("%s: making %s with %q: exit %d\n%s", e.where, word, m, code, out)
				}
			}
		}
		start := time.Now()
		code, out, timedOut := runLine(dir, env, cmd)
		took := time.Since(start).Round(100 * time.Millisecond)
		switch {
		case timedOut:
			t.Errorf("%s: %s\n  still running after %s: an example must be cheap", e.where, e.line, exampleTimeout)
		case code != e.exit && code == exitUsage:
			t.Errorf("%s: %s\n  exit 2 (bad usage or input; a file no earlier line of the block writes belongs in exampleInputs); output ends:\n%s", e.where, e.line, outputEnd(out, 15))
		case code != e.exit:
			t.Errorf("%s: %s\n  exit %d, but the example claims %d (a trailing comment \"exit N\", else 0); output ends:\n%s", e.where, e.line, code, e.exit, outputEnd(out, 15))
		default:
			t.Logf("%s: exit %d in %s: %s", e.where, code, took, e.line)
			compareShownOutput(t, e, out)
		}
	}
}

// exampleTimeout bounds one example; the examples are meant to take seconds.
const exampleTimeout = 90 * time.Second

// runLine runs line with sh in dir, stdin empty, and returns its exit code and
// its stdout and stderr together.
func runLine(dir string, env []string, line string) (code int, out string, timedOut bool) {
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", line)
	c.Dir, c.Env = dir, env
	// A timeout kills the whole group: sh, acpsim and the Agents it started.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 5 * time.Second
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	if ctx.Err() != nil {
		return -1, b.String(), true
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), b.String(), false
	} else if err != nil {
		return -1, err.Error(), false
	}
	return 0, b.String(), false
}

// realTime counts g's examples that run real processes in real time.
func realTime(g exampleGroup) int {
	n := 0
	for _, e := range g.examples {
		if w := strings.Fields(e.cmd); len(w) > 1 && (w[1] == "check" || w[1] == "check-client" || w[1] == "conform") {
			n++
		}
	}
	return n
}

// outputFlags are the words after which a file is written, not read.
var outputFlags = map[string]bool{"-o": true, "--trace": true, "--summary-json": true, ">": true, "--plot": true, "--junit": true, "--traces": true}

// readsInput reports whether cmd reads the file word names.
func readsInput(cmd, word string) bool {
	words := strings.Fields(cmd)
	for i, w := range words {
		if w == word && (i == 0 || !outputFlags[words[i-1]]) {
			return true
		}
	}
	return false
}

func notRun(line string) string {
	for _, n := range exampleNotRun {
		if strings.Contains(line, n.match) {
			return n.why
		}
	}
	return ""
}

func outputEnd(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}
