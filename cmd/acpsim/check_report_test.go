package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// rewriteAgent is check's Agent command for the test Agent that runs
// acpsim agent and rewrites what passes (testdata/rewrite-agent.mjs).
func rewriteAgent(t *testing.T, mode string) []string {
	t.Helper()
	requireNode(t)
	script, err := filepath.Abs("testdata/rewrite-agent.mjs")
	if err != nil {
		t.Fatal(err)
	}
	return []string{"node", script, mode, os.Args[0], "agent"}
}

// seedsWithClassOn counts the seeds 1..n whose draw switches class on.
func seedsWithClassOn(class string, n int) int {
	on := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for _, c := range users.DrawActionsOn(seed, checkActionBase, checkActionOn).On {
			if c == class {
				on++
			}
		}
	}
	return on
}

// An Agent that answers every session/fork -32601 has had no fork tested:
// the fork class is reported on in its seeds but exercised in none, with
// the Agent's answer as the reason, and the PASS line says forks were not
// exercised. The reference Agent's forks are exercised: no such line.
func TestCheckReportsForksNotExercisedWhenTheAgentRefusesThem(t *testing.T) {
	const seeds = 6
	on := seedsWithClassOn("fork", seeds)
	if on < 2 {
		t.Fatalf("seeds 1-%d draw fork in %d seeds; pick seeds that draw it", seeds, on)
	}
	args := append([]string{"--seeds", fmt.Sprint(seeds), "--"}, rewriteAgent(t, "refuse-fork")...)
	out, code := checkRun(t, args...)
	row := regexp.MustCompile(`(?m)^  fork +session/fork.* +(\d+) +(\d+) +(\d+)$`).FindStringSubmatch(out)
	if row == nil || row[1] != fmt.Sprint(on) || row[2] != "0" {
		t.Fatalf("exit %d, fork row %q: want fork on in %d seeds, exercised in 0:\n%s", code, row, on, out)
	}
	want := fmt.Sprintf("  not exercised: fork: on in %d seeds, exercised in 0: session/fork answered -32601", on)
	if !strings.Contains(out, want) {
		t.Fatalf("want %q:\n%s", want, out)
	}
	// Refusing forks is no anomaly: the PASS says forks were not exercised
	// (with any other class the schedule did not exercise).
	passLine := regexp.MustCompile(`(?m)^PASS: every submission inserted at most once and never silently lost; not exercised: (.*\b)?fork\b`)
	if pass := strings.Contains(out, "PASS:"); code != 0 && pass || code == 0 && !passLine.MatchString(out) {
		t.Fatalf("exit %d: want a PASS only with exit 0, saying forks were not exercised:\n%s", code, out)
	}

	out, code = checkRun(t, "--seeds", fmt.Sprint(seeds), "--", "self", "agent")
	row = regexp.MustCompile(`(?m)^  fork +session/fork.* +(\d+) +(\d+) +(\d+)$`).FindStringSubmatch(out)
	if code != 0 || row == nil || row[2] == "0" || strings.Contains(out, "not exercised: fork") {
		t.Fatalf("the reference Agent: exit %d, fork row %q; want its forks exercised:\n%s", code, row, out)
	}
}

// An Agent whose frames break the schema gets one schema line with the
// count and the acpsim lint command for the traces, and that command finds
// the problems; the verdict stays the properties' (exit 0 here). The
// reference Agent's frames conform.
func TestCheckCountsSchemaProblemsAndNamesTheLintCommand(t *testing.T) {
	args := append([]string{"--seeds", "2"}, "--")
	out, code := checkRun(t, append(args, rewriteAgent(t, "bad-schema")...)...)
	line := regexp.MustCompile(`(?m)^schema: (\d+) frames in 2 seeds break ACP v2 .*: acpsim lint (.+)$`).FindStringSubmatch(out)
	if code != 0 || line == nil || !strings.Contains(out, "PASS") {
		t.Fatalf("exit %d: want 0, PASS and a schema line naming 2 seeds and the lint command:\n%s", code, out)
	}
	var stdout, stderr strings.Builder
	lintArgs := append([]string{"lint"}, strings.Fields(line[2])...)
	if code := execute(lintArgs, &stdout, &stderr); code != exitAnomaly ||
		!strings.Contains(stdout.String(), "missing property 'info'") || !strings.Contains(stdout.String(), "/params/update/content") {
		t.Fatalf("acpsim %s: exit %d, want 1 with the missing info and the content object:\n%s%s", strings.Join(lintArgs, " "), code, stdout.String(), stderr.String())
	}
	if n := strings.Count(stdout.String(), ": schema: "); fmt.Sprint(n) != line[1] {
		t.Errorf("check counted %s frames with problems, lint lists %d problems", line[1], n)
	}

	out, code = checkRun(t, "--seeds", "1", "--", "self", "agent")
	if code != 0 || !strings.Contains(out, "\nschema: every frame conforms to ACP v2") {
		t.Fatalf("the reference Agent: exit %d, want 0 and every frame conforming:\n%s", code, out)
	}
}

