package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/actors/agent"
	_ "github.com/acpsim/acpsim/actors/agent/mutants" // registers the known-bad Agents
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces/shell"
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "acpsim",
		Short: "Deterministic chaos simulator for ACP prompt idempotency",
		Long: `acpsim runs model ACP Clients and Agents over virtual stdio links, cuts pipes,
delays frames, kills and restarts Agent processes, and checks from the wire
frames that every user submission is inserted at most once and never silently
lost (draft RFD: idempotencyKey on session/prompt).

Every flag has an environment twin: --seed is ACPSIM_SEED, --fault-rates is
ACPSIM_FAULT_RATES. A flag on the command line wins over its twin.

Exit codes: 0 all properties hold, 1 a property failed, 2 bad usage or input,
3 inconclusive (a run hit its cap: no anomaly in what it did, but not all of it
could be judged).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return applyEnv(cmd.Flags())
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return fmt.Errorf("%v (see acpsim --help)", err)
	})
	root.AddCommand(newRunCmd(), newSwarmCmd(), newJudgeCmd(), newAgentCmd(), newClassesCmd(), newCheckCmd(), newConformCmd(), newReplayCmd(), newShrinkCmd(), newLintCmd(), newViewCmd(), newExploreCmd(), newMergeCmd(), newMutantsCmd(), newMatrixCmd(), newTapCmd(), newCheckClientCmd(), newProxyCmd())
	return root
}

// envName is the environment twin of a flag: --fault-rates → ACPSIM_FAULT_RATES.
func envName(flag string) string {
	return "ACPSIM_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// applyEnv sets every flag not given on the command line from its twin
// (a hidden flag is another's alias and has none).
func applyEnv(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || f.Hidden || f.Name == "help" {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %v", envName(f.Name), v, e)
			}
		}
	})
	return err
}

// simFlags are the flags that shape a simulation, shared by run and swarm.
type simFlags struct {
	policy, agentName, faults  string
	prompts, sessions, clients int
	timeout                    time.Duration
	knobs                      []knobFlag
	retain                     int
	liveOnly                   string
	cancels, closes, forks     int
	cancelBy                   string
	link                       string
	nodes                      int
	sticky, fresh              bool
	proxies                    int
	proxyMode                  string
	skip                       []string
	sessionContract            string
	sessionFlags               sessionFlags
}

// knobFlag is one Agent knob with a fixed set of values, as a flag.
type knobFlag struct {
	name  string
	value string
}

// knobDocs explain the Agent knobs for --help.
var knobDocs = map[string]string{
	"busy":               "a prompt arriving while the session runs is refused (reject), held until idle (hold) or inserted at once (breakpoint)",
	"held-on-disconnect": "a held prompt whose connection ends is kept or dropped",
	"compare":            "a recorded key with a different prompt is answered as a retry (retry) or -32602 (reject)",
	"close-missing":      "session/close of an unknown or inactive session succeeds (ok) or is -32002 (error)",
	"auth":               "session methods need auth/login first (required) or not (none)",
	"keys":               "key bindings live in the store with the message (store) or in process memory (memory: lost on restart or failover)",
	"sessions-in":        "sessions, their messages and key bindings live in the store (store) or in the process's memory (memory: a session ends with its process; a later one answers its resume -32002)",
}

func (s *simFlags) register(fs *pflag.FlagSet) {
	pols := make([]string, 0, len(client.Policies))
	for _, p := range client.Policies {
		pols = append(pols, fmt.Sprintf("%s (%s)", p.Name, p.Doc))
	}
	fs.StringVar(&s.policy, "policy", "keyed", "Client retry policy: "+strings.Join(pols, "; "))
	fs.StringVar(&s.agentName, "agent", agent.Reference, "model Agent: "+agentList())
	fs.IntVar(&s.prompts, "prompts", 10, "submissions per Client")
	s.sessionFlags = sessionFlags{n: &s.sessions, contract: &s.sessionContract}
	s.sessionFlags.registerCount(fs, 2)
	s.sessionFlags.registerContract(fs, sessionContractDoc+" (default: auto)")
	fs.IntVar(&s.clients, "clients", 1, "Clients, each with its own Agent installation")
	fs.StringVar(&s.faults, "fault-rates", "", "fault probabilities as kind=rate,… over the defaults ("+faultList()+")")
	fs.StringVar(&s.link, "link", "stdio", "transport: stdio (one pipe per Agent process), http (Streamable HTTP: POSTs, SSE streams, a server process the connections outlive) ws (WebSocket: one connection per upgrade to a server process) or mixed (Clients take stdio, http and ws in turn; use --clients 3)")
	fs.IntVar(&s.nodes, "nodes", 1, "Agent nodes sharing one store behind a remote endpoint (--link http or ws); a new connection lands on any node")
	fs.IntVar(&s.proxies, "proxies", 0, "proxies between each Client and its Agent (each rewrites JSON-RPC ids and must forward idempotencyKey unchanged)")
	fs.StringVar(&s.proxyMode, "proxy", proxy.Honest, "what the proxies do: "+proxyModes())
	fs.BoolVar(&s.fresh, "fresh-connection", false, "ws: a Client whose prompt times out opens a new connection and leaves the old one open; the old one's late frames arrive after the new one's")
	fs.BoolVar(&s.sticky, "sticky", false, "route a Client back to the node of its last connection while that node lives (a cookie)")
	fs.IntVar(&s.cancels, "cancels", 0, "per Client: how often its user cancels (a prompt with $/cancel_request, or a session's work with session/cancel)"+countsDoc)
	fs.IntVar(&s.closes, "closes", 0, "per Client: how often its user closes a session (and resumes it later)"+countsDoc)
	fs.IntVar(&s.forks, "forks", 0, "per Client: how often its user forks a session (later prompts may go to the fork)"+countsDoc)
	fs.StringVar(&s.cancelBy, "cancel-by", "either", cancelByDoc)
	fs.IntVar(&s.retain, "retain", 0, "Agent knob: each session keeps its N newest user messages, forgetting older ones and their keys (0: keep all)")
	fs.StringVar(&s.liveOnly, "live-only", "", `Agent knob: prompts starting with this prefix (e.g. "/") are handled locally: echoed, never stored or replayed`)
	knobs := agent.ChoiceKnobs()
	s.knobs = make([]knobFlag, len(knobs)) // sized once: the flags keep pointers into it
	for i, k := range knobs {
		s.knobs[i].name = k.Name
		fs.StringVar(&s.knobs[i].value, k.Name, k.Default, fmt.Sprintf("Agent knob: %s (%s)", knobDocs[k.Name], strings.Join(k.Values, "|")))
	}
	fs.DurationVar(&s.timeout, "timeout", 250*time.Millisecond, "Client timeout waiting for a prompt's response (virtual time)")
	fs.StringSliceVar(&s.skip, "skip", nil, `users' events to leave out, by name: a submission ("s3"), an action ("c1:cancel#0") or a whole Client ("c2"); the rest of the scenario stays as drawn (shrink writes it)`)
}

