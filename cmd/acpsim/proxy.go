package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault/realmode/stdioproxy"
	"github.com/acpsim/acpsim/traces/shell"
)

// proxyRetryAfter is the executable's default wait of a fresh-key-retry
// proxy: shorter than the reference Agent takes to answer a prompt to an idle
// session (2-10 ms through acpsim check: the insertion and its SQLite sync;
// the turn's work follows the answer), so the proxy's own retry races the
// answer on nearly every prompt, as a proxy with an impatient timeout would.
// The retry reaches the Agent while the turn runs, is held, and is inserted
// after it: a second copy no response names. At 30 ms only prompts held
// behind a running turn raced, and some seeds of acpsim check passed. The
// simulator keeps proxy.DefaultRetryAfter (150 ms of virtual time).
const proxyRetryAfter = time.Millisecond

func newProxyCmd() *cobra.Command {
	var mode string
	var retryAfter time.Duration
	cmd := &cobra.Command{
		Use:   "proxy [--mode MODE] [flags] [-- AGENT-COMMAND [ARGS...]]",
		Short: "Run a model ACP proxy as an executable between a Client (stdin/stdout) and an Agent it starts",
		Long: `Run one of the simulator's model proxies as a real stdio hop: it starts the
Agent's command (after --, else the shell words of $` + agentEnv + `, which
acpsim check --via sets), lets its stderr through, and speaks ndjson JSON-RPC
with the Client on stdin and stdout and with the Agent on its pipes. Like a
proxy of the proxy-chains RFD it gives every request an id of its own on the
Agent's side and maps the answers back. It is the same state machine the
simulator runs with --proxies 1 --proxy MODE.

Modes:
` + proxyModeList() + `

Every answer goes back under the Client's id, a malformed one (result and
error both) or a repeated one too, so a checker behind it sees them.
At the end of stdin it closes the Agent's stdin and waits for it, 2s at
most, then kills it; its exit code is the Agent's (128+n for a signal n).
An Agent's line over 16 MiB without a newline gets the Agent killed. The
Agent stays in the proxy's process group, so acpsim check's kill of the
proxy kills the Agent too.
Put it in front of an Agent with acpsim check --via to see what check says of
each mode: honest passes; strip-key and fresh-key-retry insert duplicates.
Every flag has an environment twin: --mode is ACPSIM_MODE, --retry-after
ACPSIM_RETRY_AFTER (the Agent it starts inherits them, and $` + agentEnv + `).`,
		Example: `  acpsim check --via 'acpsim proxy' -- acpsim agent
  acpsim check --via 'acpsim proxy --mode strip-key' -- acpsim agent   # duplicates: exit 1
  acpsim proxy --mode fresh-key-retry --retry-after 10ms -- acpsim agent`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected argument %q: put the Agent's command after --", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := proxy.Check(mode); err != nil {
				return fmt.Errorf("--mode: %v", err)
			}
			if retryAfter <= 0 {
				return fmt.Errorf("--retry-after %v: expected a positive duration", retryAfter)
			}
			argv := args
			if len(argv) == 0 {
				words, err := shell.Split(os.Getenv(agentEnv))
				if err != nil {
					return fmt.Errorf("$%s: %v", agentEnv, err)
				}
				argv = words
			}
			if len(argv) == 0 {
				return fmt.Errorf("no Agent command: give it after --, e.g. acpsim proxy -- acpsim agent, or in $%s", agentEnv)
			}
			code, err := stdioproxy.Run(stdioproxy.Config{Agent: resolveAgent(argv), Mode: mode, RetryAfter: retryAfter,
				NewID: uuid.NewString, In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&mode, "mode", proxy.Honest, "what the proxy does: "+strings.Join(proxyModeNames(), ", ")+" (see Modes above)")
	cmd.Flags().DurationVar(&retryAfter, "retry-after", proxyRetryAfter, "fresh-key-retry: how long a prompt may go unanswered before the proxy sends it again with a fresh key")
	return cmd
}

func proxyModeNames() []string {
	out := make([]string, 0, len(proxy.Modes))
	for _, m := range proxy.Modes {
		out = append(out, m.Name)
	}
	return out
}

// proxyModeList is proxy.Modes for --help, one line a mode.
func proxyModeList() string {
	var b strings.Builder
	for _, m := range proxy.Modes {
		fmt.Fprintf(&b, "  %-16s %s\n", m.Name, m.Doc)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
