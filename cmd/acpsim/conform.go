package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault/realmode"
	"github.com/acpsim/acpsim/properties/conform/suite"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

func newConformCmd() *cobra.Command {
	cfg := realmode.DefaultConformConfig()
	var junit, format, run string
	var verbose bool
	contract := traces.SessionsAuto
	sessions := &sessionFlags{contract: &contract}
	cmd := &cobra.Command{
		Use:   "conform [flags] -- AGENT-COMMAND [ARGS...]",
		Short: "Run the RFD's traces and key rules as a conformance suite against a real Agent",
		Long: `Run acpsim's conformance suite against a real Agent: the RFD's seven traces
(a retry on the same connection, after session/resume on a new connection,
after an Agent restart with a stored session, while the prompt is held, after
an error, the same key in another session, a retry of a prompt inserted during
active work), the key rules (valid, null, absent, "", 256 code points, 255
four-byte code points, a number, an object, case), keys kept private, a reused
key, $/cancel_request, session/close and session/cancel on held prompts, errors
leaving the key unused, forks, session/resume answered (or -32002 for a
session the Agent lacks), and two Agent processes on one store.

Each case is a script of frames and faults (kill the Agent after its answer,
cut a connection, open a new one), run once, with no random draws; its
verdict is judged from the frames the Agent sent: pass, fail (with the
sentence of the RFD it checks and the frames that show it), or n/a when what
the Agent did shows the case does not apply (it rejects busy prompts, so the
held-prompt case does not; it keeps sessions in memory, so the restart case
does not).

--session-contract says what a session must outlive. auto (the default)
decides from the run: durable when some case resumes a session after an
Agent restart (an Agent that stores sessions must keep every one, so a
session found gone in another case fails it), process when none does (the
cases that resume after a restart do not apply). durable and process force
either; the report's contract line says which held and why.

Over stdio the command after -- (no shell) is started once per connection a
case opens; each case gets a fresh $ACPSIM_STORE directory shared by its
processes. --url checks a remote Agent (http:// or ws://); the cases that
kill the Agent need --restart CMD.

Exit codes: 0 every case that applies passed; 1 a case failed, or nothing
answers at --url; 2 bad usage (or the command cannot be started); 3 no case
applies, so nothing was judged; 130 (SIGINT) or 143 (SIGTERM) interrupted: the
Agent processes killed and the scratch directories removed.`,
		Example: `  acpsim conform -- acpsim agent
  acpsim conform --junit conform.xml -- ./my-agent --flag
  acpsim conform --run '^rfd-' -- node interop/keyed-agent.mjs
  acpsim conform --url ws://127.0.0.1:7070/acp --restart 'systemctl restart my-agent'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected argument %q: put the Agent's command after --", args[0])
			}
			switch {
			case len(args) == 0 && cfg.URL == "":
				return errors.New("no Agent command: give it after --, e.g. acpsim conform -- acpsim agent, or give --url")
			case len(args) > 0 && cfg.URL != "":
				return errors.New("both --url and an Agent command: check either a remote Agent or one it starts")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: expected text or json", format)
			}
			if cfg.AnswerTimeout <= 0 || cfg.Settle <= 0 {
				return errors.New("--timeout and --settle must be positive")
			}
			if cfg.URL != "" {
				if err := checkAgentURL(cfg.URL); err != nil {
					return err
				}
			}
			if cfg.Restart != "" && cfg.URL == "" {
				return errors.New("--restart is for remote Agents (--url); a stdio Agent is restarted by starting its command again")
			}
			all, err := suite.Cases()
			if err != nil {
				return err
			}
			cases, err := suite.Select(all, run)
			if err != nil {
				return err
			}
			if len(cases) == 0 {
				return fmt.Errorf("--run %q matches no case (ids: %s)", run, caseIDs(all))
			}
			target := cfg.URL
			if len(args) > 0 {
				cfg.Agent = resolveAgent(args)
				target = shell.Join(args)
			}
			defer exitOnInterrupt(cmd.ErrOrStderr(), "conform")()
			return runConform(cmd.OutOrStdout(), cfg, conformReport{target: target, contract: suite.Contract{Sessions: contract}, verbose: verbose}, cases, format, junit)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.URL, "url", "", "check a remote Agent at this /acp endpoint (http:// for Streamable HTTP, ws:// for WebSocket)")
	f.StringVar(&cfg.Restart, "restart", "", "remote: shell command that restarts the Agent at $ACPSIM_URL, returning once it serves (else no kill cases)")
	f.StringVar(&junit, "junit", "", "also write the verdicts as JUnit XML to this file (one testcase per case; n/a as skipped)")
	f.StringVar(&format, "format", "text", "output: text (a table) or json")
	f.BoolVarP(&verbose, "verbose", "v", false, "cite the RFD sentence of every case in the table, not only of a failure")
	f.StringVar(&run, "run", "", "run only the cases whose id or title matches this regular expression")
	f.DurationVar(&cfg.AnswerTimeout, "timeout", cfg.AnswerTimeout, "how long to wait for each answer")
	f.DurationVar(&cfg.Settle, "settle", cfg.Settle, "quiet period after which the Agent is taken to have finished on its own")
	sessions.registerContract(f, "durable (a session gone after a restart fails its case), process (such cases do not apply) or auto")
	sessions.registerWordsOnly(f)
	return cmd
}

func caseIDs(cs []*suite.Case) string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return strings.Join(ids, " ")
}

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
	verbose  bool // the table cites every case's rule, not only a failure's
}

func runConform(out io.Writer, cfg realmode.ConformConfig, rep conformReport, cases []*suite.Case, format, junit string) error {
	if cfg.URL != "" {
		// Every case would fail on its own, one answer timeout at a time.
		if err := realmode.Reachable(cfg.URL, cfg.AnswerTimeout); err != nil {
			fmt.Fprintf(out, "conform %q: BROKEN AGENT: cannot connect to the Agent at %s for %v: %v\n", rep.target, cfg.URL, cfg.AnswerTimeout, err)
			return exitError{exitAnomaly}
		}
	}
	var results []conformResult
	for _, c := range cases {
		scratch, err := makeScratch("acpsim-conform-" + c.ID + "-")
		if err != nil {
			return err
		}
		cc := cfg
		cc.Env = append(os.Environ(), storeEnv+"="+scratch)
		start := time.Now()
		v, err := realmode.Conform(cc, c)
		removeScratch(scratch)
		if err != nil {
			return err
		}
		results = append(results, conformResult{v, time.Since(start)})
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
	switch pass, fail, _ := tally(results); {
	case fail > 0:
		return exitError{exitAnomaly}
	case pass == 0:
		return exitError{exitInconclusive}
	}
	return nil
}

func tally(results []conformResult) (pass, fail, na int) {
	for _, r := range results {
		switch r.v.Status {
		case suite.Pass:
			pass++
		case suite.Fail:
			fail++
		default:
			na++
		}
	}
	return
}

func writeConformTable(out io.Writer, rep conformReport) {
	results := rep.results
	fmt.Fprintf(out, "conform %q: %d case(s)\n\n", rep.target, len(results))
	for _, r := range results {
		v := r.v
		fmt.Fprintf(out, "%-10s %-4s  %s\n", v.Case.ID, strings.ToUpper(string(v.Status)), v.Case.Title)
		if v.Status != suite.Pass {
			fmt.Fprintf(out, "%16s %s\n", "why:", v.Why)
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
	pass, fail, na := tally(results)
	fmt.Fprintf(out, "\n%d passed, %d failed, %d n/a\n", pass, fail, na)
	fmt.Fprintf(out, "session contract: %s (%s)\n", rep.contract.Sessions, rep.contract.Why)
	switch {
	case fail > 0:
		fmt.Fprintf(out, "FAIL: %d case(s) broke the rule they check\n", fail)
	case pass == 0:
		fmt.Fprintln(out, "INCONCLUSIVE: no case applies to this Agent, so nothing was judged")
	default:
		fmt.Fprintln(out, "PASS: every case that applies holds")
	}
}

type conformJSONCase struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Source  string   `json:"source"`
	Quote   string   `json:"quote"`
	Verdict string   `json:"verdict"`
	Why     string   `json:"why,omitempty"`
	Frames  []string `json:"frames,omitempty"`
	Seconds float64  `json:"seconds"`
}

func frameLines(v suite.Verdict) []string {
	var out []string
	for _, f := range v.Frames {
		out = append(out, f.String())
	}
	return out
}

func writeConformJSON(out io.Writer, rep conformReport) error {
	pass, fail, na := tally(rep.results)
	type contract struct {
		Sessions string `json:"sessions"`
		Why      string `json:"why"`
	}
	doc := struct {
		Agent    string            `json:"agent"`
		Passed   int               `json:"passed"`
		Failed   int               `json:"failed"`
		NA       int               `json:"na"`
		Contract contract          `json:"sessionContract"`
		Cases    []conformJSONCase `json:"cases"`
	}{Agent: rep.target, Passed: pass, Failed: fail, NA: na, Contract: contract{rep.contract.Sessions, rep.contract.Why}}
	for _, r := range rep.results {
		v := r.v
		source, quote := v.Rule()
		doc.Cases = append(doc.Cases, conformJSONCase{ID: v.Case.ID, Title: v.Case.Title, Source: source, Quote: quote,
			Verdict: string(v.Status), Why: v.Why, Frames: frameLines(v), Seconds: r.took.Seconds()})
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
