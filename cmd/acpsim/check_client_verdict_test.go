package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// noFaults runs a bad adapter's seeds as they are: its own fault, no other.
var noFaults = []string{"--prompts", "3", "--fault-rates", "kill=0,cut=0,client-restart=0"}

func badClientRun(t *testing.T, mode string, args ...string) (string, int) {
	t.Helper()
	return checkClientRun(t, "bad-client-adapter.mjs "+mode, append(append([]string{}, noFaults...), args...)...)
}

// A Client that sets up its session and never sends a prompt judged
// nothing: not a pass, and the report says why in one line.
func TestCheckClientNeverPromptingIsNotAPass(t *testing.T) {
	out, code := badClientRun(t, "no-prompt", "--seeds", "2")
	if code != exitInconclusive || strings.Contains(out, "PASS") {
		t.Fatalf("exit %d, want 3 and no PASS:\n%s", code, out)
	}
	if !strings.Contains(out, "INCONCLUSIVE: 2 of 2 seeds judged nothing, 0 passed: the Client sent no session/prompt: its session was set up, but it never prompted") {
		t.Fatalf("no one-line reason:\n%s", out)
	}
}

// A Client that asks for ACP v1 in its initialize (as acpx does) is served
// v1 (the Agent negotiates) and told so once; this one then never prompts,
// so nothing is judged.
func TestCheckClientSaysOnceThatAV1ClientSpeaksV1(t *testing.T) {
	out, code := badClientRun(t, "v1", "--seeds", "2")
	if code != exitInconclusive || strings.Contains(out, "PASS") || !strings.Contains(out, "the Client sent no session/prompt") {
		t.Fatalf("exit %d, want 3, no prompt sent:\n%s", code, out)
	}
	if n := strings.Count(out, "the Client speaks ACP v1 (protocolVersion 1): judged under v1"); n != 1 {
		t.Fatalf("the v1 line printed %d times, want once:\n%s", n, out)
	}
	// Its v1 initialize is checked against the v1 schema, as acpsim lint
	// checks the trace: it conforms, so no schema problem is counted.
	if strings.Contains(out, "schema: 2 problems") {
		t.Fatalf("a v1 initialize counted against the v2 schema:\n%s", out)
	}
}

// A Client stuck after initialize (behind a proxy that hangs) ends each
// seed at --start-timeout, saying nothing answered its session/new.
func TestCheckClientStuckAfterInitializeEndsWithinTheStartTimeout(t *testing.T) {
	start := time.Now()
	out, code := badClientRun(t, "stuck", "--seeds", "2", "--jobs", "2", "--start-timeout", "2s")
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %v, want about --start-timeout 2s", took)
	}
	if code != exitInconclusive || !strings.Contains(out, "nothing answered the Client's session/new within --start-timeout 2s") ||
		!strings.Contains(out, "initialize answered, but no session/new reached the Agent") {
		t.Fatalf("exit %d, want 3 saying nothing answered session/new:\n%s", code, out)
	}
}

// An adapter that tells failed, then unknown, for a message the Agent
// inserted: the user saw a failure that was none. Every outcome is judged.
func TestCheckClientFailedThenUnknownIsAPhantom(t *testing.T) {
	out, code := badClientRun(t, "failed-then-unknown", "--seeds", "1")
	if code != exitAnomaly || !strings.Contains(out, "FAIL phantom") || !strings.Contains(out, "then unknown (adapter line 2), yet the final transcript holds it") {
		t.Fatalf("exit %d, want 1 and phantom:\n%s", code, out)
	}
}

// The keyed Client's report accounts for what it judged.
func TestCheckClientPassSaysWhatItJudged(t *testing.T) {
	out, code := checkClientRun(t, "keyed-client-adapter.mjs", "--seeds", "2", "--first-seed", "2", "--fault-rates", "kill=0.4,client-restart=0")
	if code != 0 || !regexp.MustCompile(`judged: outcomes \(duplicate, lost, phantom, unresolved, wrong-id\) on 10 of 10 submissions`).MatchString(out) ||
		!strings.Contains(out, "schema: the ") || !strings.Contains(out, "PASS: 2 seeds") {
		t.Fatalf("exit %d, want 0 with the account:\n%s", code, out)
	}
}

