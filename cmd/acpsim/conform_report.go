package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpsim/acpsim/netfault/realmode/conformrun"
	"github.com/acpsim/acpsim/netfault/realmode/dial"
	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/properties/conform/suite"
	"github.com/acpsim/acpsim/traces"
)

// conformResult is one case's verdict and how long it took.
type conformResult struct {
	v    suite.Verdict
	took time.Duration
}

// conformReport is a run of the suite: what it ran against, each case's
// result, and the session contract the verdicts hold (asked for, then as
// decided).
type conformReport struct {
	target   string
	results  []conformResult
	contract suite.Contract
	verbose  bool   // the table cites every case's rule, not only a failure's
	traceDir string // where each case's trace goes ("" nowhere)
	// schema counts the frames checked against the v2 schema and the
	// problems found.
	frames, problems int
}

// conformTally counts the verdicts.
type conformTally struct{ pass, fail, na, blocked int }

// tally counts the verdicts of the cases that are no baseline (of the
// baselines when only they ran): a run whose baselines alone passed judged
// nothing. withBaselines counts every case, as JUnit does.
func tally(results []conformResult, withBaselines ...bool) (t conformTally) {
	all := len(withBaselines) > 0 && withBaselines[0] || onlyBaselines(results)
	for _, r := range results {
		if r.v.Case.IsBaseline() && !all {
			continue
		}
		switch r.v.Status {
		case suite.Pass:
			t.pass++
		case suite.Fail:
			t.fail++
		case suite.Blocked:
			t.blocked++
		default:
			t.na++
		}
	}
	return t
}

// baselineLine says how the baselines fared, beside the cases' counts.
func baselineLine(results []conformResult) string {
	ran, passed := 0, 0
	for _, r := range results {
		if r.v.Case.IsBaseline() {
			ran++
			if r.v.Status == suite.Pass {
				passed++
			}
		}
	}
	return fmt.Sprintf("baselines: %d of %d passed", passed, ran)
}

func onlyBaselines(results []conformResult) bool {
	for _, r := range results {
		if !r.v.Case.IsBaseline() {
			return false
		}
	}
	return true
}

func runConform(out io.Writer, cfg conformrun.Config, rep conformReport, cases []*suite.Case, format, junit string) error {
	if cfg.URL != "" {
		// Every case would fail on its own, one answer timeout at a time.
		if err := dial.Reachable(cfg.URL, cfg.AnswerTimeout); err != nil {
			fmt.Fprintf(out, "conform %q: BROKEN AGENT: cannot connect to the Agent at %s for %v: %v\n", rep.target, cfg.URL, cfg.AnswerTimeout, err)
			return exitError{exitAnomaly}
		}
	}
	if rep.traceDir != "" {
		if err := os.MkdirAll(rep.traceDir, 0o755); err != nil {
			return fmt.Errorf("--trace-dir: %v", err)
		}
	}
	var results []conformResult
	baselines := map[string]suite.Verdict{}
	for _, c := range cases {
		blocked, skip := suite.Plan(c, baselines)
		var r conformResult
		if blocked != nil {
			r.v = *blocked
		} else {
			v, took, err := runCase(cfg, c, skip)
			if err == nil && c.IsBaseline() && v.Status != suite.Pass && v.TimedOut {
				// A baseline blocks every case on it: one slow answer (a
				// loaded machine) gets a second chance before it does.
				v, took, err = runCase(cfg, c, skip)
			}
			if err != nil {
				return err
			}
			r = conformResult{v, took}
			if v.Peer.V1 {
				// Nothing of the suite applies to a v1 Agent: say so, judge nothing.
				fmt.Fprintln(out, v.Peer.V1Line("the Agent"))
				return exitError{exitInconclusive}
			}
			if err := rep.schemaCheck(v); err != nil {
				return err
			}
		}
		if c.IsBaseline() {
			baselines[c.ID] = r.v
		}
		results = append(results, r)
	}
	vs := make([]suite.Verdict, len(results))
	for i, r := range results {
		vs[i] = r.v
	}
	vs, rep.contract = suite.HoldTo(vs, rep.contract.Sessions)
	for i := range results {
		results[i].v = vs[i]
	}
	rep.results = results
	if junit != "" {
		if err := writeJUnit(junit, rep); err != nil {
			return fmt.Errorf("--junit: %v", err)
		}
	}
	if format == "json" {
		if err := writeConformJSON(out, rep); err != nil {
			return err
		}
	} else {
		writeConformTable(out, rep)
	}
	switch t := tally(results, true); {
	case t.fail > 0:
		return exitError{exitAnomaly}
	case tally(results).pass == 0:
		return exitError{exitInconclusive}
	}
	return nil
}

