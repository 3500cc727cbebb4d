package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/realmode"
	"github.com/acpsim/acpsim/sim"
	"github.com/google/uuid"
)

func newAgentCmd() *cobra.Command {
	var sf simFlags
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run a model Agent as an executable: ACP over stdin/stdout (ndjson)",
		Long: `Run the reference Agent (or any model Agent: --agent) as a real process that
speaks ACP v2 as ndjson on stdin and stdout; logs go to stderr. It is the same
state machine the simulator runs, so the executable and the model cannot
drift apart. The Agent knobs are flags, as for run and swarm.

Its store is in memory for now: the process keeps sessions, messages and key
bindings while it runs, and a restart forgets them.`,
		Example: `  acpsim agent
  acpsim agent --busy breakpoint --agent memory-keys`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := sf.config()
			if err != nil {
				return err
			}
			f, err := agent.Lookup(cfg.Agent)
			if err != nil {
				return err
			}
			disk := store.NewDisk()
			m := f(cfg.Knobs, func() store.Store { return disk }, agent.Env{
				Name:   "acpsim-agent",
				Choose: sim.Healthy{}.Choose, // a real process injects no faults of its own
				NewID:  func() string { return uuid.NewString() },
			})
			fmt.Fprintf(os.Stderr, "acpsim agent %s: serving ACP v2 on stdin/stdout\n", cfg.Agent)
			return realmode.ServeStdio(m, disk, os.Stdin, os.Stdout)
		},
	}
	sf.register(cmd.Flags())
	return cmd
}
