package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// maxHelpLine is the longest line a --help may print: one flag, one line.
const maxHelpLine = 160

// commands is every command of acpsim but the root and the help topics.
func commands(t *testing.T) []*cobra.Command {
	t.Helper()
	var out []*cobra.Command
	for _, c := range newRoot().Commands() {
		if c.Runnable() {
			out = append(out, c)
		}
	}
	if len(out) < 19 {
		t.Fatalf("found %d commands, expected every command (at least 19)", len(out))
	}
	return out
}

func TestEveryHelpLineIsShortAndEveryFlagSaysWhatItDoes(t *testing.T) {
	for _, c := range append(commands(t), newRoot()) {
		name := c.Name()
		args := []string{name, "--help"}
		if c.HasSubCommands() {
			args = []string{"--help"}
		}
		code, out, errOut := run(t, args...)
		if code != exitOK || !strings.Contains(out, "Usage:") {
			t.Fatalf("acpsim %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > maxHelpLine {
				t.Errorf("acpsim %s: a %d-character line (at most %d):\n%s", strings.Join(args, " "), n, maxHelpLine, line)
			}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.TrimSpace(f.Usage) == "" {
				t.Errorf("acpsim %s --%s has no description", name, f.Name)
			}
		})
	}
}

func TestCataloguesAreListedByFlagAndByHelpTopic(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--list-agents"}, []string{"reference", "adapter", "memory-keys", "ignore-key"}},
		{[]string{"run", "--list-policies"}, []string{"none", "naive", "keyed", "lookup"}},
		{[]string{"agent", "--list-agents"}, []string{"reference", "memory-keys"}},
		{[]string{"check", "--list-policies"}, []string{"keyed"}}, // no Agent command needed
		{[]string{"swarm", "--list-agents"}, []string{"memory-keys"}},
		{[]string{"explore", "--list-policies"}, []string{"naive"}},
		{[]string{"matrix", "--list-policies"}, []string{"naive"}},
		{[]string{"help", "agents"}, []string{"reference", "memory-keys"}},
		{[]string{"help", "knobs"}, []string{"--busy", "breakpoint", "--runtime-dedupe", "--retain"}},
		{[]string{"help", "proxies"}, []string{"honest", "strip-key"}},
		{[]string{"help", "faults"}, []string{"kill=0.006", "check-client"}},
	} {
		code, out, errOut := run(t, tc.args...)
		if code != exitOK {
			t.Errorf("acpsim %s: exit %d, stderr %q", strings.Join(tc.args, " "), code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("acpsim %s does not list %q:\n%s", strings.Join(tc.args, " "), w, out)
			}
		}
		if strings.Contains(out, "PASS") || strings.Contains(out, "seed 1") {
			t.Errorf("acpsim %s ran the command instead of listing:\n%s", strings.Join(tc.args, " "), out)
		}
	}
}

func TestVersionPrintsModuleVersionAndCommit(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := run(t, args...)
		if code != exitOK || !strings.HasPrefix(out, "acpsim ") || !strings.Contains(out, " commit ") {
			t.Errorf("acpsim %s: exit %d, %q", args[0], code, out)
		}
	}
}
