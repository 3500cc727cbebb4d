package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/properties/conform/suite"
)

// conformProcess runs `acpsim conform args…` as a process (this test
// binary acting as acpsim; "self" in args is it too), so tests can run side
// by side.
func conformProcess(t *testing.T, args ...string) (out string, code int) {
	t.Helper()
	for i, a := range args {
		if a == "self" {
			args[i] = os.Args[0]
		}
	}
	cmd := exec.Command(os.Args[0], append([]string{"conform"}, args...)...)
	cmd.Env = append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1")
	cmd.Dir = t.TempDir()
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return b.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return b.String(), 0
}

// caseLine matches a case's row of the table: id, verdict, title.
var caseLine = regexp.MustCompile(`(?m)^([a-z]+-[a-z0-9]+) +(PASS|FAIL|N/A|BLOCKED) +(.+)$`)

// caseVerdicts maps each case id in conform's table to its verdict.
func caseVerdicts(out string) map[string]string {
	v := map[string]string{}
	for _, m := range caseLine.FindAllStringSubmatch(out, -1) {
		v[m[1]] = m[2]
	}
	return v
}

func TestConformPassesTheReferenceAgentAndWritesJUnit(t *testing.T) {
	t.Parallel()
	junit := filepath.Join(t.TempDir(), "r.xml")
	out, code := conformProcess(t, "--junit", junit, "--", "self", "agent")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	v := caseVerdicts(out)
	if len(v) < 20 {
		t.Fatalf("%d cases in the table, want at least 20:\n%s", len(v), out)
	}
	for _, id := range []string{"rfd-1", "rfd-2", "rfd-3", "rfd-4", "rfd-5", "rfd-6", "rfd-7"} {
		if v[id] == "" {
			t.Errorf("the RFD trace %s is not in the table", id)
		}
	}
	// The reference holds busy prompts, so rfd-7 does not apply, and says why.
	if v["rfd-7"] != "N/A" || !strings.Contains(out, "holds prompts until the turn ends") {
		t.Errorf("rfd-7 is %s, want N/A with the reason:\n%s", v["rfd-7"], out)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("--junit wrote invalid XML: %v\n%s", err, b)
	}
	if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != len(v) || doc.Tests != len(v) {
		t.Fatalf("JUnit: %d suite(s), want 1 with one testcase per case (%d)", len(doc.Suites), len(v))
	}
	skipped := 0
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			t.Errorf("JUnit testcase %s failed: %s", c.Name, c.Failure.Message)
		}
		if c.Skipped != nil {
			skipped++
			if !strings.HasPrefix(c.Skipped.Message, "n/a: ") {
				t.Errorf("JUnit testcase %s skipped without the reason: %q", c.Name, c.Skipped.Message)
			}
		}
	}
	if skipped != doc.Skipped || skipped != strings.Count(out, "N/A ") {
		t.Errorf("JUnit says %d skipped, %d testcases skipped, the table %d n/a", doc.Skipped, skipped, strings.Count(out, "N/A "))
	}
}

// assertFailsNamingTheRule checks a failing run: exit 1, the failing cases
// each followed by the RFD sentence they check and the frames.
func assertFailsNamingTheRule(t *testing.T, out string, code int, mustFail ...string) {
	t.Helper()
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	cs, err := suite.Cases()
	if err != nil {
		t.Fatal(err)
	}
	v := caseVerdicts(out)
	for _, id := range mustFail {
		if v[id] != "FAIL" {
			t.Errorf("%s is %q, want FAIL", id, v[id])
		}
	}
	for _, c := range cs {
		if v[c.ID] != "FAIL" {
			continue
		}
		row := out[strings.Index(out, c.ID+" "):]
		if next := caseLine.FindAllStringIndex(row, 2); len(next) == 2 {
			row = row[:next[1][0]]
		}
		if !strings.Contains(row, c.Quote) || !strings.Contains(row, "frames:") {
			t.Errorf("the failure of %s does not name its rule and frames:\n%s", c.ID, row)
		}
	}
}

func TestConformFailsAnAgentThatKeepsKeysInMemory(t *testing.T) {
	t.Parallel()
	out, code := conformProcess(t, "--", "self", "agent", "--keys", "memory")
	assertFailsNamingTheRule(t, out, code, "rfd-3")
}

func TestConformFailsTheKeylessSDKAgent(t *testing.T) {
	requireNode(t)
	t.Parallel()
	out, code := conformProcess(t, "--", "node", filepath.Join(interopDir, "keyless-agent.mjs"))
	assertFailsNamingTheRule(t, out, code, "rfd-1", "key-4")
}

