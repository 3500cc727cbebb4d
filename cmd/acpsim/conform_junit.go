package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/acpsim/acpsim/properties/conform/suite"
)

// JUnit XML as CI systems read it (the Ant/Surefire schema): one testsuite
// with one testcase per case; a failure's text is the explanation, the
// rule and the frames; a case that does not apply, or that a failed
// baseline blocked, is skipped with why.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Props     []junitProp `xml:"properties>property"`
	Cases     []junitCase `xml:"testcase"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Props     []junitProp   `xml:"properties>property,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	// Error: the test could not run (check: the Agent is broken); Props:
	// what the case's report says besides its verdict (check: per seed).
	Error *junitFailure `xml:"error,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func writeJUnit(path string, rep conformReport) error {
	t := tally(rep.results, true)
	fail, skipped := t.fail, t.na+t.blocked
	var total time.Duration
	s := junitSuite{Name: "acpsim conform", Tests: len(rep.results), Failures: fail, Skipped: skipped,
		Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05"),
		Props:     []junitProp{{"agent", rep.target}, {"sessionContract", rep.contract.Sessions}, {"sessionContractWhy", rep.contract.Why}}}
	for _, r := range rep.results {
		v := r.v
		total += r.took
		group, _, _ := strings.Cut(v.Case.ID, "-")
		tc := junitCase{Name: v.Case.ID + ": " + v.Case.Title, Classname: "acpsim.conform." + group, Time: seconds(r.took)}
		switch v.Status {
		case suite.Fail:
			source, quote := v.Rule()
			text := fmt.Sprintf("%s\n\n%s: %q\n", v.Why, source, quote)
			if lines := frameLines(v); len(lines) > 0 {
				text += "\nframes:\n  " + strings.Join(lines, "\n  ") + "\n"
			}
			for _, n := range v.NotJudged {
				text += "\nnot judged: " + n
			}
			tc.Failure = &junitFailure{Message: v.Why, Type: "conformance", Text: text}
		case suite.NA:
			tc.Skipped = &junitSkipped{Message: "n/a: " + v.Why}
		case suite.Blocked:
			tc.Skipped = &junitSkipped{Message: v.Why} // "blocked by baseline-…: …"
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Time = seconds(total)
	doc := junitSuites{Name: "acpsim conform", Tests: s.Tests, Failures: fail, Skipped: skipped, Time: s.Time, Suites: []junitSuite{s}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
