package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/actors/agent/store/sqlitestore"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/checkclient"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/properties/clientcheck"
	"github.com/acpsim/acpsim/traces/shell"
)

// clientFaults are check-client's --fault-rates kinds and defaults: the
// tap's two (tap.Faults) and the adapter's restart.
var clientFaults = []struct {
	Kind string
	Rate float64
	Doc  string
}{
	{"kill", 0.3, "the Agent dies as it answers a prompt: inserted, the answer lost"},
	{"cut", 0.1, "a prompt is lost with the pipe: never inserted"},
	{"client-restart", 0.2, "the adapter is killed (with its Agent) while a submission is pending, and started again"},
	{"cancel", 0.1, `the user cancels a pending submission ({"cancel":ID}), if the adapter says it can`},
}

func newCheckClientCmd() *cobra.Command {
	cfg := checkclient.Config{Prompts: 5, Repeat: 0.2, PromptErrors: 0.1, Settle: 30 * time.Second, RestartWait: 5 * time.Second,
		StartTimeout: 10 * time.Second, ReadStore: readStoreTranscript}
	var seeds, jobs int
	var first uint64
	var faults, agentFlags, junit string
	protocol := "auto"
	cmd := &cobra.Command{
		Use:   "check-client [flags] -- CLIENT-ADAPTER [ARGS...]",
		Short: "Check a real ACP Client: acpsim plays its user and its Agent, under chaos, and judges it from the wire",
		Long: `Check a real Client the way acpsim check checks a real Agent. acpsim starts
the Client's adapter (the command after --; the contract is
docs/client-adapter.md) with $ACPSIM_AGENT set to the Agent command the
Client must spawn over stdio: acpsim's reference Agent with a durable store,
behind an acpsim tap that records every frame and injects the faults stdio
really has. The user's submissions go to the adapter's stdin as
{"submit":TEXT,"id":ID} lines; the adapter prints what it tells its user,
{"id":ID,"outcome":"inserted","messageId":…} (or failed, unknown). Now and
then acpsim kills the adapter while a submission is pending and starts it
again ({"restart":true} is its first line), with $ACPSIM_STATE_DIR kept, and
the user cancels a pending submission ({"cancel":ID}) if the adapter said it
can ({"capabilities":{"cancel":true}} on its stdout).
The Agent refuses a share of new prompts (--prompt-errors, 0.1) before it
inserts them, with an error the v2 schema allows (-32603, -32800 or a code
of the schema's Other kind): the message is not inserted and its key stays
unused, so a Client that tells its user inserted for such an answer (lost),
or gives the refused submission's key to its next one (key-reused), is
caught. Sending the refused text again under a new key is no anomaly.

After each seed acpsim reads the Agent's final transcript and judges the
Client (properties/clientcheck): what the user was told (duplicate, lost,
phantom, unresolved, wrong-id) and its key discipline from its frames
(key-changed, key-reused, key-malformed, unkeyed-resend,
resend-before-resume), each anomaly with the RFD sentence it breaks. A
failing seed's trace goes to acpsim-failures/ with NAME.client.json beside
it (the user's side: submissions, outcomes told, the final transcript), and
the command that reruns the seed: acpsim judge of that trace judges the
Client again from the two files, acpsim view draws it. The first seed with
anomalies is explained in full, a later one by each anomaly kind no seed
before it explained. Every outcome the
adapter tells is judged, not only the last: a failed told for a message
that was inserted is a phantom whatever it told after.

A verdict is an account: each seed and the run say on how many
submissions the outcomes were judged (those the Client sent as
session/prompt) and the keys on resend (those it sent more than once), and
the PASS line names only what was judged. A seed in which the Client sent
no session/prompt, or whose session/new nothing answered within
--start-timeout judged nothing: it is inconclusive,
with the one line the frames show (the initialize refused and the version
asked, session/new never answered, ...).

A Client that asks for ACP v1 is served v1 (--protocol auto) and judged
under v1: its outcomes by text, its keys not at all (v1 has none).

Every frame the Client sent and received is validated against the ACP
schema of the version negotiated, as acpsim lint does; the count is printed with the acpsim lint
command for the traces kept. A schema problem is a finding beside the
verdict: it does not change the exit code. --junit FILE writes the report as
JUnit XML: a testcase per seed (a failure holds the anomalies and the
rerun command, an inconclusive seed is skipped with why, what was judged and
not as properties).

Exit codes: 0 every seed passed and judged its outcomes; 1 a seed failed, or
the adapter broke the contract (a line that is not an outcome, an exit
before its input ended, no exit after it); 2 bad usage (or the adapter
cannot be started); 3 inconclusive: a seed judged nothing (the Client sent
no prompt, or its session was never set up), and none failed;
130 (SIGINT) or 143 (SIGTERM) interrupted: the adapter processes killed, the
scratch directory removed, and no verdict for the seeds cut short.`,
		Example: `  acpsim check-client -- node interop/keyed-client-adapter.mjs
  acpsim check-client --seeds 20 -- node interop/sdk-client-adapter.mjs     # no keys: exit 1
  acpsim check-client --fault-rates kill=0.5,client-restart=0 -- ./my-adapter
  acpsim check-client --agent-flags '--agent ignore-key' -- node interop/keyed-client-adapter.mjs   # exit 1
  acpsim check-client --junit check-client.xml -- ./my-adapter   # JUnit for CI`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("no Client adapter: give its command after --, e.g. acpsim check-client -- node interop/keyed-client-adapter.mjs")
			}
			if cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected argument %q: put the adapter's command after --", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case seeds < 1:
				return fmt.Errorf("--seeds %d: expected at least 1", seeds)
			case cfg.Prompts < 1 || cfg.Prompts > 10000:
				return fmt.Errorf("--prompts %d: expected 1 to 10000", cfg.Prompts)
			case jobs < 0:
				return fmt.Errorf("--jobs %d: expected 0 (the default) or more", jobs)
			case !(cfg.Repeat >= 0 && cfg.Repeat <= 1):
				return fmt.Errorf("--repeats %g: expected a number between 0 and 1", cfg.Repeat)
			case !(cfg.PromptErrors >= 0 && cfg.PromptErrors <= 1):
				return fmt.Errorf("--prompt-errors %g: expected a number between 0 and 1", cfg.PromptErrors)
			case cfg.Settle <= 0 || cfg.RestartWait <= 0 || cfg.StartTimeout <= 0:
				return errors.New("--settle, --restart-wait and --start-timeout must be positive")
			}
			base := map[string]float64{}
			for _, f := range clientFaults {
				base[f.Kind] = f.Rate
			}
			rates, err := netfault.ParseRates(faults, base)
			if err != nil {
				return fmt.Errorf("--fault-rates: %v", err)
			}
			cfg.Kill, cfg.Cut, cfg.Restart, cfg.Cancel = rates["kill"], rates["cut"], rates["client-restart"], rates["cancel"]
			if jobs == 0 {
				jobs = min(runtime.GOMAXPROCS(0), 4)
			}
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("cannot find the acpsim executable for the Agent command: %v", err)
			}
			if cfg.AgentArgs, err = shell.Split(agentFlags); err != nil {
				return fmt.Errorf("--agent-flags %q: %v", agentFlags, err)
			}
			versions := map[string]string{"auto": "negotiate", "1": "1", "2": "2"}
			if cfg.Protocol = versions[protocol]; cfg.Protocol == "" {
				return fmt.Errorf("--protocol %q: expected auto (the version the Client asks for), 1 or 2", protocol)
			}
			if _, err := exec.LookPath(args[0]); err != nil {
				return fmt.Errorf("cannot start the adapter: %v", err)
			}
			cfg.Self, cfg.Client = self, args
			return runCheckClient(cmd, cfg, first, seeds, jobs, rerunClient(cmd, args), junit)
		},
	}
	f := cmd.Flags()
	f.IntVar(&seeds, "seeds", 20, "how many seeds to run")
	f.Uint64Var(&first, "first-seed", 1, "the first seed")
	f.IntVarP(&jobs, "jobs", "j", 0, "seeds run side by side, each with its own adapter, Agent store and state directory (0: one per core, at most 4)")
	f.IntVar(&cfg.Prompts, "prompts", cfg.Prompts, "submissions per seed")
	f.Float64Var(&cfg.Repeat, "repeats", cfg.Repeat, "chance that a submission repeats an earlier one's text (the user sends it again on purpose)")
	f.Float64Var(&cfg.PromptErrors, "prompt-errors", cfg.PromptErrors, "share of new prompts the Agent refuses with an error before insertion (the key stays unused)")
	f.StringVar(&faults, "fault-rates", "", "fault probabilities as kind=rate,… over the defaults (acpsim help faults)")
	f.StringVar(&agentFlags, "agent-flags", "", "more flags for the reference Agent (acpsim agent), e.g. '--agent ignore-key' to see a known-bad Agent through the Client's eyes")
	f.DurationVar(&cfg.Settle, "settle", cfg.Settle, "how long an outcome may take, and the adapter's exit after its input ended")
	f.DurationVar(&cfg.RestartWait, "restart-wait", cfg.RestartWait, "how long a restarted adapter may take to tell the pending submission's outcome before the next one is submitted")
	f.DurationVar(&cfg.StartTimeout, "start-timeout", cfg.StartTimeout, "how long a submission may wait for a session/new answered on the wire before its seed ends, judging nothing")
	f.StringVar(&protocol, "protocol", protocol, "ACP version the Agent serves: auto (the one the Client asks for in initialize), 1 or 2 (pinned)")
	f.StringVar(&junit, "junit", "", "also write the report as JUnit XML to FILE: a testcase per seed, inconclusive seeds skipped with why")
	return cmd
}

