package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/tap"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces/shell"
)

func newTapCmd() *cobra.Command {
	var trace, faults, client string
	var seed uint64
	var process int
	cmd := &cobra.Command{
		Use:   "tap --trace FILE [flags] -- AGENT-COMMAND [ARGS...]",
		Short: "Record a real Client's session with a real Agent as an acpsim trace, passing every frame through",
		Long: `Put acpsim tap in front of your Agent's command in your editor's settings:
it starts the Agent, passes every line between your editor (the tap's stdin
and stdout) and the Agent unchanged, lets the Agent's stderr through, and
appends each frame to the trace FILE. Each start of the tap is the next
Agent process in the same trace, so a session across editor and Agent
restarts is one trace; a last line a killed tap left cut off is truncated
away first (said on stderr). The tap's exit code is the Agent's. A line over
16 MiB without a newline is not read: from the editor, its input ends there;
from the Agent, the Agent is killed (137). Each is said on stderr.

acpsim judge FILE judges what such a partial history shows: duplicates the
Agent's responses reveal (two messageIds for one key), wrong ids, key leaks,
bad replies (a malformed key accepted, a request never answered before the
Agent exited), keys reused across prompts. A tap sees no user's outcomes and
no final transcript, so these are not judged on a tap's trace:
` + strings.Join(properties.NeedWholeHistory, ", ") + `.
acpsim view FILE draws it.

--fault-rates makes the tap a fault injector too (off by default): kill=P
kills the Agent as it answers a session/prompt (inserted, the answer never
reaches the Client), cut=P loses a session/prompt with the pipe (never
inserted). Each ends the Agent process, so the Client must reconnect and
recover; --seed draws the decisions. acpsim check-client puts such a tap in
front of its Agent. The Agent runs with $ACPSIM_TAP_PROCESS set to its
process's number in the trace (1, 2, ...): acpsim agent --prompt-errors
draws by it, so each process refuses prompts of its own.`,
		Example: `  acpsim tap --trace ~/acp-session.ndjson -- acpsim agent
  acpsim judge ~/acp-session.ndjson   # exit 3 while it holds no prompt
  acpsim tap --trace t.ndjson --fault-rates kill=0.3 -- acpsim agent --db /tmp/a.db`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("no Agent command: give it after --, e.g. acpsim tap --trace t.ndjson -- acpsim agent")
			}
			if cmd.ArgsLenAtDash() > 0 {
				return fmt.Errorf("unexpected argument %q: put the Agent's command after --", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if trace == "" {
				return errors.New("--trace: expected the trace file to write (appended to if it is a tap's trace)")
			}
			if process < 0 {
				return fmt.Errorf("--process %d: expected a process number, 1 or more (0: the next after the trace's last)", process)
			}
			if strings.ContainsAny(client, ":# ") {
				return fmt.Errorf("--client %q: expected a name without ':', '#' or spaces, e.g. proxy", client)
			}
			rates, err := netfault.ParseRates(faults, tap.FaultKinds)
			if err != nil {
				return fmt.Errorf("--fault-rates: %v", err)
			}
			code, err := tap.Run(tap.Config{Agent: resolveAgent(args), Trace: trace, Label: shell.Join(args),
				In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(),
				Faults: tap.Faults{Kill: rates["kill"], Cut: rates["cut"], Seed: seed},
				Client: client, Process: process})
			if err != nil {
				return err
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	// The Agent's command starts at its first word, -- or not: what
	// follows is the Agent's, flags included (check --via's hop starts a
	// tap with no -- of its own, which a proxy looking for the first --
	// in its arguments would take for its own).
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&trace, "trace", "", "the trace file: created, or appended to when it is a trace an earlier tap wrote")
	cmd.Flags().StringVar(&faults, "fault-rates", "", "faults to inject, as kind=rate,…: kill (the Agent dies as it answers a prompt) or cut (a prompt is lost); default none")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "the seed the fault decisions are drawn from")
	cmd.Flags().StringVar(&client, "client", "", "the Client's name in the trace (default "+tap.ClientName+"); acpsim check --via calls it proxy")
	cmd.Flags().IntVar(&process, "process", 0, "number this Agent process N in the trace (a1#N) instead of the next after the trace's last")
	return cmd
}
