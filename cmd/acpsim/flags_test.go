package main

import (
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// twinValue is a value a flag's twin can set that differs from its default.
func twinValue(f *pflag.Flag) string {
	switch f.Name {
	case "session-contract": // its values are checked as they are set
		return "process"
	case "protocol": // likewise
		return "1"
	}
	switch f.Value.Type() {
	case "bool":
		if f.DefValue == "true" {
			return "false"
		}
		return "true"
	case "int", "int64", "uint", "uint64":
		if f.DefValue == "3" {
			return "4"
		}
		return "3"
	case "float64":
		return "0.5"
	case "duration", "durationSlice":
		return "7s"
	}
	return "x"
}

// Every flag of every command has an environment twin, applied before the
// command checks its arguments (check needs --url or an Agent command, so
// ACPSIM_URL was ignored when the twins came after that check).
func TestEveryFlagHasAnEnvironmentTwin(t *testing.T) {
	for _, c := range commands(t) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return // a hidden flag is another's alias
			}
			name, env, value := c.Name(), envName(f.Name), twinValue(f)
			t.Run(name+"/"+env, func(t *testing.T) {
				t.Setenv(env, value)
				var got *pflag.Flag
				// The arguments some command must get to pass its check.
				for _, args := range [][]string{nil, {"x"}, {"--", "x"}} {
					root := newRoot()
					cmd, _, err := root.Find([]string{name})
					if err != nil {
						t.Fatal(err)
					}
					cmd.RunE = func(cmd *cobra.Command, _ []string) error {
						got = cmd.Flags().Lookup(f.Name)
						return nil
					}
					root.SetArgs(append([]string{name}, args...))
					root.SetOut(&strings.Builder{})
					root.SetErr(&strings.Builder{})
					if root.Execute() == nil {
						break
					}
				}
				if got == nil {
					t.Fatalf("%s=%s: acpsim %s never ran", env, value, name)
				}
				if !got.Changed || got.Value.String() == got.DefValue {
					t.Errorf("%s=%s: acpsim %s --%s is %s (its default %s)", env, value, name, f.Name, got.Value, got.DefValue)
				}
			})
		})
	}
}

func TestACPSIM_URLChecksTheRemoteAgent(t *testing.T) {
	t.Setenv("ACPSIM_URL", "ftp://127.0.0.1:1/acp")
	code, _, errOut := run(t, "check")
	if code != exitUsage || !strings.Contains(errOut, `--url "ftp://127.0.0.1:1/acp"`) {
		t.Fatalf("exit %d, stderr %q: expected check to take ACPSIM_URL as --url (and refuse its scheme)", code, errOut)
	}
}

// acpsim agent runs one Agent: it takes which Agent, its knobs and where it
// serves, and refuses the simulation's flags instead of ignoring them.
func TestAgentTakesOnlyTheAgentsFlags(t *testing.T) {
	root := newRoot()
	cmd, _, _ := root.Find([]string{"agent"})
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	want := []string{"agent", "auth", "binding", "busy", "close-missing", "compare", "create-keys", "db", "held-on-disconnect", "in-progress", "key-window", "keys",
		"list-agents", "listen", "live-only", "load-session", "message-ids", "prompt-errors", "prompt-errors-seed", "protocol", "retain", "runtime-dedupe", "sessions-in", "store"}
	if !slices.Equal(names, want) {
		t.Errorf("acpsim agent's flags:\n got %v\nwant %v", names, want)
	}
	for _, flag := range []string{"--policy=naive", "--prompts=3", "--fault-rates=kill=0.1", "--link=ws", "--seed=2", "--clients=2",
		"--timeout=1s", "--cancels=1", "--skip=s1", "--nodes=2", "--proxies=1", "--sessions=3", "--session-contract=durable"} {
		code, _, errOut := run(t, "agent", flag)
		if code != exitUsage || !strings.Contains(errOut, "unknown flag: "+strings.Split(flag, "=")[0]) {
			t.Errorf("acpsim agent %s: exit %d, stderr %q; expected an unknown flag", flag, code, errOut)
		}
	}
}

