// check --junit FILE: the run as JUnit XML for a CI, one testcase per seed,
// in the types conform writes (conform_junit.go).

package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/acpsim/acpsim/properties/hop"
)

// checkJUnit gathers the testcases of the seeds reported, in seed order.
// A case is built as its seed is reported, so the seeds' traces need not
// be kept until the end.
type checkJUnit struct {
	path, target string
	cases        []junitCase
	failures     int
	errors       int
	skipped      int
	took         time.Duration
}

// add makes seed s's testcase: a failing seed's failure text is what the
// report prints for it (anomalies, trace excerpt, rerun and re-drive
// commands); an inconclusive seed is skipped with why; a broken Agent is an
// error, since nothing could be judged.
func (j *checkJUnit) add(s *checkSeed) {
	if j == nil {
		return
	}
	tc := junitCase{Name: fmt.Sprintf("seed %d", s.seed), Classname: "acpsim.check", Time: seconds(s.took), Props: checkJUnitProperties(*s)}
	j.took += s.took
	var text bytes.Buffer
	switch {
	case s.res.Broken != nil:
		writeCheckFailure(&text, *s)
		tc.Error = &junitFailure{Message: "the Agent is broken: " + s.res.Broken.Detail, Type: "broken-agent", Text: text.String()}
		j.errors++
	case !s.report.OK():
		writeCheckFailure(&text, *s)
		tc.Failure = &junitFailure{Message: strings.Join(anomalyKinds(s.report), ", "), Type: "anomaly", Text: text.String()}
		j.failures++
	case s.report.NothingJudged != "":
		tc.Skipped = &junitSkipped{Message: "inconclusive: nothing judged: " + s.report.NothingJudged}
		j.skipped++
	case s.report.Inconclusive:
		tc.Skipped = &junitSkipped{Message: fmt.Sprintf("inconclusive: hit --cap; %d submission(s) not judged; rerun: %s", len(s.report.Unjudged), s.res.Log.Header.Command)}
		j.skipped++
	}
	j.cases = append(j.cases, tc)
}

// checkJUnitProperties is what seed s's report says besides its verdict,
// as testcase properties: the session contract, the action classes drawn
// and those the wire shows done, the schema count. The per-property
// account (judged / not judged and why) belongs here too.
func checkJUnitProperties(s checkSeed) []junitProp {
	props := []junitProp{
		{"rerun", s.res.Log.Header.Command},
		{"submissions", fmt.Sprint(s.report.Stats.Submissions)},
	}
	if s.trace != "" {
		props = append(props, junitProp{"trace", s.trace})
	}
	if s.res.Broken == nil {
		props = append(props,
			junitProp{"sessionContract", s.report.Sessions.Chosen},
			junitProp{"sessionContractWhy", s.report.Sessions.Why})
	}
	if s.actions != nil {
		done, not := seedExercised(s.actions.On, s.wire)
		props = append(props,
			junitProp{"actionsOn", strings.Join(s.actions.On, ",")},
			junitProp{"actionsExercised", strings.Join(done, ",")},
			junitProp{"actionsNotExercised", strings.Join(not, ",")})
	}
	props = append(props, junitProp{"schemaProblemFrames", fmt.Sprint(s.lint.frames)})
	props = append(props, hopJUnitProperties(s)...)
	if s.res.Broken == nil {
		// What the seed's verdict covers: "judged: lost" and so on, one
		// per property, with the counts and why not the rest.
		for _, a := range s.report.Accounts {
			props = append(props, junitProp{"judged: " + a.Property, a.Line()})
		}
	}
	return props
}

// hopJUnitProperties is what the recorded proxy→Agent hop showed of the
// proxy, beside the verdict as in the report: a CI that reads only the
// JUnit file must see a passing seed's wrong cancel too. None without a
// recorded hop.
func hopJUnitProperties(s checkSeed) []junitProp {
	if s.hop == nil || s.hop.log == nil {
		return nil
	}
	props := []junitProp{{"hopRecorded", "true"}}
	if s.hop.trace != "" {
		props = append(props, junitProp{"hopTrace", s.hop.trace})
	}
	first := s.hop.firstFindings()
	for _, f := range first {
		props = append(props, junitProp{"proxy: " + f.Kind, f.Text + " (rule: " + hop.Rule(f.Kind) + ")"})
	}
	return append(props, junitProp{"proxyFindings", strings.Join(findingKinds(first), ",")})
}

// write writes the JUnit file.
func (j *checkJUnit) write() error {
	if j == nil {
		return nil
	}
	suite := junitSuite{Name: "acpsim check", Tests: len(j.cases), Failures: j.failures, Errors: j.errors, Skipped: j.skipped,
		Time: seconds(j.took), Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05"),
		Props: []junitProp{{"agent", j.target}}, Cases: j.cases}
	doc := junitSuites{Name: "acpsim check", Tests: suite.Tests, Failures: j.failures, Skipped: j.skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(j.path, append([]byte(xml.Header), append(b, '\n')...), 0o644); err != nil {
		return fmt.Errorf("--junit: %v", err)
	}
	return nil
}
