package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/acpsim/acpsim/netfault/realmode/checkclient"
	"github.com/acpsim/acpsim/traces/shell"
)

// writeClientJUnit writes check-client's report as JUnit XML: a testcase
// per seed; a failing seed's anomalies, RFD rules and rerun command as its
// failure; an inconclusive seed skipped with why; what a seed judged and
// did not as the testcase's properties.
func writeClientJUnit(path string, cfg checkclient.Config, reports []clientSeedReport, took time.Duration) error {
	s := junitSuite{Name: "acpsim check-client", Tests: len(reports), Time: seconds(took),
		Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05"),
		Props: []junitProp{{"client", shell.Join(cfg.Client)}, {"faults", fmt.Sprintf("kill=%g cut=%g client-restart=%g", cfg.Kill, cfg.Cut, cfg.Restart)},
			{"prompt errors", fmt.Sprint(cfg.PromptErrors)}}}
	for i := range reports {
		r := &reports[i]
		tc := junitCase{Name: fmt.Sprintf("seed %d", r.Seed), Classname: "acpsim.check-client", Time: "0", Props: clientSeedProps(r)}
		switch {
		case r.Failed():
			s.Failures++
			var text strings.Builder
			typ := "anomaly"
			if r.Broken != "" {
				typ = "broken-adapter"
				fmt.Fprintf(&text, "the adapter broke its contract (docs/client-adapter.md): %s\n", r.Broken)
			}
			for _, a := range r.Anomalies {
				fmt.Fprintf(&text, "%s %s: %s\n  RFD: %s\n", a.Kind, a.Sub, a.Explanation, a.Rule())
			}
			if r.kept != "" {
				fmt.Fprintf(&text, "\ntrace: %s (acpsim judge judges the Client again from it and %s)\n", r.kept, clientRecordPath(r.kept))
			}
			fmt.Fprintf(&text, "rerun: %s\n", r.rerun)
			tc.Failure = &junitFailure{Message: r.verdict(), Type: typ, Text: text.String()}
		case r.Inconclusive != "":
			s.Skipped++
			tc.Skipped = &junitSkipped{Message: "inconclusive: " + r.Inconclusive}
		}
		s.Cases = append(s.Cases, tc)
	}
	doc := junitSuites{Name: s.Name, Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Time: s.Time, Suites: []junitSuite{s}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}

// clientSeedProps says what the seed judged, and what it did not and why.
func clientSeedProps(r *clientSeedReport) []junitProp {
	c := r.Cover
	if r.Broken != "" || r.Inconclusive != "" {
		why := r.Inconclusive
		if why == "" {
			why = "the adapter broke its contract"
		}
		return []junitProp{{"not judged: " + outcomeProps, why}, {"not judged: " + resendProps, why}}
	}
	props := []junitProp{{"judged: " + outcomeProps, fmt.Sprintf("%d of %d submissions", c.Outcomes, c.Subs)}}
	if n := c.Subs - c.Outcomes; n > 0 {
		props = append(props, junitProp{"not judged: " + outcomeProps, fmt.Sprintf("%d submissions never sent as session/prompt", n)})
	}
	if c.Resent > 0 {
		props = append(props, junitProp{"judged: " + resendProps, fmt.Sprintf("%d of %d submissions", c.Resent, c.Subs)})
	}
	if n := c.Outcomes - c.Resent; n > 0 {
		props = append(props, junitProp{"not judged: " + resendProps, fmt.Sprintf("%d submissions sent once: no resend to compare", n)})
	}
	props = append(props, junitProp{"outcomes told", fmt.Sprintf("%d inserted, %d failed, %d unknown", r.ToldInserted, r.ToldFailed, r.ToldUnknown)})
	props = append(props, junitProp{"error answers", fmt.Sprintf("%d of %d prompt attempts", r.Errors, r.Attempts)})
	if n := r.schemaClient + r.schemaAgent; n > 0 {
		props = append(props, junitProp{"schema problems", fmt.Sprintf("%d: acpsim lint %s", n, orTrace(r.kept))})
	}
	return props
}
