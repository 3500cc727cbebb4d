package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/sim/design"
)

func newKnobsCmd() *cobra.Command {
	var agentKnobs strings.Builder
	lookupCatalogue("knobs").write(&agentKnobs)
	return &cobra.Command{
		Use:   "knobs",
		Short: "What a design and a policy can set: the spelling --design and --policy take on every command",
		Long: `Print what a design can set (the Agent's knobs, which model Agent, nodes,
proxies), what a policy's parameters are, and the built-in designs spelled as
specs. One spelling serves matrix, swarm, run, explore and mutants:

  --design NAME=SETTING:VALUE,…        e.g. --design 'mine=busy:reject,keys:memory'
  --design-file FILE                   one design per line: NAME = SETTING:VALUE, …  # why
  --policy NAME:PARAM=VALUE:…          e.g. --policy 'bounded:attempts=6:backoff=50ms'
  (matrix: --policies takes a list of them, --design repeats)

Each setting is the acpsim run flag of the same name (busy:reject is
--busy=reject), so a design's rerun command needs no file.

` + agentKnobs.String(),
		Example: `  acpsim knobs
  acpsim matrix --design 'mine=busy:reject,keys:memory' --policies 'keyed,bounded:attempts=2'
  acpsim run --design 'forgetful=agent:memory-keys' --link http`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			writeKnobs(cmd.OutOrStdout())
			return nil
		},
	}
}

func writeKnobs(out io.Writer) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "design settings (--design NAME=SETTING:VALUE,…):")
	fmt.Fprintln(tw, "  setting\tvalues\tdefault\twhat it changes")
	for _, k := range design.Keys() {
		doc := k.Doc
		if d, ok := knobDocs[k.Name]; ok {
			doc = "Agent knob: " + d.long
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", k.Name, k.Values, orDash(k.Default), doc)
	}
	tw.Flush()
	fmt.Fprintln(out)
	fmt.Fprintln(tw, "policy parameters (--policy NAME:PARAM=VALUE:…):")
	fmt.Fprintln(tw, "  parameter\trun flag\tdefault\tpolicies\twhat it changes")
	for _, p := range design.Params() {
		fmt.Fprintf(tw, "  %s\t--%s\t%s\t%s\t%s\n", p.Name, p.Flag, p.Default, orDefault(p.For, "every resending one"), p.Doc)
	}
	tw.Flush()
	var names []string
	for _, p := range client.Policies {
		names = append(names, p.Name)
	}
	fmt.Fprintf(out, "  policies: %s (acpsim help policies)\n\n", strings.Join(names, ", "))
	fmt.Fprintln(tw, "built-in designs, as specs:")
	for _, d := range design.Builtin {
		spec := d.Spec()
		if len(d.Settings) == 0 {
			spec = d.Name + " (the defaults)"
		}
		on := ""
		if d.Links != nil {
			on = " (on " + strings.Join(d.Links, ", ") + ")"
		}
		fmt.Fprintf(tw, "  %s%s\n", spec, on)
	}
	tw.Flush()
}

func orDash(s string) string { return orDefault(s, "-") }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
