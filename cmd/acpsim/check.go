package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// storeEnv is the environment variable through which acpsim check gives
// each seed's Agent processes a fresh directory for their state: the env
// twin of acpsim agent's --store, and a convention any Agent may follow.
const storeEnv = "ACPSIM_STORE"

func newCheckCmd() *cobra.Command {
	cfg := realmode.DefaultCheckConfig()
	var seeds int
	var first uint64
	var faults, schedule, traceDir string
	var show int
	cmd := &cobra.Command{
		Use:   "check [flags] -- AGENT-COMMAND [ARGS...]",
		Short: "Run the model Clients against a real Agent executable through a fault proxy",
		Long: `Check a real Agent: acpsim starts the command after -- (no shell: the words
are the argv) once per Client connection, speaks ACP v2 ndjson on its stdin
and stdout, and drives the simulator's model Clients and users against it in
real time. A fault proxy between the two loses and delays the Agent's
frames, breaks connections, and kills the Agent with SIGKILL (then the
Client starts it again). After the chaos the run heals, a fresh Agent
process is started for the observer, which reads every session's
transcript, and the simulator's checkers judge the trace: every submission
inserted at most once and never silently lost.

Each seed gets a fresh scratch directory in $ACPSIM_STORE, shared by that
seed's Agent processes: acpsim agent keeps its SQLite store there unless
--store says otherwise; any Agent may use it for its state.

Sessions: an Agent may keep them in memory (ACP v2 notes, T3b: its next
process answers session/resume -32002 and the Client starts a new session).
--session-contract auto (the default) judges such an Agent by the process
contract when no session of a seed survives a restart, and by the durable
one when some do; each seed's line and the summary say which and why.
--session-contract durable reports every session that vanished as
session-lost, once per session.

An Agent that cannot be talked to (exits at start, writes something that is
not JSON-RPC on stdout, answers initialize with an error or not at all,
answers an id it was never sent) gets a verdict in plain words and exit 1.

The OS is not deterministic, but every choice the proxy made is in the
trace: --schedule TRACE re-drives a run with the same faults at the same
frames as closely as the Agent's timing allows.

Exit codes: 0 every seed passed; 1 a property failed or the Agent is broken;
2 bad usage (or the command cannot be started); 3 inconclusive.`,
		Example: `  acpsim check -- acpsim agent
  acpsim check --seeds 200 -- acpsim agent --store /tmp/agent
  acpsim check -- acpsim agent --keys memory
  acpsim check --session-contract durable -- acpsim agent --sessions-in memory
  acpsim check --policy naive -- node interop/keyless-agent.mjs
  acpsim check --schedule acpsim-failures/check-seed-4.ndjson -- acpsim agent`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected argument %q: put the Agent's command after --", args[0])
			}
			urls, _ := cmd.Flags().GetStringArray("url")
			switch {
			case len(args) == 0 && len(urls) == 0:
				return errors.New("no Agent command: give it after --, e.g. acpsim check -- acpsim agent, or give --url")
			case len(args) > 0 && len(urls) > 0:
				return errors.New("both --url and an Agent command: check either a remote Agent or one it starts")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if seeds < 1 {
				return fmt.Errorf("--seeds %d: expected at least 1", seeds)
			}
			rates, err := netfault.ParseRates(faults, cfg.Rates)
			if err != nil {
				return err
			}
			cfg.Rates = rates
			if cfg.Timeout <= 0 || cfg.Backoff <= 0 || cfg.StartTimeout <= 0 || cfg.Cap <= 0 {
				return errors.New("--timeout, --backoff, --start-timeout and --cap must be positive")
			}
			if len(args) > 0 {
				cfg.Agent = resolveAgent(args)
			}
			for _, u := range cfg.URLs {
				if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "ws://") && !strings.HasPrefix(u, "wss://") {
					return fmt.Errorf("--url %q: expected http://, https://, ws:// or wss://, e.g. http://127.0.0.1:7070/acp", u)
				}
			}
			if err := traces.CheckSessionContract(cfg.Contract.Sessions); err != nil {
				return fmt.Errorf("--session-contract: %v", err)
			}
			if cfg.Contract.Sessions == traces.SessionsAuto {
				cfg.Contract.Sessions = "" // the checker's default, left out of the header
			}
			if cfg.Restart != "" && len(cfg.URLs) == 0 {
				return errors.New("--restart is for remote Agents (--url); a stdio Agent is restarted by starting its command again")
			}
			if schedule != "" {
				log, err := traces.ReadFile(schedule)
				if err != nil {
					return err
				}
				cfg.Chooser = sim.NewSchedule(sim.Recorded(log.Events))
				first, seeds = log.Header.Seed, 1
			}
			if traceDir != "" {
				if err := os.MkdirAll(traceDir, 0o755); err != nil {
					return fmt.Errorf("--trace-dir: %v", err)
				}
			}
			return runCheck(cmd, cfg, first, seeds, traceDir, show)
		},
	}
	f := cmd.Flags()
	f.IntVar(&seeds, "seeds", 30, "how many seeds to run, one after the other")
	f.Uint64Var(&first, "first-seed", 1, "the first seed")
	f.StringVar(&cfg.Policy, "policy", cfg.Policy, "the model Clients' retry policy (see acpsim run --help)")
	f.IntVar(&cfg.Clients, "clients", cfg.Clients, "model Clients, each with its own Agent process at a time")
	f.Var(newSessionsFlag(&cfg.Sessions, cfg.Sessions), "sessions", "sessions per Client (the session contract is --session-contract)")
	f.StringVar(&cfg.Contract.Sessions, "session-contract", traces.SessionsAuto, sessionContractDoc)
	f.IntVar(&cfg.Prompts, "prompts", cfg.Prompts, "submissions per Client")
	f.IntVar(&cfg.Cancels, "cancels", 0, "per Client: how often its user cancels")
	f.IntVar(&cfg.Closes, "closes", 0, "per Client: how often its user closes a session (and resumes it later)")
	f.IntVar(&cfg.Forks, "forks", 0, "per Client: how often its user forks a session")
	f.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "Client timeout waiting for a prompt's response (real time)")
	f.DurationVar(&cfg.Backoff, "backoff", cfg.Backoff, "Client wait before reconnecting or retrying")
	f.DurationVar(&cfg.MaxGap, "max-gap", cfg.MaxGap, "longest pause between two submissions of one user")
	f.DurationVar(&cfg.ChaosFor, "chaos-for", cfg.ChaosFor, "how long faults go on after the last submission")
	f.DurationVar(&cfg.StartTimeout, "start-timeout", cfg.StartTimeout, "how long initialize may go unanswered before the Agent is called hung")
	f.DurationVar(&cfg.Cap, "cap", cfg.Cap, "a seed still running after this long is stopped (inconclusive)")
	f.StringVar(&faults, "fault-rates", "", "fault probabilities as kind=rate,… over the defaults ("+checkFaultList()+")")
	f.StringArrayVar(&cfg.URLs, "url", nil, "check a remote Agent at this /acp endpoint (http:// for Streamable HTTP, ws:// for WebSocket); repeat for nodes sharing one store: each new connection goes to one of them")
	f.StringVar(&cfg.Restart, "restart", "", "remote: shell command that kills and restarts the Agent behind URL number $ACPSIM_NODE ($ACPSIM_URL) and returns once it serves again; without it a remote kill only breaks the connection")
	f.StringVar(&schedule, "schedule", "", "re-drive the run of this trace: its seed and the proxy's recorded choices")
	f.StringVar(&traceDir, "trace-dir", "", "write every seed's trace here as check-seed-N.ndjson (failing seeds always go to acpsim-failures/)")
	f.IntVar(&show, "show", 1, "failing seeds whose report and trace excerpt are printed in full")
	return cmd
}

