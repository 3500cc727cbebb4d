package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

func newJudgeCmd() *cobra.Command {
	var contract string
	cmd := &cobra.Command{
		Use:   "judge TRACE",
		Short: "Check a trace file with the property checkers and print the verdict",
		Long: `Read a trace (ndjson, as run --trace writes it) and judge it from its frames
alone. A malformed trace is rejected with file:line and what was expected.`,
		Example: "  acpsim judge a.ndjson\n  acpsim judge --session-contract durable a.ndjson",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := traces.ReadFile(args[0])
			if err != nil {
				return err
			}
			if contract != "" {
				if err := traces.CheckSessionContract(contract); err != nil {
					return fmt.Errorf("--session-contract: %v", err)
				}
				log.Header.Contract.Sessions = contract
			}
			rep := properties.Check(log.Header, log.Events)
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s · seed %d · policy %s · agent %s · %d events\n\n", args[0], log.Header.Seed, log.Header.Policy, log.Header.Agent, len(log.Events))
			rep.WriteText(out)
			fmt.Fprintln(out)
			return verdict(out, rep.OK(), rep.Inconclusive, log.Header.Command, func() string { return args[0] })
		},
	}
	cmd.Flags().StringVar(&contract, "session-contract", "", sessionContractDoc+"; empty: as the trace header says")
	return cmd
}
