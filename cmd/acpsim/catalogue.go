// The catalogues the flags name values from: model Agents, Client policies,
// proxy modes, Agent knobs and fault kinds. A flag's help says in one line
// what it sets and points here; the values and what each does are a help
// topic (acpsim help agents) and, on the commands that take the flag,
// a --list-NAME flag that prints the same and exits.

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/check"
)

// catalogue is one list of named values with what each does.
type catalogue struct {
	topic, short string
	entries      func() []entry
}

// entry is one value of a catalogue; heading starts a section instead.
type entry struct{ name, doc, heading string }

var catalogues = []catalogue{
	{"agents", "The model Agents --agent names: the reference, the adapter and the known-bad ones", agentEntries},
	{"policies", "The Client retry policies --policy names", policyEntries},
	{"proxies", "What a proxy does: --proxy (run, swarm) and acpsim proxy --mode", proxyEntries},
	{"knobs", "The Agent knobs (--busy, --keys, …): what each value makes the Agent do", knobEntries},
	{"faults", "The fault kinds --fault-rates sets, with their default rates, per command", faultEntries},
}

func lookupCatalogue(topic string) catalogue {
	for _, c := range catalogues {
		if c.topic == topic {
			return c
		}
	}
	panic("no catalogue " + topic)
}

func agentEntries() []entry {
	var out []entry
	for _, n := range agent.Names() {
		out = append(out, entry{name: n, doc: agent.Doc(n)})
	}
	return out
}

func policyEntries() []entry {
	var out []entry
	for _, p := range client.Policies {
		out = append(out, entry{name: p.Name, doc: p.Doc})
	}
	return out
}

func proxyEntries() []entry {
	var out []entry
	for _, m := range proxy.Modes {
		out = append(out, entry{name: m.Name, doc: m.Doc})
	}
	return out
}

func knobEntries() []entry {
	var out []entry
	for _, k := range agent.ChoiceKnobs() {
		out = append(out, entry{name: "--" + k.Name, doc: fmt.Sprintf("%s (%s; default %s)", knobDocs[k.Name].long, strings.Join(k.Values, "|"), k.Default)})
	}
	for _, name := range []string{"retain", "live-only", "key-window"} {
		out = append(out, entry{name: "--" + name, doc: knobDocs[name].long})
	}
	return out
}

func faultEntries() []entry {
	out := []entry{{heading: "run, swarm, explore, matrix (the simulator)"}}
	for _, f := range netfault.Faults {
		out = append(out, entry{name: fmt.Sprintf("%s=%g", f.Kind, f.Rate), doc: f.Doc})
	}
	out = append(out, entry{heading: "check (a real Agent behind acpsim's proxy)"})
	for _, f := range check.Faults {
		out = append(out, entry{name: fmt.Sprintf("%s=%g", f.Kind, f.Rate), doc: f.Doc})
	}
	out = append(out, entry{heading: "check-client (a real Client's adapter)"})
	for _, f := range clientFaults {
		out = append(out, entry{name: fmt.Sprintf("%s=%g", f.Kind, f.Rate), doc: f.Doc})
	}
	return out
}

// write prints the catalogue as a two-column list, docs wrapped.
func (c catalogue) write(w io.Writer) {
	es := c.entries()
	width := 0
	for _, e := range es {
		width = max(width, len(e.name))
	}
	for i, e := range es {
		if e.heading != "" {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s:\n", e.heading)
			continue
		}
		lines := wrap(e.doc, max(40, catalogueWidth-width-4))
		for j, l := range lines {
			name := ""
			if j == 0 {
				name = e.name
			}
			fmt.Fprintf(w, "  %-*s  %s\n", width, name, l)
		}
	}
}

// catalogueWidth is the widest a catalogue line gets (a terminal's 100 columns).
const catalogueWidth = 100

// wrap breaks s into lines of at most n runes at spaces (a longer word
// gets a line of its own).
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// catalogueTopics are the catalogues as help topics: acpsim help agents.
func catalogueTopics() []*cobra.Command {
	var out []*cobra.Command
	for _, c := range catalogues {
		if c.topic == "knobs" {
			continue // acpsim knobs is a command (knobs.go), its help this catalogue
		}
		var b strings.Builder
		c.write(&b)
		out = append(out, &cobra.Command{Use: c.topic, Short: c.short, Long: c.short + ":\n\n" + b.String()})
	}
	return out
}

// withCatalogues gives cmd a --list-TOPIC flag per topic, which prints that
// catalogue and exits 0 without running the command (or checking its
// arguments: acpsim check --list-policies needs no Agent).
func withCatalogues(cmd *cobra.Command, topics ...string) {
	asked := make([]bool, len(topics))
	for i, t := range topics {
		cmd.Flags().BoolVar(&asked[i], "list-"+t, false, fmt.Sprintf("print the %s and exit (as acpsim help %s)", t, t))
	}
	listed := func(cmd *cobra.Command) bool {
		printed := false
		for i, t := range topics {
			if asked[i] {
				lookupCatalogue(t).write(cmd.OutOrStdout())
				printed = true
			}
		}
		return printed
	}
	check, run := cmd.Args, cmd.RunE
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		for _, a := range asked {
			if a {
				return nil
			}
		}
		if check == nil {
			return nil
		}
		return check(cmd, args)
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if listed(cmd) {
			return nil
		}
		return run(cmd, args)
	}
}