func checkFaultList() string {
	parts := make([]string, 0, len(realmode.CheckFaults))
	for _, f := range realmode.CheckFaults {
		parts = append(parts, fmt.Sprintf("%s=%g: %s", f.Kind, f.Rate, f.Doc))
	}
	return strings.Join(parts, "; ")
}

// resolveAgent lets "acpsim" in the Agent's command mean this very binary
// when no acpsim is on PATH (go run, a fresh checkout).
func resolveAgent(argv []string) []string {
	if argv[0] != "acpsim" {
		return argv
	}
	if _, err := exec.LookPath("acpsim"); err == nil {
		return argv
	}
	exe, err := os.Executable()
	if err != nil {
		return argv
	}
	return append([]string{exe}, argv[1:]...)
}

// checkSeed is one seed's verdict.
type checkSeed struct {
	seed   uint64
	res    *realmode.CheckResult
	report *properties.Report
	trace  string
	// procs Agent processes started; kills of them by SIGKILL; crashes
	// exited on their own while the run still needed them.
	procs, kills, crashes int
	conns, cuts           int // remote
	redrive               func(trace string) string
}

func runCheck(cmd *cobra.Command, cfg realmode.CheckConfig, first uint64, seeds int, traceDir string, show int) error {
	out := cmd.OutOrStdout()
	target := strings.Join(cfg.Agent, " ")
	if len(cfg.URLs) > 0 {
		target = strings.Join(cfg.URLs, " ")
	}
	fmt.Fprintf(out, "checking %q: %d seed(s) from %d · policy %s · %d Client(s) × %d prompts\n",
		target, seeds, first, cfg.Policy, cfg.Clients, cfg.Prompts)
	var failed []checkSeed
	kinds := map[string]int{}
	totals := map[string]*sim.KindCount{}
	var kindOrder []string
	broken, inconclusive := 0, 0
	var contracts contractTally
	start := time.Now()
	for i := range seeds {
		seed := first + uint64(i)
		s, err := checkOne(cfg, seed, traceDir, rerunFlags(cmd.Flags(), "seeds", "first-seed", "trace-dir", "show", "schedule", "url", "restart"))
		if err != nil {
			return err
		}
		for _, f := range s.res.Faults {
			if totals[f.Kind] == nil {
				totals[f.Kind] = &sim.KindCount{Kind: f.Kind}
				kindOrder = append(kindOrder, f.Kind)
			}
			totals[f.Kind].Asked += f.Asked
			totals[f.Kind].Faults += f.Faults
		}
		status := "pass"
		switch {
		case s.res.Broken != nil:
			status = "BROKEN AGENT: " + s.res.Broken.Detail
			broken++
		case !s.report.OK():
			status = "FAIL: " + strings.Join(anomalyKinds(s.report), ", ")
			for _, k := range anomalyKinds(s.report) {
				kinds[k]++
			}
		case s.report.Inconclusive:
			status = "inconclusive (hit --cap while still busy)"
			inconclusive++
		}
		if status != "pass" {
			failed = append(failed, s)
		}
		if s.res.Broken == nil {
			contracts.add(s.report.Sessions)
		}
		agents := fmt.Sprintf("%d Agent processes: %d SIGKILLed, %d exited on their own", s.procs, s.kills, s.crashes)
		if len(cfg.URLs) > 0 {
			agents = fmt.Sprintf("%d connections, %d broken by the proxy", s.conns, s.cuts)
		}
		fmt.Fprintf(out, "seed %d: %s · %d submissions · %s · %d events · sessions %s\n",
			seed, status, s.report.Stats.Submissions, agents, len(s.res.Log.Events), s.report.Sessions.Chosen)
		if s.res.Broken != nil {
			fmt.Fprintf(out, "stopped after seed %d: the Agent cannot be talked to, so later seeds would say the same\n", seed)
			seeds = i + 1
			break
		}
	}
	fmt.Fprintf(out, "\n%d seed(s) in %v: %d passed, %d failed, %d broken Agent, %d inconclusive\n",
		seeds, time.Since(start).Round(time.Millisecond), seeds-len(failed), len(failed)-broken-inconclusive, broken, inconclusive)
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Fprintf(out, "  %-15s %d seed(s)\n", k, kinds[k])
	}
	var tally []sim.KindCount
	for _, k := range kindOrder {
		tally = append(tally, *totals[k])
	}
	writeFaults(out, tally)
	contracts.write(out)
	for i, s := range failed {
		if i == show {
			break
		}
		writeCheckFailure(out, s)
	}
	switch {
	case broken > 0 || len(failed) > inconclusive:
		return exitError{exitAnomaly}
	case inconclusive > 0:
		return exitError{exitInconclusive}
	}
	fmt.Fprintln(out, "PASS: every submission inserted at most once and never silently lost")
	return nil
}