// runCase runs one case in a scratch store of its own.
func runCase(cfg conformrun.Config, c *suite.Case, skip map[string]suite.Skip) (suite.Verdict, time.Duration, error) {
	scratch, err := makeScratch("acpsim-conform-" + c.ID + "-")
	if err != nil {
		return suite.Verdict{}, 0, err
	}
	defer removeScratch(scratch)
	cfg.Env = append(os.Environ(), storeEnv+"="+scratch)
	cfg.Skip = skip
	start := time.Now()
	v, err := conformrun.Run(cfg, c)
	return v, time.Since(start), err
}

// schemaCheck checks every frame of v's run against the v2 schema, as
// acpsim lint does, and writes the case's trace under --trace-dir.
func (rep *conformReport) schemaCheck(v suite.Verdict) error {
	link := "stdio"
	if u, err := url.Parse(rep.target); err == nil && u.Scheme != "" && !strings.Contains(rep.target, " ") {
		link = u.Scheme
	}
	log := conformrun.Trace(rep.target, link, v)
	for _, e := range log.Events {
		if e.Kind == traces.KindSend {
			rep.frames++
		}
	}
	rep.problems += len(conform.Trace(log.Events))
	if rep.traceDir == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(rep.traceDir, v.Case.ID+".ndjson"))
	if err != nil {
		return fmt.Errorf("--trace-dir: %v", err)
	}
	if _, err := log.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("--trace-dir: %v", err)
	}
	return f.Close()
}

// schemaLine is the report's one line on the schema: the count and how to
// see each problem.
func (rep *conformReport) schemaLine() string {
	lintCmd := "acpsim lint " + filepath.Join(rep.traceDir, "*.ndjson")
	if rep.traceDir == "" {
		lintCmd = "rerun with --trace-dir DIR, then acpsim lint DIR/*.ndjson"
	}
	if rep.problems == 0 {
		return fmt.Sprintf("schema: no problems in %d frame(s) checked against the ACP v2 schema (%s)", rep.frames, lintCmd)
	}
	return fmt.Sprintf("schema: %d problem(s) in %d frame(s) checked against the ACP v2 schema, beside the verdicts (see them: %s)", rep.problems, rep.frames, lintCmd)
}

// headline are the report's first lines: the missing baselines and the
// real cause of the keyed failures, in plain words.
func (rep *conformReport) headline() []string {
	vs := make([]suite.Verdict, len(rep.results))
	for i, r := range rep.results {
		vs[i] = r.v
	}
	lines := suite.MissingBaselines(vs)
	if d := suite.KeyDiagnosis(vs); d != "" {
		lines = append(lines, d)
	}
	return lines
}