// junitReport is what a CI's parser reads of check-client --junit.
type junitReport struct {
	Suites []struct {
		Tests   int `xml:"tests,attr"`
		Skipped int `xml:"skipped,attr"`
		Cases   []struct {
			Name  string `xml:"name,attr"`
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnitReport(t *testing.T, path string) junitReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r junitReport
	if err := xml.Unmarshal(b, &r); err != nil || len(r.Suites) != 1 {
		t.Fatalf("%s does not parse as one JUnit testsuite (%v):\n%s", path, err, b)
	}
	return r
}

// check-client --junit: a testcase per seed, a failure with the anomaly
// and the rerun command, an inconclusive seed skipped with why.
func TestCheckClientJUnit(t *testing.T) {
	xmlPath := filepath.Join(t.TempDir(), "r.xml")
	if _, code := badClientRun(t, "failed-then-unknown", "--seeds", "2", "--junit", xmlPath); code != exitAnomaly {
		t.Fatalf("exit %d, want 1", code)
	}
	r := readJUnitReport(t, xmlPath)
	s := r.Suites[0]
	if s.Tests != 2 || len(s.Cases) != 2 || s.Cases[0].Name != "seed 1" {
		t.Fatalf("want 2 testcases, seed 1 first: %+v", s)
	}
	for _, c := range s.Cases {
		if c.Failure == nil || !strings.Contains(c.Failure.Text, "phantom") || !strings.Contains(c.Failure.Text, "rerun: acpsim check-client --seeds=1") {
			t.Errorf("%s: want a failure with the phantom and the rerun: %+v", c.Name, c.Failure)
		}
		if len(c.Props) == 0 || !strings.HasPrefix(c.Props[0].Name, "judged: outcomes") {
			t.Errorf("%s: want what was judged as properties: %+v", c.Name, c.Props)
		}
		// A phantom is a failed told: the outcomes told by kind say so.
		told := ""
		for _, p := range c.Props {
			if p.Name == "outcomes told" {
				told = p.Value
			}
		}
		if m := outcomesTold.FindStringSubmatch("outcomes told: " + told); m == nil || m[2] == "0" {
			t.Errorf("%s: want an outcomes-told property with a failed: %q", c.Name, told)
		}
	}
	if _, code := badClientRun(t, "no-prompt", "--seeds", "2", "--junit", xmlPath); code != exitInconclusive {
		t.Fatalf("exit %d, want 3", code)
	}
	s = readJUnitReport(t, xmlPath).Suites[0]
	if s.Skipped != 2 || len(s.Cases) != 2 || s.Cases[1].Skipped == nil || !strings.Contains(s.Cases[1].Skipped.Message, "the Client sent no session/prompt") {
		t.Fatalf("want 2 skipped testcases saying why: %+v", s)
	}
	if p := s.Cases[1].Props; len(p) == 0 || !strings.HasPrefix(p[0].Name, "not judged: outcomes") {
		t.Fatalf("want the not-judged properties: %+v", p)
	}
}

// errorWindow is a run of seeds in which the reference Agent, at the
// default --prompt-errors, refuses a prompt the Client then mishandles in
// about half of them: the error handling is caught with the defaults.
var errorWindow = []string{"--first-seed", "32", "--seeds", "7"}

// A Client that tells its user inserted for an error answer (its
// optimistic message kept) is caught with the default flags: lost, citing
// the RFD's "An error response ... means the message was not inserted".
func TestCheckClientCatchesInsertedToldForAnErrorAnswer(t *testing.T) {
	out, code := checkClientRun(t, "inserted-on-error-client-adapter.mjs", errorWindow...)
	if code != exitAnomaly || !strings.Contains(out, "FAIL lost") ||
		!strings.Contains(out, "RFD: An error response to session/prompt already means the message was not inserted") {
		t.Fatalf("exit %d, want 1 with lost and its RFD sentence:\n%s", code, out)
	}
	if !regexp.MustCompile(`error answers: [1-9]\d* of \d+ prompt attempts were answered with an error`).MatchString(out) {
		t.Fatalf("the run does not count the error answers:\n%s", out)
	}
}

// A Client that gives a failed submission's key to its next one is caught
// with the default flags: the error left the key unused, so the Agent
// inserted the next, different prompt under it.
func TestCheckClientCatchesAFailedSubmissionsKeyReused(t *testing.T) {
	out, code := checkClientRun(t, "failed-key-client-adapter.mjs", errorWindow...)
	if code != exitAnomaly || !strings.Contains(out, "FAIL key-reused") || !strings.Contains(out, "which the Agent refused") ||
		!strings.Contains(out, "RFD: Clients MUST NOT send the same key with a different prompt") {
		t.Fatalf("exit %d, want 1 with key-reused after a refusal and its RFD sentence:\n%s", code, out)
	}
}

// The keyed Client tells failed for an error answer and makes a new key for
// its next submission: it passes the same seeds, the refusals counted.
func TestCheckClientPassesTheKeyedClientThroughErrorAnswers(t *testing.T) {
	out, code := checkClientRun(t, "keyed-client-adapter.mjs", errorWindow...)
	if code != 0 || !strings.Contains(out, "PASS: 7 seeds") {
		t.Fatalf("exit %d, want 0 and PASS:\n%s", code, out)
	}
	if !regexp.MustCompile(`(?m)^error answers: [1-9]\d* of \d+ prompt attempts`).MatchString(out) {
		t.Fatalf("no error answer given in the seeds that catch the bad Clients:\n%s", out)
	}
}

// The user's cancels: the keyed Client sends $/cancel_request and tells
// what the Agent answers (-32800: failed, a messageId: inserted), and
// passes; one that tells failed as soon as the user cancels is a phantom
// when the cancel came after the insertion, citing the cancel's rule.
func TestCheckClientCancelsPendingSubmissions(t *testing.T) {
	cancels := []string{"--first-seed", "2", "--seeds", "4", "--fault-rates", "cancel=1"}
	out, code := checkClientRun(t, "keyed-client-adapter.mjs", cancels...)
	if code != 0 || !regexp.MustCompile(`(?m)^user cancels: [1-9]\d* sent$`).MatchString(out) {
		t.Fatalf("exit %d, want 0 with cancels sent:\n%s", code, out)
	}
	out, code = checkClientRun(t, "optimistic-cancel-client-adapter.mjs", cancels...)
	if code != exitAnomaly || !strings.Contains(out, "FAIL phantom") ||
		!strings.Contains(out, "RFD: $/cancel_request for any pending request with the key withdraws a prompt that is not inserted yet") {
		t.Fatalf("exit %d, want 1 with a phantom citing the cancel's rule:\n%s", code, out)
	}
	// The tap saw each cancel written to the Agent, not read by it: judge
	// does not hold the Agent to a cancel it may have read after it
	// inserted the prompt.
	kept, _ := filepath.Glob("acpsim-failures/check-client-*.ndjson")
	for _, k := range kept {
		if jout, _ := acpsimRun(t, "judge", k); strings.Contains(jout, "bad-reply") {
			t.Errorf("judge %s blames the reference Agent:\n%s", k, jout)
		}
	}
}

// An adapter that does not say it takes cancels is sent none, and the run
// says so.
func TestCheckClientSendsNoCancelToAnAdapterThatDidNotSayItTakesThem(t *testing.T) {
	out, code := badClientRun(t, "failed-then-unknown", "--seeds", "1", "--fault-rates", "kill=0,cut=0,client-restart=0,cancel=1")
	if code != exitAnomaly || !strings.Contains(out, "(0 cancelled)") ||
		!strings.Contains(out, `user cancels: none sent: the adapter did not say it takes them ({"capabilities":{"cancel":true}}`) {
		t.Fatalf("exit %d, want 1 with no cancel sent, and the reason:\n%s", code, out)
	}
}

// A v1 Client on the official SDK's default (v1) API: the Agent serves it
// v1, its prompts are sent and judged by text (its "inserted" names only
// the turn's stop reason). As shipped it tells unknown when the Agent dies
// and passes; resending on a new Agent process instead, it duplicates.
func TestCheckClientJudgesAV1ClientOnTheSDKsV1API(t *testing.T) {
	requireNode(t)
	out, code := checkClientRun(t, "sdk-v1-client-adapter.mjs", "--seeds", "4")
	if code != exitOK || !strings.Contains(out, "protocol: the Client speaks ACP v1") || !strings.Contains(out, "judged: outcomes") ||
		!strings.Contains(out, "not judged, ACP v1 has no key") || !strings.Contains(out, "conform to the ACP v1 schema") || !strings.Contains(out, "PASS: 4 seeds") {
		t.Fatalf("exit %d, want a PASS judged under v1:\n%s", code, out)
	}
	out, code = checkClientRun(t, "sdk-v1-client-adapter.mjs --resend", "--seeds", "8")
	if code != exitAnomaly || !strings.Contains(out, "duplicate: ") || !strings.Contains(out, "RFD: The Client retries, and the first message was inserted") {
		t.Fatalf("--resend: exit %d, want 1 with a duplicate caused by the keyless resend:\n%s", code, out)
	}
}