func TestConformFailsEveryMutantRunAsAnExecutable(t *testing.T) {
	t.Parallel()
	// The runs mostly wait on the Agent, so they go eight at a time.
	names := mutants.Names()
	type run struct {
		out  string
		code int
	}
	runs := make([]run, len(names))
	dir := t.TempDir()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(os.Args[0], "conform", "--", os.Args[0], "agent", "--agent", name)
			cmd.Env = append(os.Environ(), "ACPSIM_TEST_AS_MAIN=1")
			cmd.Dir = dir
			b, err := cmd.CombinedOutput()
			runs[i] = run{string(b), cmd.ProcessState.ExitCode()}
			if err != nil && cmd.ProcessState == nil {
				runs[i] = run{err.Error(), -1}
			}
		}()
	}
	wg.Wait()
	for i, name := range names {
		t.Run(name, func(t *testing.T) { assertFailsNamingTheRule(t, runs[i].out, runs[i].code) })
	}
}

func TestConformJSONAndRun(t *testing.T) {
	t.Parallel()
	out, code := conformProcess(t, "--format", "json", "--run", "^rfd-[12]$|fork", "--", "self", "agent")
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	var doc struct {
		Passed int
		Cases  []struct{ ID, Verdict, Quote string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--format json: %v\n%s", err, out)
	}
	var ids []string
	for _, c := range doc.Cases {
		ids = append(ids, c.ID+"="+c.Verdict)
		if c.Quote == "" {
			t.Errorf("%s has no quote in the JSON", c.ID)
		}
	}
	// The baselines the selected cases stand on run first; passed counts the cases.
	want := "baseline-init=pass baseline-new=pass baseline-turn=pass baseline-resume=pass rfd-1=pass rfd-2=pass fork-1=pass"
	if got := strings.Join(ids, " "); got != want || doc.Passed != 3 {
		t.Fatalf("--run selected %s (%d passed), want %s", got, doc.Passed, want)
	}
}

func TestConformBadUsageIsOneLineAndExit2(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--run", "([", "--", "self", "agent"},
		{"--run", "no-such-case", "--", "self", "agent"},
		{"--format", "yaml", "--", "self", "agent"},
		{},
		{"--url", "ftp://x/acp"},
		{"--restart", "true", "--", "self", "agent"},
		{"--url", "ws://127.0.0.1:1/acp", "--", "self", "agent"},
	} {
		out, code := conformProcess(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.HasPrefix(out, "acpsim: ") {
			t.Errorf("conform %v: exit %d, want 2 and one line:\n%s", args, code, out)
		}
	}
}

func TestConformARemoteAgentRestartsItOnlyWithTheRestartCommand(t *testing.T) {
	url := listenAgent(t)
	out, code := conformProcess(t, "--url", strings.Replace(url, "http://", "ws://", 1), "--run", "^rfd-")
	if code != 0 || caseVerdicts(out)["rfd-3"] != "N/A" || !strings.Contains(out, "--restart CMD") {
		t.Fatalf("exit %d, want 0 and rfd-3 n/a for want of --restart:\n%s", code, out)
	}
	addr, start := restartableAgent(t)
	out, code = conformProcess(t, "--url", "ws://"+addr+"/acp", "--restart", start, "--run", "^rfd-3$")
	if code != 0 || caseVerdicts(out)["rfd-3"] != "PASS" {
		t.Fatalf("with --restart: exit %d, want rfd-3 to pass:\n%s", code, out)
	}
}

// Sessions kept in memory are legal: auto takes them to live with their
// process and the restart cases do not apply; --sessions durable (the same
// as --session-contract durable) fails each of them on the sentence about
// keys across restarts.
func TestConformSessionContract(t *testing.T) {
	t.Parallel()
	out, code := conformProcess(t, "--", "self", "agent", "--sessions-in", "memory")
	if code != 0 || !strings.Contains(out, "session contract: process (auto: no session survived an Agent restart") {
		t.Fatalf("exit %d, want 0 with the process contract:\n%s", code, out)
	}
	auto := caseVerdicts(out)
	out, code = conformProcess(t, "--sessions", "durable", "--", "self", "agent", "--sessions-in", "memory")
	if code != 1 || !strings.Contains(out, "session contract: durable (as asked by --session-contract durable)") {
		t.Fatalf("exit %d, want 1 with the durable contract:\n%s", code, out)
	}
	durable := caseVerdicts(out)
	for _, id := range []string{"rfd-2", "rfd-3", "session-2"} {
		if auto[id] != "N/A" || durable[id] != "FAIL" {
			t.Errorf("%s: %s under auto, %s under durable; want N/A, FAIL", id, auto[id], durable[id])
		}
	}
	if !strings.Contains(out, "This holds across connections and Agent restarts.") || !strings.Contains(out, "-32002") {
		t.Errorf("the durable failures do not cite the resume's answer and the rule:\n%s", out)
	}
	if out, code := conformProcess(t, "--sessions", "3", "--", "self", "agent"); code != 2 || !strings.Contains(out, "expected a session contract") {
		t.Errorf("conform --sessions 3: exit %d, want 2 naming the contract words:\n%s", code, out)
	}
}