// junitDoc is what a CI reads of check --junit.
type junitDoc struct {
	Suites []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Props []junitProp `xml:"properties>property"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil || len(doc.Suites) != 1 {
		t.Fatalf("%s does not parse as JUnit (%v):\n%s", path, err, b)
	}
	return doc
}

// check --junit writes a testcase per seed; a seed whose Agent leaks keys
// (echo-key: in every user_message update, so in every seed, where the
// duplicates of --keys memory need a kill after an insertion) fails with
// its anomalies and the commands to rerun and re-drive it in the failure
// text, and its properties say what its report said.
func TestCheckJUnitHasATestcasePerSeed(t *testing.T) {
	dir := t.TempDir()
	xmlPath := filepath.Join(dir, "r.xml")
	out, code := checkRun(t, "--seeds", "3", "--junit", xmlPath, "--", "self", "agent", "--agent", "echo-key")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	doc := readJUnit(t, xmlPath)
	s := doc.Suites[0]
	if s.Tests != 3 || len(s.Cases) != 3 || s.Failures == 0 || s.Errors != 0 {
		t.Fatalf("tests %d, cases %d, failures %d, errors %d: want 3 testcases and a failure:\n%s", s.Tests, len(s.Cases), s.Failures, s.Errors, out)
	}
	failed := 0
	for i, c := range s.Cases {
		if c.Name != fmt.Sprintf("seed %d", i+1) {
			t.Errorf("testcase %d is %q, want seed %d", i, c.Name, i+1)
		}
		props := map[string]string{}
		for _, p := range c.Props {
			props[p.Name] = p.Value
		}
		if props["sessionContract"] == "" || props["schemaProblemFrames"] == "" || props["judged: lost"] == "" || !strings.HasPrefix(props["rerun"], "acpsim check --first-seed") || strings.Contains(props["rerun"], "junit") {
			t.Errorf("seed %d: properties %v: want the session contract, the schema count, the lost account and a rerun without --junit", i+1, props)
		}
		if c.Failure == nil {
			continue
		}
		failed++
		if !strings.Contains(c.Failure.Message, "key-leak") || !strings.Contains(c.Failure.Text, "rerun: acpsim check --first-seed") || !strings.Contains(c.Failure.Text, "re-drive: acpsim check --schedule") {
			t.Errorf("seed %d's failure: message %q, text:\n%s\nwant the key-leak and the rerun and re-drive commands", i+1, c.Failure.Message, c.Failure.Text)
		}
	}
	if fmt.Sprint(failed) != regexp.MustCompile(`(\d+) failed`).FindStringSubmatch(out)[1] {
		t.Errorf("%d testcases failed; the report says:\n%s", failed, out)
	}
}

// An Agent that cannot be talked to is a JUnit error, not a failure: the
// run stopped at its seed, which is the only testcase.
func TestCheckJUnitBrokenAgentIsAnError(t *testing.T) {
	xmlPath := filepath.Join(t.TempDir(), "r.xml")
	out, code := checkRun(t, "--seeds", "3", "--junit", xmlPath, "--", "sh", "-c", "exit 7")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	s := readJUnit(t, xmlPath).Suites[0]
	if s.Tests != 1 || s.Errors != 1 || s.Failures != 0 || s.Cases[0].Error == nil || !strings.Contains(s.Cases[0].Error.Message, "exit status 7") {
		t.Fatalf("tests %d, errors %d, failures %d: want seed 1 alone, an error naming the exit status:\n%s", s.Tests, s.Errors, s.Failures, out)
	}
}

// classesOnWire counts an action as exercised only when the Agent got it
// in a state where it does what the class is for.
func TestClassesOnWire(t *testing.T) {
	seq := int64(0)
	ev := func(kind, link, dir, sub, frame string) traces.Event {
		seq++
		from, to := "c1", "a1#1"
		if dir == traces.AgentToClient {
			from, to = to, from
		}
		return traces.Event{Seq: seq, Kind: kind, Link: link, From: from, To: to, Dir: dir, Sub: sub, Frame: frame}
	}
	in := func(frame string) traces.Event {
		return ev(traces.KindDeliver, "c1:a1#1", traces.ClientToAgent, "", frame)
	}
	prompt := func(id int, sub string) traces.Event {
		return ev(traces.KindDeliver, "c1:a1#1", traces.ClientToAgent, sub,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`, id))
	}
	out := func(frame string) traces.Event {
		return ev(traces.KindSend, "c1:a1#1", traces.AgentToClient, "", frame)
	}
	events := []traces.Event{
		in(`{"jsonrpc":"2.0","id":1,"method":"session/fork","params":{"sessionId":"S"}}`),
		out(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`),
		in(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S"}}`), // nothing pending
		prompt(2, "s1"),
		in(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}`),
		prompt(3, "s1"), // s1 again while 2 is pending
		in(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S"}}`),
		out(`{"jsonrpc":"2.0","id":2,"result":{"messageId":"m"}}`),
		out(`{"jsonrpc":"2.0","id":3,"result":{"messageId":"m"}}`),
		in(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}`), // answered
		in(`{"jsonrpc":"2.0","id":4,"method":"session/close","params":{"sessionId":"S"}}`),
		out(`{"jsonrpc":"2.0","id":4,"result":{}}`),
		in(`{"jsonrpc":"2.0","id":5,"method":"session/resume","params":{"sessionId":"S"}}`),
		out(`{"jsonrpc":"2.0","id":5,"result":{}}`),
	}
	got := map[string]string{}
	for c, u := range classesOnWire(events) {
		got[c] = fmt.Sprint(u.exercised, u.why)
	}
	want := map[string]string{
		"fork":           "0 map[session/fork answered -32601:1]",
		"session-cancel": "1 map[session/cancel came with no prompt of its session pending:1]",
		"cancel-request": "1 map[$/cancel_request named a request already answered:1]",
		"impatient":      "1 map[]",
		"close-resume":   "1 map[]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("classesOnWire:\n got %v\nwant %v", got, want)
	}
}
