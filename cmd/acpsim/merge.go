package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/sim/world"
)

func newMergeCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "merge SHARD.json…",
		Short: "Combine the shards of a swarm (--summary-json files) into the report of the whole run",
		Long: `Read the summary files the shards of one swarm wrote (acpsim swarm --shard i/n
or --shard-count n --summary-json FILE) and print the summary of the whole
run exactly as acpsim swarm prints it unsharded: the same counts, anomaly
and fault kinds in the same order, the first failing seeds with their rerun
commands. --format json prints the merged summary file instead.

merge refuses summaries of different configurations (flags, base rates,
commit), a shard given twice and a shard missing. A shard whose commit is
unknown (an acpsim built without a VCS stamp, such as go install with
-buildvcs=false, run outside a git checkout) is not compared by commit:
merge says on stderr that the commit is unknown. A guided swarm cannot be
sharded (its batches depend on each other).

Exit codes, as the whole swarm's: 0 every property held, 1 a property
failed, 2 bad usage or bad input (the refusals above), 3 inconclusive.`,
		Example: `  acpsim swarm --seeds 2000 --shard 0/2 --summary-json s0.json
  acpsim swarm --seeds 2000 --shard 1/2 --summary-json s1.json
  acpsim merge s0.json s1.json
  acpsim merge --format json shards/*.json > merged.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, paths []string) error {
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: expected text or json", format)
			}
			files := make([]*world.SummaryFile, 0, len(paths))
			for _, p := range paths {
				f, err := world.ReadSummaryFile(p)
				if err != nil {
					return err
				}
				files = append(files, f)
			}
			merged, err := world.MergeSummaryFiles(files, paths)
			if err != nil {
				return err
			}
			if note := unknownCommits(files, paths); note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), note)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				sum, _, err := merged.Summary()
				if err != nil {
					return err
				}
				if err := merged.WriteJSON(out); err != nil {
					return err
				}
				return swarmVerdict(sum)
			}
			return writeSwarm(out, merged, "")
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text (as acpsim swarm prints it) or json (the merged summary file)")
	return cmd
}

// unknownCommits says which shards' commit is unknown, so that merge could
// not compare them by commit ("" when every shard names one).
func unknownCommits(files []*world.SummaryFile, paths []string) string {
	var unknown []string
	for i, f := range files {
		if !world.CommitKnown(f.Config.Commit) {
			unknown = append(unknown, paths[i])
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	return fmt.Sprintf("merge: the commit is unknown in %s (an acpsim built without a VCS stamp, run outside a git checkout): not compared by commit; the merged run's commit is %s",
		strings.Join(unknown, ", "), world.UnknownCommit)
}