// rerunClient is the command that reruns one seed: the flags given, the
// seed's own, and the adapter's command.
func rerunClient(cmd *cobra.Command, args []string) func(seed uint64) string {
	var flags []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name != "seeds" && f.Name != "first-seed" && f.Name != "jobs" && f.Name != "junit" {
			flags = append(flags, "--"+f.Name+"="+f.Value.String())
		}
	})
	return func(seed uint64) string {
		words := append([]string{"acpsim", "check-client", "--seeds=1", fmt.Sprintf("--first-seed=%d", seed)}, flags...)
		return shell.Join(append(append(words, "--"), args...))
	}
}

func runCheckClient(cmd *cobra.Command, cfg checkclient.Config, first uint64, seeds, jobs int, rerun func(uint64) string, junit string) error {
	out := cmd.OutOrStdout()
	defer exitOnInterrupt(cmd.ErrOrStderr(), "check-client")()
	scratch, err := makeScratch("acpsim-check-client-")
	if err != nil {
		return err
	}
	defer removeScratch(scratch)
	fmt.Fprintf(out, "check-client %s · %d seeds from %d · %d submissions each · faults kill=%g cut=%g client-restart=%g cancel=%g · prompt errors %g\n\n",
		shell.Join(cfg.Client), seeds, first, cfg.Prompts, cfg.Kill, cfg.Cut, cfg.Restart, cfg.Cancel, cfg.PromptErrors)

	results := make([]chan checkclient.Result, seeds)
	for i := range results {
		results[i] = make(chan checkclient.Result, 1)
	}
	sem := make(chan struct{}, jobs)
	go func() {
		for i := range seeds {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				seed := first + uint64(i)
				dir := filepath.Join(scratch, fmt.Sprintf("seed-%d", seed))
				// Mkdir, not MkdirAll: a seed started as an interrupt removes
				// the scratch directory must not make it again.
				if err := os.Mkdir(dir, 0o755); err != nil {
					results[i] <- checkclient.Result{Seed: seed, Broken: err.Error()}
					return
				}
				results[i] <- checkclient.Run(cfg, seed, dir)
			}()
		}
	}()
	run := clientRun{seeds: seeds, perKind: map[string]int{}, cancelRate: cfg.Cancel}
	var reports []clientSeedReport
	explained := map[string]bool{} // the anomaly kinds told in full so far
	start := time.Now()
	for i := range seeds {
		r := clientSeedReport{Result: <-results[i]}
		if proc.Stopping() {
			// An interrupt killed the adapters: this seed, and every one
			// after it, was cut short and proves nothing. The interrupt
			// handler exits with its own code.
			time.Sleep(time.Minute)
			return exitError{exitInterrupted}
		}
		r.lintSeed()
		r.rerun = rerun(r.Seed)
		if r.Failed() || r.Inconclusive != "" || r.schemaClient+r.schemaAgent > 0 {
			r.kept = keepClientTrace(&r.Result, r.rerun)
		}
		printClientSeed(out, &r)
		if r.Failed() {
			printClientFailure(out, &r, explained)
		}
		if r.Failed() || r.Inconclusive != "" {
			if r.kept != "" {
				fmt.Fprintf(out, "  trace: %s (acpsim judge, acpsim view)\n", r.kept)
			}
			fmt.Fprintf(out, "  rerun: %s\n", r.rerun)
		}
		run.add(&r)
		reports = append(reports, r)
	}
	code := run.finish(out)
	if junit != "" {
		if err := writeClientJUnit(junit, cfg, reports, time.Since(start)); err != nil {
			return fmt.Errorf("--junit: %v", err)
		}
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// readStoreTranscript reads the user messages of every session in the
// store file of acpsim agent --db: check-client's final transcript.
func readStoreTranscript(path string) ([]clientcheck.Message, error) {
	st, err := sqlitestore.Open(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var out []clientcheck.Message
	for _, s := range st.Sessions() {
		for _, m := range st.Messages(s.ID) {
			if m.Role == store.RoleUser {
				out = append(out, clientcheck.Message{Session: s.ID, ID: m.ID, Text: m.Text})
			}
		}
	}
	return out, nil
}
