package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/check"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// storeEnv is the environment variable through which acpsim check gives
// each seed's Agent processes a fresh directory for their state: the env
// twin of acpsim agent's --store, and a convention any Agent may follow.
const storeEnv = "ACPSIM_STORE"

func newCheckCmd() *cobra.Command {
	cfg := check.DefaultConfig()
	var seeds, jobs int
	var first uint64
	var sessions sessionFlags
	var faults, schedule, traceDir, via, actions, cancelBy string
	var recordHop bool
	protocol := "auto"
	var show int
	cmd := &cobra.Command{
		Use:   "check [flags] -- AGENT-COMMAND [ARGS...]",
		Short: "Run the model Clients against a real Agent executable through a fault proxy",
		Long: `Check a real Agent: acpsim starts the command after -- (no shell: the words
are the argv) once per Client connection, speaks ACP v2 ndjson on its stdin
and stdout, and drives the simulator's model Clients and users against it.
A fault proxy between the two loses and delays the Agent's frames, breaks
connections, and kills the Agent with SIGKILL (then the Client starts it
again). After the chaos the run heals, a fresh Agent process is started for
the observer, which reads every session's transcript, and the simulator's
checkers judge the trace: every submission inserted at most once and never
silently lost.

--clock virtual (the default): acpsim holds the schedule. Its Clients,
users and proxy run on a virtual clock that takes one step at a time, each
once the Agent has settled (answered what it owes, ended a turn it reported
running, silent for --settle, and on Linux no thread of it running), with
decisions chosen site by site; so a failing seed's rerun and re-drive fail
again for an Agent whose outputs depend only on the order of its inputs,
on a busy machine too. In a pause of one Agent's work (silent for --settle
while a turn runs or an answer is owed) a seeded choice lets the clock run
on 60 ms, so what the users do meanwhile (a cancel, a close, a retry)
reaches the Agent in the middle of its turn. --repeat N runs a seed N times
and counts. --clock wall: everything runs in real time and races the Agent,
which finds timing races and reproduces them only sometimes.

Each seed gets a fresh scratch directory in $ACPSIM_STORE, shared by that
seed's Agent processes: acpsim agent keeps its SQLite store there unless
--store says otherwise; any Agent may use it for its state.

The users cancel, close and fork by default (--actions on): each seed
switches cancel by $/cancel_request, cancel by session/cancel,
close-and-resume and fork on or off and draws how often each user does
those on (1 … 2× the base: --cancels, --closes, --forks when given, else
6, 2, 2); each seed's line names its classes, the summary counts per class
the seeds it was on in, those whose trace shows it exercised and the
failing ones, and a seed's rerun command states what it drew
(--actions=off --cancels=N …). --actions=off: the count flags as given
(none by default). Exercised is what reached the Agent, not what was
drawn: a session/fork answered with a success; a session/cancel while a
prompt of its session was pending; a $/cancel_request naming a pending
request; a session/close answered, then the session resumed; a prompt
sent again while its first attempt was pending (impatient). A class on in
some seeds but exercised in none gets a line with the most common reason
("fork: on in 8 seeds, exercised in 0: session/fork answered -32601, all
12 times"), and the PASS line says it was not exercised.

Sessions: an Agent may keep them in memory (ACP v2 notes, T3b: its next
process answers session/resume -32002 and the Client starts a new session).
--session-contract auto (the default) judges such an Agent by the process
contract when no session of a seed survives a restart, and by the durable
one when some do; each seed's line and the summary say which and why.
--session-contract durable (or --sessions durable) reports every session
that vanished as session-lost, once per session.

A proxy or conductor in the path: --via 'PROXY-COMMAND …' starts that
command in place of the Agent's, with the Agent's command as the word
{agent} in its arguments and in $ACPSIM_AGENT_COMMAND; acpsim kills and
restarts it (with its process group, so the Agent behind it too) as it
would the Agent, and judges the chain end to end: a proxy that drops or
changes idempotencyKey shows as duplicates and bad replies. With
--record-hop (the default) an acpsim tap stands between the proxy and each
Agent process it starts through {agent} or $ACPSIM_AGENT_COMMAND, recording
the proxy→Agent hop: a failing seed's report then says, before its
anomalies, what the proxy did from both hops (a cancel forwarded under the
wrong id, a key dropped or changed, an answer passed to another request, a
prompt of its own), judges the Agent alone on what it was sent, and shows
each frame it cites on both hops; the hop's trace is saved beside the
seed's as NAME.hop.ndjson.

An Agent that cannot be talked to (exits at start, writes something that is
not JSON-RPC on stdout, answers initialize with an error or not at all,
answers session/new without a sessionId or not at all, answers an id it was
never sent, nothing answers at --url for --start-timeout) gets a verdict in
plain words and exit 1 (under --via: a broken path, the proxy or the Agent
behind it); one that exited shows the end of its stderr, and the trace keeps
all of it. An Agent that answers initialize in ACP v1 stops the run with one
line saying so: these checks cover v2 and the RFD, so exit 3. A failing
seed's trace goes to acpsim-failures/check-RUNID-seed-N.ndjson (RUNID: when
the run started, UTC); no file is ever overwritten.

Schema: every frame of every seed is checked as acpsim lint checks it (the
official ACP v2 schema, the RFD's idempotencyKey rules; the observer's
probes, noted "probe", are malformed on purpose and allowed). One line
counts the frames with problems and the seeds they are in, and gives the
acpsim lint command that lists them (a seed with schema problems has its
trace written as a failing seed's). A schema problem is a finding beside
the verdict: it does not by itself fail the run or change the exit code,
as loss and duplicates are judged from what the frames say.

--junit FILE also writes the report as JUnit XML: a testcase per seed
reported; a failing seed's failure text is its report (anomalies, trace
excerpts, rerun and re-drive commands); an inconclusive seed is skipped
with why; a broken Agent is an error. Each testcase's properties say what
its report says besides the verdict: the session contract, the action
classes on, exercised and not exercised, the frames with schema problems.

Seeds run side by side (--jobs, default one per core: a seed mostly waits
on real-time timeouts), each with its own scratch directory and Agent
processes. Every seed's line is printed in seed order once it and the
seeds before it are done, so the report is the same for any --jobs (a
seed's faults are drawn from its seed; its process and event counts
depend on the OS's timing either way). A broken Agent stops the run: later
seeds are not started and only seeds up to the broken one are reported.
Against --url with --restart seeds run one at a time: a restart of the
remote Agent would break the other seeds' connections.

A verdict is an account: the summary's "judged:" lines say, for duplicate,
lost, phantom and unresolved, how many submissions each was judged for and
why not the rest. Before a Client's connection closes, the observer reads
each session its Agent process holds on that live connection (a
session/resume with replay), so an Agent that keeps sessions in memory is
judged for them; what died with a killed process is "not judged", never a
pass. A seed where never silently lost could be judged for none of its
submissions is inconclusive (exit 3); a PASS that could not judge all says
"PASS on what was judged" with the counts.

The OS is not deterministic, but every choice the proxy made is in the
trace: --schedule TRACE re-drives a run with the same faults at the same
frames as closely as the Agent's timing allows. With no Agent command after
-- (and no --url) it re-drives the Agent and flags the trace's header
records; flags given again win.

Exit codes: 0 every seed passed; 1 a property failed or the Agent is broken;
2 bad usage (or the command cannot be started); 3 inconclusive; 130 (SIGINT)
or 143 (SIGTERM) interrupted: the Agent processes killed, with what they
started, and the scratch directories removed.`,
		Example: `  acpsim check -- acpsim agent
  acpsim check --seeds 200 -- acpsim agent --store /tmp/agent
  acpsim check --seeds 100 --jobs 8 -- acpsim agent
  acpsim check -- acpsim agent --keys memory                                      # duplicates: exit 1
  acpsim check --session-contract durable -- acpsim agent --sessions-in memory    # session-lost: exit 1
  acpsim check --policy naive -- node interop/keyless-agent.mjs                   # duplicates: exit 1
  acpsim check --via 'acpsim proxy' -- acpsim agent
  acpsim check --junit acpsim-check.xml -- acpsim agent                           # for a CI
  acpsim check --schedule acpsim-failures/check-20261204T152824-seed-4.ndjson`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected argument %q: put the Agent's command after --", args[0])
			}
			urls, _ := cmd.Flags().GetStringArray("url")
			scheduled, _ := cmd.Flags().GetString("schedule")
			switch {
			case len(args) == 0 && len(urls) == 0 && scheduled == "":
				return errors.New("no Agent command: give it after --, e.g. acpsim check -- acpsim agent, or give --url")
			case len(args) > 0 && len(urls) > 0:
				return errors.New("both --url and an Agent command: check either a remote Agent or one it starts")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if schedule != "" && len(args) == 0 && len(cfg.URLs) == 0 {
				var err error
				if args, err = adoptTraceCommand(cmd, schedule); err != nil {
					return err
				}
			}
			if seeds < 1 {
				return fmt.Errorf("--seeds %d: expected at least 1", seeds)
			}
			if jobs < 0 {
				return fmt.Errorf("--jobs %d: expected 0 (one per core) or more", jobs)
			}
			if jobs == 0 {
				jobs = runtime.GOMAXPROCS(0)
			}
			rates, err := netfault.ParseRates(faults, cfg.Rates)
			if err != nil {
				return err
			}
			cfg.Rates = rates
			if cfg.CancelBy, err = cancelByFlag(cancelBy); err != nil {
				return fmt.Errorf("--%v", err)
			}
			given := users.Actions{Cancels: cfg.Cancels, Closes: cfg.Closes, Forks: cfg.Forks, CancelBy: cfg.CancelBy}
			if cfg.Cancels < 0 || cfg.Closes < 0 || cfg.Forks < 0 {
				return fmt.Errorf("--cancels %d, --closes %d, --forks %d: expected 0 or more", cfg.Cancels, cfg.Closes, cfg.Forks)
			}
			base, err := actionBase(cmd.Flags(), actions, given, checkActionBase)
			if err != nil {
				return err
			}
			var draw *users.Actions // the base of each seed's draw; nil: as given
			if actions == "on" {
				draw = &base
			}
			if err := checkProtocol(cmd.Flags(), protocol, &cfg); err != nil {
				return err
			}
			draw = v1Actions(cfg, draw)
			if cfg.Timeout <= 0 || cfg.Backoff <= 0 || cfg.StartTimeout <= 0 || cfg.Cap <= 0 || cfg.Settle <= 0 || cfg.OwedWait <= 0 {
				return errors.New("--timeout, --backoff, --start-timeout, --settle, --owed-wait and --cap must be positive")
			}
			if !contains(check.Clocks, cfg.Clock) {
				return fmt.Errorf("--clock %q: expected one of %s", cfg.Clock, strings.Join(check.Clocks, ", "))
			}
			var target []string // what reruns name after --: the Agent, not the proxy
			if len(args) > 0 {
				cfg.Agent = resolveAgent(args)
				target = cfg.Agent
			}
			if via != "" {
				if len(cfg.URLs) > 0 {
					return errors.New("--via puts a proxy in front of an Agent acpsim starts; with --url, run the proxy in front of the remote Agent yourself")
				}
				argv, env, err := throughProxy(via, cfg.Agent)
				if err != nil {
					return err
				}
				if recordHop {
					if cfg.Hop, err = hopCommand(via, cfg.Agent); err != nil {
						return err
					}
				}
				cfg.Agent = resolveAgent(argv)
				cfg.Env = append(os.Environ(), env)
				cfg.Via = via
			}
			for _, u := range cfg.URLs {
				if err := checkAgentURL(u); err != nil {
					return err
				}
			}
			if err := traces.CheckSessionContract(cfg.Contract.Sessions); err != nil {
				return fmt.Errorf("--session-contract: %v", err)
			}
			cfg.Contract.Sessions = traces.HeaderSessionContract(cfg.Contract.Sessions)
			if cfg.Restart != "" && len(cfg.URLs) == 0 {
				return errors.New("--restart is for remote Agents (--url); a stdio Agent is restarted by starting its command again")
			}
			if cfg.Restart != "" {
				if cmd.Flags().Changed("jobs") && jobs > 1 {
					return fmt.Errorf("--jobs %d with --restart: a restart of the remote Agent would break the other seeds' connections; use --jobs 1", jobs)
				}
				jobs = 1
			}
			if schedule != "" {
				log, err := readTrace(schedule)
				if err != nil {
					return err
				}
				cfg.Chooser = sim.NewSchedule(sim.Recorded(log.Events))
				first, seeds = log.Header.Seed, 1
				if repeat, _ := cmd.Flags().GetInt("repeat"); repeat <= 1 {
					jobs = 1
				}
			}
			if repeat, _ := cmd.Flags().GetInt("repeat"); repeat < 0 || repeat > 0 && seeds != 1 {
				return fmt.Errorf("--repeat %d with --seeds %d: --repeat runs one seed again and again; give --seeds 1 (a rerun) or --schedule TRACE (a re-drive)", repeat, seeds)
			}
			if traceDir != "" {
				if err := os.MkdirAll(traceDir, 0o755); err != nil {
					return fmt.Errorf("--trace-dir: %v", err)
				}
			}
			return runCheck(cmd, cfg, target, first, seeds, jobs, traceDir, show, draw)
		},
	}
	f := cmd.Flags()
	f.IntVar(&seeds, "seeds", 30, "how many seeds to run")
	f.IntVarP(&jobs, "jobs", "j", 0, "seeds run side by side, each with its own Agent and $ACPSIM_STORE (0: one per core); the report is the same")
	f.Uint64Var(&first, "first-seed", 1, "the first seed")
	f.StringVar(&cfg.Policy, "policy", cfg.Policy, "the model Clients' retry policy (--list-policies)")
	f.StringVar(&protocol, "protocol", protocol, "ACP version: auto (v2, or v1 if the Agent answers initialize in v1), 1 or 2 (pinned)")
	f.IntVar(&cfg.Clients, "clients", cfg.Clients, "model Clients, each with its own Agent process at a time")
	cfg.Contract.Sessions = traces.SessionsAuto
	sessions = sessionFlags{n: &cfg.Sessions, contract: &cfg.Contract.Sessions}
	sessions.registerCount(f, cfg.Sessions)
	sessions.registerContract(f, sessionContractDoc)
	f.IntVar(&cfg.Prompts, "prompts", cfg.Prompts, "submissions per Client")
	f.IntVar(&cfg.Cancels, "cancels", 0, "per Client: how often its user cancels")
	f.IntVar(&cfg.Closes, "closes", 0, "per Client: how often its user closes a session (and resumes it later)")
	f.IntVar(&cfg.Forks, "forks", 0, "per Client: how often its user forks a session")
	f.StringVar(&cancelBy, "cancel-by", "either", cancelByDoc)
	registerActions(f, &actions, checkActionBase)
	f.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "Client timeout waiting for a prompt's response (on the run's --clock)")
	f.DurationVar(&cfg.Backoff, "backoff", cfg.Backoff, "Client wait before reconnecting or retrying")
	f.DurationVar(&cfg.MaxGap, "max-gap", cfg.MaxGap, "longest pause between two submissions of one user")
	f.DurationVar(&cfg.ChaosFor, "chaos-for", cfg.ChaosFor, "how long faults go on after the last submission")
	f.DurationVar(&cfg.StartTimeout, "start-timeout", cfg.StartTimeout, "how long initialize may go unanswered before the Agent is called hung")
	f.StringVar(&cfg.Clock, "clock", cfg.Clock, "virtual: acpsim holds the schedule, a failing seed fails again; wall: real time, races the Agent")
	f.DurationVar(&cfg.Settle, "settle", cfg.Settle, "virtual clock: how long the Agent must stay silent before acpsim takes its next step")
	f.DurationVar(&cfg.OwedWait, "owed-wait", cfg.OwedWait, "virtual clock: how long acpsim waits for an answer the Agent owes before it goes on without it")
	f.DurationVar(&cfg.Cap, "cap", cfg.Cap, "a seed's chaos stops after this long (heal and observer get a quarter more each); what is left is inconclusive")
	f.StringVar(&faults, "fault-rates", "", "fault probabilities as kind=rate,… over the defaults (acpsim help faults)")
	f.StringArrayVar(&cfg.URLs, "url", nil, "check a remote Agent at this /acp endpoint (http:// or ws://); repeat for nodes sharing one store")
	f.StringVar(&cfg.Restart, "restart", "", "remote: shell command that restarts the Agent at $ACPSIM_URL (--url number $ACPSIM_NODE), returning once it serves")
	f.StringVar(&schedule, "schedule", "", "re-drive the run of this trace: its seed and the proxy's recorded choices")
	f.StringVar(&traceDir, "trace-dir", "", "write every seed's trace here as check-seed-N.ndjson (failing seeds always go to acpsim-failures/)")
	f.String("junit", "", "also write the report as JUnit XML here: a testcase per seed (failure, error: broken Agent, skipped: inconclusive)")
	f.BoolVar(&recordHop, "record-hop", true, "under --via, record the proxy→Agent hop (acpsim tap before each Agent process) to name what the proxy did")
	f.StringVar(&via, "via", "", "a proxy or conductor command to start in front of the Agent: {agent} (or $"+agentEnv+") is the Agent's command")
	f.StringSliceVar(&cfg.Skip, "skip", nil, `users' events to leave out: a submission ("s3"), an action ("c1:cancel#0") or a Client ("c2"), as a schedule shrink made does`)
	f.Int("repeat", 0, "run the one seed (--seeds 1) or the --schedule N times: \"reproduced k of N\", each run's anomalies")
	f.IntVar(&show, "show", 1, "failing seeds whose report and trace excerpt are printed in full")
	withCatalogues(cmd, "policies")
	return cmd
}

