package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault/realmode/conformrun"
	"github.com/acpsim/acpsim/properties/conform/suite"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

func newConformCmd() *cobra.Command {
	cfg := conformrun.DefaultConfig()
	var junit, format, run, traceDir string
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

The six baseline cases run first: initialize (protocolVersion, info,
capabilities), session/new, a turn reported by state_update running then
idle, session/resume with replay, session/list, and session/close keeping
the session resumable. Every other case names the baselines it needs; when
one failed, the case is BLOCKED by it (not run, not failed; JUnit skipped
"blocked by baseline-…"), or, when only part of it needs that baseline,
judged on the rest. The report opens with the missing baselines, and with
the real cause when every keyed retry was answered as a new prompt.

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

Every frame is checked against the official ACP v2 schema as acpsim lint
does; one line gives the count of problems and the acpsim lint command for
the traces (--trace-dir DIR writes them). A schema problem is a finding
beside the verdicts: it does not by itself change the exit code.

An Agent whose initialize answer says it speaks ACP v1 gets one line
saying so and exit 3: no case is run beyond initialize.

Exit codes: 0 every case that applies passed (a blocked case is neither a
pass nor a failure); 1 a case failed, or nothing answers at --url; 2 bad
usage (or the command cannot be started); 3 no case applies, so nothing was
judged, or the Agent speaks ACP v1; 130 (SIGINT) or 143 (SIGTERM)
interrupted: the Agent processes killed and the scratch directories
removed.`,
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
			cases = suite.WithBaselines(all, cases)
			target := cfg.URL
			if len(args) > 0 {
				cfg.Agent = resolveAgent(args)
				target = shell.Join(args)
			}
			defer exitOnInterrupt(cmd.ErrOrStderr(), "conform")()
			rep := conformReport{target: target, contract: suite.Contract{Sessions: contract}, verbose: verbose, traceDir: traceDir}
			return runConform(cmd.OutOrStdout(), cfg, rep, cases, format, junit)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.URL, "url", "", "check a remote Agent at this /acp endpoint (http:// for Streamable HTTP, ws:// for WebSocket)")
	f.StringVar(&cfg.Restart, "restart", "", "remote: shell command that restarts the Agent at $ACPSIM_URL, returning once it serves (else no kill cases)")
	f.StringVar(&junit, "junit", "", "also write the verdicts as JUnit XML to this file (one testcase per case; n/a as skipped)")
	f.StringVar(&format, "format", "text", "output: text (a table) or json")
	f.StringVar(&traceDir, "trace-dir", "", "write each case's frames to DIR/CASE.ndjson, an acpsim trace that judge, view and lint read")
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
