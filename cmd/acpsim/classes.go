package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim/classes"
)

func newClassesCmd() *cobra.Command {
	var verify bool
	cmd := &cobra.Command{
		Use:   "classes",
		Short: "Print the retry class of every ACP v2 method; --verify checks them by simulation",
		Long: `Print the prompt-idempotency RFD's retry class of every method and
notification in the v2 schemas (stable and unstable, both directions): who
sends it, its class, whose word the class is (RFD: the RFD's text says it;
acpsim: acpsim's reasoning, the RFD's audit table being lost) and why.

The classes: as-is (safe to send again as is), keyed (safe to send again with
the same idempotencyKey), duplicating (a resend creates a second effect),
never (not resent: notifications, responses, connection-bound handshakes).

With --verify, every Client→Agent request the reference Agent serves is sent,
its response lost, and sent again as its class allows, at once, while the
session is busy, after the Agent went quiet, on a new connection and after an
Agent restart. A fresh connection then reads the Agent's state (session/list
and every transcript replayed from the start). as-is and keyed must leave the
state as one send did; duplicating must not. Notifications, Agent→Client
requests and methods the reference Agent lacks are listed as not simulated.
Exit 0 when nothing failed, 1 otherwise.`,
		Example: `  acpsim classes
  acpsim classes --verify`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if !verify {
				writeClasses(out, acp.Classes())
				return nil
			}
			if failed := writeVerify(out, classes.Verify()); failed > 0 {
				return exitError{exitAnomaly}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&verify, "verify", false, "check each class by simulation against the reference Agent")
	return cmd
}

// writeClasses prints the table as aligned columns, the reason last so a
// narrow terminal wraps only prose.
func writeClasses(out io.Writer, rows []acp.MethodClass) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tdirection\tclass\tsource\treason")
	for _, c := range rows {
		method := c.Name()
		if c.Unstable {
			method += " (u)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", method, c.Direction, c.Class, c.Source, c.Reason)
	}
	_ = tw.Flush()
	fmt.Fprintf(out, "\n%d rows; (u) = only in schema.unstable.json\n", len(rows))
	for _, cl := range acp.RetryClasses() {
		fmt.Fprintf(out, "  %-12s %s\n", cl, cl.Meaning())
	}
}

// writeVerify prints one line per row and a verdict, and returns how many
// rows failed.
func writeVerify(out io.Writer, results []classes.Result) (failed int) {
	verified, skipped := 0, 0
	for _, r := range results {
		label, text := "verified:", r.Detail
		switch {
		case r.NotSimulated != "":
			skipped++
			label, text = "not simulated:", r.NotSimulated
		case r.Verified:
			verified++
		default:
			failed++
			label = "FAILED:"
		}
		fmt.Fprintf(out, "%-14s %-26s %-12s %s\n", label, r.Name(), r.Class, text)
	}
	fmt.Fprintln(out)
	if failed > 0 {
		fmt.Fprintf(out, "FAIL: %d of %d simulated rows contradict their class (%d not simulated)\n", failed, failed+verified, skipped)
		return failed
	}
	fmt.Fprintf(out, "PASS: %d rows verified by simulation, %d not simulated\n", verified, skipped)
	return 0
}
