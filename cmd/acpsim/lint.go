package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
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
	var protocol protocolValue // auto
	cmd := &cobra.Command{
		Use:   "lint [flags] TRACE...",
		Short: "Check that every frame of a trace conforms to ACP (v2 and the RFD's idempotencyKey, or v1)",
		Long: `Read traces (ndjson, from run --trace, swarm, check or tap) and check every frame
an endpoint sent: each JSON-RPC message against the official ACP v2 JSON Schema
(with the RFD's idempotencyKey on session/prompt: a string of 1 to 255
characters, or null), a response against the result of the request it
answers, and the rules the schema cannot express.

ACP v1: a trace whose Agent answered initialize as ACP v1 (protocolVersion 1,
or v1's field names) is checked against the official ACP v1 schema instead,
with its JSON-RPC rules (json, jsonrpc, id-reused) but not the key rules or
probes: the idempotency RFD extends v2, so v1 has no key. --protocol 1 or 2
pins the schema whatever the trace negotiated. Wherever v1 is involved, lint
names the schema and why first (FILE: schema: ACP v1 (the Agent answered
initialize with protocolVersion 1 at line 5)) and says once that the key rules
were not run; a v2 trace lints as it always did.

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
			return lint(cmd.OutOrStdout(), cmd.ErrOrStderr(), args, want, int(protocol))
		},
	}
	cmd.Flags().StringVar(&rules, "rules", "", "report only these rules, comma-separated (default: all, as listed above)")
	cmd.Flags().Var(&protocol, "protocol", "the ACP schema to check against: auto (what the trace's initialize negotiated; v2 if nothing says v1), 1 or 2")
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
func lint(out, errOut io.Writer, paths []string, want map[string]bool, protocol int) error {
	byRule := map[string]int{}
	frames, problems, read, unreadable, v1 := 0, 0, 0, 0, 0
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
		version, line := lintSchema(log.Events, protocol)
		if line != "" {
			fmt.Fprintf(out, "%s: %s\n", path, line)
		}
		if version == conform.V1 {
			v1++
		}
		for _, p := range conform.TraceVersion(version, log.Events) {
			if want != nil && !want[p.Rule] {
				continue
			}
			// The header is line 1 and event n is line n+1.
			fmt.Fprintf(out, "%s:%d: %s\n", path, p.Seq+1, p)
			problems++
			byRule[p.Rule]++
		}
	}
	if v1 > 0 {
		fmt.Fprintf(out, "key rules: not applicable to ACP v1 (the idempotency RFD extends ACP v2), not run on %d %s\n", v1, plural(v1, "trace"))
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

// lintSchema picks the schema a trace is checked against, and the line
// that says which and why. The line is left out only in the ordinary case,
// v2 with nothing in the trace saying v1, so v2 traces lint as they always
// did; any time v1 is involved, a reader is told before the problems.
func lintSchema(events []traces.Event, protocol int) (version int, line string) {
	n := conform.Negotiated(events)
	why := n.Why
	if n.Seq != 0 {
		// The header is line 1 and event n is line n+1.
		why += fmt.Sprintf(" at line %d", n.Seq+1)
	}
	version = n.Version
	if protocol != protocolAuto {
		version, why = protocol, fmt.Sprintf("--protocol %d; %s", protocol, why)
	}
	if version == conform.V2 && n.Version == conform.V2 {
		return version, ""
	}
	return version, fmt.Sprintf("schema: ACP v%d (%s)", version, why)
}

// protocolValue is --protocol: protocolAuto, or the version to pin. Its
// values are checked as they are set, so ACPSIM_PROTOCOL is held to them
// too.
type protocolValue int

const protocolAuto = 0

func (v *protocolValue) String() string {
	if *v == protocolAuto {
		return "auto"
	}
	return strconv.Itoa(int(*v))
}

func (v *protocolValue) Type() string { return "string" }

func (v *protocolValue) Set(s string) error {
	switch s {
	case "auto":
		*v = protocolAuto
	case "1":
		*v = conform.V1
	case "2":
		*v = conform.V2
	default:
		return fmt.Errorf("expected auto, 1 (ACP v1) or 2 (ACP v2)")
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
