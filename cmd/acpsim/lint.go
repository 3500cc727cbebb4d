package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/traces"
)

// lintRules are the rules lint can report, in the order --help lists them.
var lintRules = []string{
	conform.RuleJSON, conform.RuleJSONRPC, conform.RuleSchema,
	conform.RuleKeySpelling, conform.RuleKeyInMeta, conform.RuleKeyWrongMethod, conform.RuleKeyMisplaced,
	conform.RuleIDReused, conform.RuleProbe,
}

func newLintCmd() *cobra.Command {
	var rules string
	cmd := &cobra.Command{
		Use:   "lint [flags] TRACE...",
		Short: "Check that every frame of a trace conforms to ACP v2 and the RFD's idempotencyKey",
		Long: `Read traces (ndjson, from run --trace, swarm or check) and check every frame an
endpoint sent: each JSON-RPC message against the official ACP v2 JSON Schema
(with the RFD's idempotencyKey on session/prompt: a string of 1 to 255
characters, or null), a response against the result of the request it
answers, and the rules the schema cannot express.

Rules:
  json              the frame is not JSON
  jsonrpc           not a JSON-RPC request, notification, response or batch
  schema            does not validate against the schema
  key-spelling      idempotency_key, IdempotencyKey, ...: a receiver sees no key
  key-in-meta       idempotencyKey inside a _meta object
  key-wrong-method  idempotencyKey on a method other than session/prompt
  key-misplaced     idempotencyKey in a session/prompt message, but not in its params
  id-reused         one side sent two requests with the same id on one link
  probe             a frame the trace notes as a probe that is not malformed,
                    or that the Agent did not refuse with -32602

Probes: after a run acpsim's observer sends prompts whose idempotencyKey is
malformed on purpose ("", 256 characters, a number, an object), to see the
Agent refuse each with -32602; their send events carry "note":"probe". Lint
expects a probe's key to break the schema and checks the Agent's answer
instead, so a trace acpsim wrote lints clean when the Agent refused them. A
probe never answered is judge's bad-reply, not lint's. A trace acpsim tap
recorded has no notes: a tap cannot know a frame was meant to be malformed.

One line per problem: FILE:LINE: seq N link L dir D: RULE: message (at /pointer),
then a summary.

Exit codes: 0 every frame conforms, 1 problems found, 2 bad usage or a trace
that cannot be read (reported as file:line: what was expected).`,
		Example: `  acpsim lint a.ndjson
  acpsim lint --rules key-in-meta,key-wrong-method acpsim-failures/*.ndjson`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			want, err := parseRules(rules)
			if err != nil {
				return err
			}
			return lint(cmd.OutOrStdout(), cmd.ErrOrStderr(), args, want)
		},
	}
	cmd.Flags().StringVar(&rules, "rules", "", "report only these rules, comma-separated (default: all, as listed above)")
	return cmd
}

// parseRules reads --rules; nil means every rule.
func parseRules(s string) (map[string]bool, error) {
	if s == "" {
		return nil, nil
	}
	want := map[string]bool{}
	for _, r := range strings.Split(s, ",") {
		r = strings.TrimSpace(r)
		if !slices.Contains(lintRules, r) {
			return nil, fmt.Errorf("--rules: unknown rule %q, expected one of %s", r, strings.Join(lintRules, ", "))
		}
		want[r] = true
	}
	return want, nil
}

// lint checks each trace and prints its problems, then a summary. A trace
// that cannot be read is reported on stderr and the others are still
// checked; it makes the exit code 2.
func lint(out, errOut io.Writer, paths []string, want map[string]bool) error {
	byRule := map[string]int{}
	frames, problems, read, unreadable := 0, 0, 0, 0
	for _, path := range paths {
		log, err := readTrace(path)
		if err != nil {
			fmt.Fprintf(errOut, "acpsim: %s\n", oneLine(err.Error()))
			unreadable++
			continue
		}
		read++
		for _, e := range log.Events {
			if e.Kind == traces.KindSend {
				frames++
			}
		}
		for _, p := range conform.Trace(log.Events) {
			if want != nil && !want[p.Rule] {
				continue
			}
			// The header is line 1 and event n is line n+1.
			fmt.Fprintf(out, "%s:%d: %s\n", path, p.Seq+1, p)
			problems++
			byRule[p.Rule]++
		}
	}
	summary := fmt.Sprintf("%d %s of %d %s", frames, plural(frames, "frame"), read, plural(read, "trace"))
	if unreadable > 0 {
		summary += fmt.Sprintf(" (%d unreadable)", unreadable)
	}
	switch {
	case problems > 0:
		counts := make([]string, 0, len(byRule))
		for r, n := range byRule {
			counts = append(counts, fmt.Sprintf("%s %d", r, n))
		}
		sort.Strings(counts)
		fmt.Fprintf(out, "FAIL: %d %s (%s) in %s\n", problems, plural(problems, "problem"), strings.Join(counts, ", "), summary)
	case unreadable == 0:
		fmt.Fprintf(out, "OK: no problems in %s\n", summary)
	default:
		fmt.Fprintf(out, "no problems in %s\n", summary)
	}
	switch {
	case unreadable > 0:
		return exitError{exitUsage}
	case problems > 0:
		return exitError{exitAnomaly}
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
