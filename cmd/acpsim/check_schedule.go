package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// perRunFlags are check flags a re-drive takes from its own command line,
// never from the trace: they say how many seeds and where reports go, not
// what the run was.
var perRunFlags = []string{"first-seed", "seeds", "jobs", "trace-dir", "junit", "show", "schedule", "repeat"}

// adoptTraceCommand gives `acpsim check --schedule TRACE` with no Agent
// command the run that TRACE's header records: its Agent command (or its
// --url and --restart) and every flag of the run the user did not give
// again, so the re-drive is the one check printed. It says so in one line
// and returns the Agent's command (empty for a remote Agent).
func adoptTraceCommand(cmd *cobra.Command, trace string) ([]string, error) {
	log, err := readTrace(trace)
	if err != nil {
		return nil, err
	}
	h := log.Header
	if !isCheckTrace(log) {
		return nil, fmt.Errorf("--schedule %s: a trace of %s, not of acpsim check: give the Agent command after --", trace, h.Tool)
	}
	recorded, err := recordedCheckFlags(h)
	if err != nil {
		return nil, fmt.Errorf("--schedule %s: %v: give the Agent command after --", trace, err)
	}
	agent := recorded.Args()
	if dash := recorded.ArgsLenAtDash(); dash >= 0 {
		agent = agent[dash:]
	}
	urls, _ := recorded.GetStringArray("url")
	if len(agent) == 0 && len(urls) == 0 {
		return nil, fmt.Errorf("--schedule %s: its header's command %q names no Agent: give the Agent command after --", trace, h.Command)
	}
	var adopted []string
	var setErr error
	recorded.VisitAll(func(f *pflag.Flag) {
		if !f.Changed || contains(perRunFlags, f.Name) || cmd.Flags().Changed(f.Name) || setErr != nil {
			return
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			if setErr = cmd.Flags().Set(f.Name, v); setErr != nil {
				setErr = fmt.Errorf("--schedule %s: its header's --%s=%s: %v", trace, f.Name, v, setErr)
				return
			}
			adopted = append(adopted, "--"+f.Name+"="+shell.Quote(v))
		}
	})
	if setErr != nil {
		return nil, setErr
	}
	from := strings.Join(adopted, " ")
	if len(agent) > 0 {
		from = strings.TrimSpace(from + " -- " + shell.Join(agent))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "no Agent command given: re-driving %s as its header records it: %s\n", trace, from)
	return agent, nil
}

// recordedCheckFlags parses a check trace's header command with check's own
// flags: the run as the trace records it.
func recordedCheckFlags(h traces.Header) (*pflag.FlagSet, error) {
	words, err := shell.Split(h.Command)
	at := indexOf(words, "check")
	if err != nil || at < 0 {
		return nil, fmt.Errorf("its header's command %q is no acpsim check command", h.Command)
	}
	recorded := newCheckCmd().Flags()
	recorded.SetOutput(io.Discard)
	if err := recorded.Parse(words[at+1:]); err != nil {
		return nil, fmt.Errorf("its header's command %q: %v", h.Command, err)
	}
	return recorded, nil
}

func indexOf(words []string, w string) int {
	for i, x := range words {
		if x == w {
			return i
		}
	}
	return -1
}