// resolveAgent lets "acpsim" in the Agent's command mean this very binary
// when no acpsim is on PATH (go run, a fresh checkout).
// checkAgentURL refuses a --url that names no ACP transport.
func checkAgentURL(u string) error {
	for _, scheme := range []string{"http://", "https://", "ws://", "wss://"} {
		if strings.HasPrefix(u, scheme) {
			return nil
		}
	}
	return fmt.Errorf("--url %q: expected http://, https://, ws:// or wss://, e.g. http://127.0.0.1:7070/acp", u)
}

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
		writeBroken(out, b)
	} else {
		writeHop(out, s.hop)
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
			shown := map[int64]bool{}
			for _, seq := range a.Events {
				if e := byseq[seq]; e != nil {
					fmt.Fprintf(out, "  %s\n", excerptLine(e))
					if l := hopLine(s.hop, e, shown); l != "" {
						fmt.Fprintf(out, "  %s\n", l)
					}
				}
			}
		}
	}
	fmt.Fprintf(out, "  trace: %s\n  rerun: %s\n", s.trace, s.res.Log.Header.Command)
	if s.trace != "" {
		fmt.Fprintf(out, "  re-drive: %s\n", s.redrive(s.trace))
		fmt.Fprint(out, eventsLine(s.trace, s.report))
	}
}

// writeStderr prints the end of a process's stderr that a verdict cites
// (proc.StderrExcerpt), saying where the rest is.
func writeStderr(out io.Writer, lines []string, total int, rest string) {
	if len(lines) == 0 {
		return
	}
	shown := len(lines) - slices.Index(lines, "…") - 1 // the lines after a "…" are the end
	if slices.Contains(lines, "…") {
		shown++ // and the error line before it
	}
	if shown < total {
		if rest != "" {
			rest = "; " + rest
		}
		fmt.Fprintf(out, "  its stderr, the end (%d of %d lines%s):\n", shown, total, rest)
	} else {
		fmt.Fprintf(out, "  its stderr:\n")
	}
	for _, l := range lines {
		fmt.Fprintf(out, "    %s\n", l)
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