func proxyModes() string {
	parts := make([]string, 0, len(proxy.Modes))
	for _, m := range proxy.Modes {
		parts = append(parts, fmt.Sprintf("%s (%s)", m.Name, m.Doc))
	}
	return strings.Join(parts, "; ")
}

func agentList() string {
	var b strings.Builder
	for i, n := range agent.Names() {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%s)", n, agent.Doc(n))
	}
	return b.String()
}

func faultList() string {
	parts := make([]string, 0, len(netfault.Faults))
	for _, f := range netfault.Faults {
		parts = append(parts, fmt.Sprintf("%s=%g", f.Kind, f.Rate))
	}
	return strings.Join(parts, ", ")
}

func (s *simFlags) config() (world.Config, error) {
	cfg := world.DefaultConfig()
	cfg.Policy, cfg.Agent = s.policy, s.agentName
	cfg.Prompts, cfg.Sessions, cfg.Clients = s.prompts, s.sessions, s.clients
	for _, k := range append(s.knobs, knobFlag{"retain", fmt.Sprint(s.retain)}, knobFlag{"live-only", s.liveOnly}) {
		if err := cfg.Knobs.Set(k.name, k.value); err != nil {
			return cfg, fmt.Errorf("--%s: %v", k.name, err)
		}
	}
	cfg.SessionContract = s.sessionContract
	cfg.Timeout = s.timeout
	cfg.Cancels, cfg.Closes, cfg.Forks = s.cancels, s.closes, s.forks
	by, err := cancelByFlag(s.cancelBy)
	if err != nil {
		return cfg, fmt.Errorf("--%v", err)
	}
	cfg.CancelBy = by
	cfg.Link, cfg.Nodes, cfg.Sticky, cfg.FreshConnection = s.link, s.nodes, s.sticky, s.fresh
	cfg.Proxies, cfg.ProxyMode = s.proxies, s.proxyMode
	cfg.Skip = s.skip
	cfg.EnableLinkFaults()
	rates, err := netfault.ParseRates(s.faults, cfg.Rates)
	if err != nil {
		return cfg, err
	}
	cfg.Rates = rates
	return cfg, cfg.Validate()
}

// rerunFlags renders the simulation flags a user set (on the command line or
// through a twin), in name order, for a rerun command.
func rerunFlags(fs *pflag.FlagSet, skip ...string) string {
	var parts []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Changed || f.Name == "seed" || contains(skip, f.Name) {
			return
		}
		v := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",") // String() would bracket it: [a,b]
		}
		parts = append(parts, "--"+f.Name+"="+shell.Quote(v))
	})
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func rerunCommand(fs *pflag.FlagSet, seed uint64, skip ...string) string {
	cmd := fmt.Sprintf("acpsim run --seed %d", seed)
	if f := rerunFlags(fs, skip...); f != "" {
		cmd += " " + f
	}
	return cmd
}