func checkOne(cfg realmode.CheckConfig, seed uint64, traceDir, flags string) (checkSeed, error) {
	scratch, err := os.MkdirTemp("", fmt.Sprintf("acpsim-check-%d-", seed))
	if err != nil {
		return checkSeed{}, err
	}
	defer os.RemoveAll(scratch)
	cfg.Seed = seed
	cfg.Env = append(os.Environ(), storeEnv+"="+scratch)
	cfg.AgentLabel = shell.Join(cfg.Agent)
	target := " -- " + shell.Join(cfg.Agent)
	if len(cfg.URLs) > 0 {
		target = ""
		for _, u := range cfg.URLs {
			target += " --url " + shell.Quote(u)
		}
		if cfg.Restart != "" {
			target += " --restart " + shell.Quote(cfg.Restart)
		}
	}
	if flags != "" {
		flags = " " + flags
	}
	cfg.Command = fmt.Sprintf("acpsim check --first-seed %d --seeds 1%s%s", seed, flags, target)
	res, err := realmode.Check(cfg)
	if err != nil {
		return checkSeed{}, err
	}
	s := checkSeed{seed: seed, res: res, report: properties.Check(res.Log.Header, res.Log.Events)}
	s.redrive = func(trace string) string {
		return fmt.Sprintf("acpsim check --schedule %s%s%s", shell.Quote(trace), flags, target)
	}
	for _, e := range res.Log.Events {
		if e.Kind == traces.KindConnect && e.From != traces.Observer {
			s.conns++
		}
		if e.Kind == traces.KindDisconnect && (e.Note == "cut" || e.Note == "kill") {
			s.cuts++
		}
		if !strings.HasPrefix(e.From, realmode.AgentName+"#") {
			continue
		}
		switch {
		case e.Kind == traces.KindRestart:
			s.procs++
		case e.Kind == traces.KindKill && strings.HasPrefix(e.Note, "SIGKILL"):
			s.kills++
		case e.Kind == traces.KindKill && !strings.HasPrefix(e.Note, "exited: exit status 0"):
			s.crashes++
		}
	}
	failing := res.Broken != nil || !s.report.OK() || s.report.Inconclusive
	switch {
	case traceDir != "":
		s.trace = filepath.Join(traceDir, fmt.Sprintf("check-seed-%d.ndjson", seed))
	case failing:
		if err := os.MkdirAll("acpsim-failures", 0o755); err != nil {
			return s, err
		}
		s.trace = filepath.Join("acpsim-failures", fmt.Sprintf("check-seed-%d.ndjson", seed))
	}
	if s.trace != "" {
		f, err := createTrace(s.trace)
		if err != nil {
			return s, err
		}
		if err := writeTrace(f, res.Log); err != nil {
			return s, err
		}
	}
	return s, nil
}

