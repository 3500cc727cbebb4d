package main

import (
	"regexp"
	"strings"
	"testing"
)

// Help reads as prose: no Go slice, flags before the Agent's command in
// usage lines, one default per flag, and the root names every link.
func TestHelpSaysItPlainly(t *testing.T) {
	help := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(t, append(args, "--help")...)
		if code != exitOK {
			t.Fatalf("acpsim %s --help: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out
	}
	if out := help("tap"); regexp.MustCompile(`\[lost|unattributable\]`).MatchString(out) || !strings.Contains(out, "lost, session-lost, phantom, unresolved, unattributable.") {
		t.Errorf("tap --help: want the kinds a tap cannot judge as a plain list:\n%s", out)
	}
	for _, c := range []string{"tap", "proxy", "check", "conform"} {
		usage := regexp.MustCompile(`(?m)^Usage:\n  (.*)$`).FindStringSubmatch(help(c))
		if usage == nil || strings.Contains(usage[1], "--") && strings.Index(usage[1], "[flags]") > strings.Index(usage[1], "-- ") {
			t.Errorf("%s --help: usage line %q, want [flags] before -- AGENT-COMMAND", c, usage)
		}
	}
	for _, line := range strings.Split(help("explore"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--delays ") && strings.Count(line, "default") != 1 {
			t.Errorf("explore --help: want one default for --delays:\n%s", line)
		}
	}
	root := help()
	for _, link := range []string{"stdio", "Streamable\nHTTP", "WebSocket"} {
		if !strings.Contains(root, link) {
			t.Errorf("acpsim --help does not name the %q link:\n%s", link, root)
		}
	}
}