// -j is --jobs wherever work runs side by side, with the same meaning.
func TestJobsIsTheSameFlagOnEveryParallelCommand(t *testing.T) {
	for _, name := range []string{"swarm", "explore", "matrix", "mutants", "check", "check-client"} {
		root := newRoot()
		cmd, _, _ := root.Find([]string{name})
		f := cmd.Flags().Lookup("jobs")
		if f == nil || f.Shorthand != "j" || f.DefValue != "0" || !strings.Contains(f.Usage, "0: one per core") {
			t.Errorf("acpsim %s: --jobs is %+v, expected -j, default 0 (one per core)", name, f)
		}
	}
	code, out, errOut := run(t, "mutants", "-j", "2", "--list")
	if code != exitOK || !strings.Contains(out, "memory-keys") {
		t.Errorf("acpsim mutants -j 2 --list: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "matrix", "-j", "-1")
	if code != exitUsage || !strings.Contains(errOut, "--jobs -1") {
		t.Errorf("acpsim matrix -j -1: exit %d, stderr %q", code, errOut)
	}
}

func TestVersionNamesTheCommitAndAModifiedTree(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "955108abb40e8cf0c77f23cd1b11005e819b74de"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionOf(bi), "acpsim v1.2.3 commit 955108abb40e8cf0c77f23cd1b11005e819b74de+modified"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := versionOf(&debug.BuildInfo{}), "acpsim (devel), no commit stamp (go build and go install in a git checkout record one unless -buildvcs=false, as GOFLAGS may set; go run does not)"; got != want {
		t.Errorf("without build info: got %q, want %q", got, want)
	}
	installed := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204152824-abcdef123456"}}
	if got, want := versionOf(installed), "acpsim v0.0.0-20261204152824-abcdef123456 commit abcdef123456 (from the module version; the build has no VCS stamp)"; got != want {
		t.Errorf("go install …@latest: got %q, want %q", got, want)
	}
}

// --proxy names what the proxies do: with no proxy it would test nothing
// while seeming to, so every command with the flag refuses it (exit 2, one
// line), given on the command line or as its twin.
func TestProxyModeWithoutProxiesIsRefused(t *testing.T) {
	t.Chdir(t.TempDir()) // a failing run writes acpsim-failures/ here
	const want = "acpsim: --proxy strip-key needs --proxies 1 or more (--proxies is 0)\n"
	n := 0
	for _, c := range commands(t) {
		if c.Flags().Lookup("proxy") == nil {
			continue
		}
		n++
		for _, twin := range []bool{false, true} {
			args := []string{c.Name(), "--proxy", "strip-key"}
			if twin {
				t.Setenv("ACPSIM_PROXY", "strip-key")
				args = args[:1]
			}
			if code, stdout, stderr := run(t, args...); code != exitUsage || stderr != want || stdout != "" {
				t.Errorf("acpsim %s (twin %v): exit %d, stderr %q, want 2 and %q", strings.Join(args, " "), twin, code, stderr, want)
			}
		}
	}
	if n < 3 { // run, swarm, explore
		t.Fatalf("%d commands have --proxy, want run, swarm and explore at least", n)
	}
	if code, _, stderr := run(t, "run", "--proxies", "1", "--proxy", "strip-key", "--prompts", "2"); code == exitUsage {
		t.Errorf("--proxies 1 --proxy strip-key refused: %s", stderr)
	}
}

// An unknown flag's hint names the help of the command it was given to,
// where that command's flags are listed: acpsim check --junt x points at
// acpsim check --help, not the root's.
func TestUnknownFlagHintNamesTheSubcommandsHelp(t *testing.T) {
	paths := []string{"acpsim"}
	for _, c := range newRoot().Commands() {
		if !c.DisableFlagParsing {
			paths = append(paths, c.CommandPath())
		}
	}
	for _, path := range paths {
		args := append(strings.Fields(path)[1:], "--junt", "x")
		code, _, errOut := run(t, args...)
		want := "run '" + path + " --help'"
		if code != exitUsage || !strings.Contains(errOut, "unknown flag: --junt") || !strings.Contains(errOut, want) {
			t.Errorf("%s --junt x: exit %d, stderr %q; expected exit 2, the unknown flag and %q", path, code, errOut, want)
		}
	}
}