func anomalyKinds(r *properties.Report) []string {
	var out []string
	for _, a := range r.Anomalies {
		if !contains(out, a.Kind) {
			out = append(out, a.Kind)
		}
	}
	return out
}

// writeCheckFailure prints a failing seed: the verdict table, and for each
// anomaly the trace events it cites.
func writeCheckFailure(out io.Writer, s checkSeed) {
	fmt.Fprintf(out, "\n── seed %d ──\n", s.seed)
	if b := s.res.Broken; b != nil {
		fmt.Fprintf(out, "the Agent (%s) is broken: %s\n", b.Process, b.Detail)
	} else {
		s.report.WriteText(out)
		byseq := map[int64]*traces.Event{}
		for i := range s.res.Log.Events {
			byseq[s.res.Log.Events[i].Seq] = &s.res.Log.Events[i]
		}
		for _, a := range s.report.Anomalies {
			about := a.Sub
			if about == "" && a.Session != "" {
				about = "session " + a.Session
			}
			fmt.Fprintf(out, "\n%s %s: trace excerpt\n", a.Kind, about)
			for _, seq := range a.Events {
				if e := byseq[seq]; e != nil {
					fmt.Fprintf(out, "  %s\n", excerptLine(e))
				}
			}
		}
	}
	fmt.Fprintf(out, "  trace: %s\n  rerun: %s\n", s.trace, s.res.Log.Header.Command)
	if s.trace != "" {
		fmt.Fprintf(out, "  re-drive: %s\n", s.redrive(s.trace))
	}
}

// excerptLine is one trace event for people.
func excerptLine(e *traces.Event) string {
	parts := []string{fmt.Sprintf("#%d", e.Seq), fmt.Sprintf("%7.1fms", float64(e.T)/1000), e.Kind}
	for _, f := range []string{e.Link, e.Dir, e.From, e.Sub, e.Outcome, e.MessageID, e.Note} {
		if f != "" {
			parts = append(parts, f)
		}
	}
	if e.Frame != "" {
		fr := e.Frame
		if len(fr) > 160 {
			fr = fr[:160] + "…"
		}
		parts = append(parts, fr)
	}
	return strings.Join(parts, " ")
}