func writeConformTable(out io.Writer, rep conformReport) {
	results := rep.results
	fmt.Fprintf(out, "conform %q: %d case(s)\n", rep.target, len(results))
	for _, l := range rep.headline() {
		fmt.Fprintln(out, l)
	}
	fmt.Fprintln(out)
	width := 10
	for _, r := range results {
		width = max(width, len(r.v.Case.ID))
	}
	for _, r := range results {
		v := r.v
		fmt.Fprintf(out, "%-*s %-7s  %s\n", width, v.Case.ID, strings.ToUpper(string(v.Status)), v.Case.Title)
		if v.Status != suite.Pass {
			fmt.Fprintf(out, "%16s %s\n", "why:", v.Why)
		}
		for _, n := range v.NotJudged {
			fmt.Fprintf(out, "%16s %s\n", "not judged:", n)
		}
		if v.Status != suite.Fail && !rep.verbose {
			continue
		}
		source, quote := v.Rule()
		fmt.Fprintf(out, "%16s %s: %q\n", "rule:", source, quote)
		if len(v.Frames) > 0 {
			fmt.Fprintf(out, "%16s\n", "frames:")
			for _, f := range v.Frames {
				fmt.Fprintf(out, "%18s%s\n", "", f)
			}
		}
	}
	t, all := tally(results), tally(results, true)
	fmt.Fprintf(out, "\n%d passed, %d failed, %d n/a, %d blocked; %s\n", t.pass, t.fail, t.na, t.blocked, baselineLine(results))
	fmt.Fprintf(out, "session contract: %s (%s)\n", rep.contract.Sessions, rep.contract.Why)
	fmt.Fprintln(out, rep.schemaLine())
	switch {
	case all.fail > 0 && all.fail > t.fail:
		fmt.Fprintf(out, "FAIL: %d case(s) broke the rule they check, and %d baseline(s) failed\n", t.fail, all.fail-t.fail)
	case all.fail > 0:
		fmt.Fprintf(out, "FAIL: %d case(s) broke the rule they check\n", all.fail)
	case t.pass == 0:
		fmt.Fprintln(out, "INCONCLUSIVE: no case applies to this Agent, so nothing was judged")
	default:
		fmt.Fprintln(out, "PASS: every case that applies holds")
	}
}

type conformJSONCase struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Baseline  bool     `json:"baseline,omitempty"`
	Source    string   `json:"source"`
	Quote     string   `json:"quote"`
	Verdict   string   `json:"verdict"`
	Why       string   `json:"why,omitempty"`
	BlockedBy string   `json:"blockedBy,omitempty"`
	NotJudged []string `json:"notJudged,omitempty"`
	Frames    []string `json:"frames,omitempty"`
	Seconds   float64  `json:"seconds"`
}

func frameLines(v suite.Verdict) []string {
	var out []string
	for _, f := range v.Frames {
		out = append(out, f.String())
	}
	return out
}

func writeConformJSON(out io.Writer, rep conformReport) error {
	t := tally(rep.results)
	type contract struct {
		Sessions string `json:"sessions"`
		Why      string `json:"why"`
	}
	type schema struct {
		Frames   int `json:"frames"`
		Problems int `json:"problems"`
	}
	doc := struct {
		Agent     string            `json:"agent"`
		Headline  []string          `json:"headline,omitempty"`
		Passed    int               `json:"passed"`
		Failed    int               `json:"failed"`
		NA        int               `json:"na"`
		Blocked   int               `json:"blocked"`
		Baselines string            `json:"baselines"`
		Contract  contract          `json:"sessionContract"`
		Schema    schema            `json:"schema"`
		SchemaWhy string            `json:"schemaLine"`
		Cases     []conformJSONCase `json:"cases"`
	}{Agent: rep.target, Headline: rep.headline(), Passed: t.pass, Failed: t.fail, NA: t.na, Blocked: t.blocked, Baselines: baselineLine(rep.results),
		Contract: contract{rep.contract.Sessions, rep.contract.Why}, Schema: schema{rep.frames, rep.problems}, SchemaWhy: rep.schemaLine()}
	for _, r := range rep.results {
		v := r.v
		source, quote := v.Rule()
		doc.Cases = append(doc.Cases, conformJSONCase{ID: v.Case.ID, Title: v.Case.Title, Baseline: v.Case.IsBaseline(), Source: source, Quote: quote,
			Verdict: string(v.Status), Why: v.Why, BlockedBy: v.BlockedBy, NotJudged: v.NotJudged, Frames: frameLines(v), Seconds: r.took.Seconds()})
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
