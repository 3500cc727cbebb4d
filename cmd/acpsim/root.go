package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	_ "github.com/acpsim/acpsim/actors/agent/mutants" // registers the known-bad Agents
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces/shell"
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "acpsim",
		Short: "Deterministic chaos simulator for ACP prompt idempotency",
		Long: `acpsim runs model ACP Clients and Agents over virtual links (stdio, Streamable
HTTP and WebSocket), cuts pipes, delays frames, kills and restarts Agent
processes, and checks from the wire frames that every user submission is
inserted at most once and never silently lost (draft RFD: idempotencyKey on
session/prompt). check, conform and check-client put real Agents and Clients
under the same chaos and checks; tap records a real pair as a trace.

Every flag has an environment twin: --seed is ACPSIM_SEED, --fault-rates is
ACPSIM_FAULT_RATES. A flag on the command line wins over its twin.

Exit codes: 0 all properties hold, 1 a property failed, 2 bad usage or input,
3 inconclusive (a run hit its cap: no anomaly in what it did, but not all of it
could be judged); 130 or 143 check, check-client or conform interrupted by
SIGINT or SIGTERM (its processes killed, its scratch directories removed).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	// The hint names the help of the command the flag was given to: its flags
	// are listed there, not in the root's.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%v (run '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newRunCmd(), newSwarmCmd(), newJudgeCmd(), newAgentCmd(), newClassesCmd(), newCheckCmd(), newConformCmd(), newReplayCmd(), newShrinkCmd(), newLintCmd(), newViewCmd(), newExploreCmd(), newMergeCmd(), newMutantsCmd(), newMatrixCmd(), newTapCmd(), newKnobsCmd(), newCheckClientCmd(), newProxyCmd(), newVersionCmd(), newEventsCmd())
	root.AddCommand(catalogueTopics()...)
	for _, c := range root.Commands() {
		envBeforeArgs(c)
	}
	return root
}

// envBeforeArgs applies the env twins before cmd's argument check: cobra
// checks the arguments before any PreRun, so a check that reads a flag (check
// needs --url or an Agent command) would not see the flag's twin
// (ACPSIM_URL was ignored that way).
func envBeforeArgs(cmd *cobra.Command) {
	check := cmd.Args
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if err := applyEnv(cmd.Flags()); err != nil {
			return err
		}
		if check == nil {
			return nil
		}
		return check(cmd, args)
	}
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

// simFlags are the flags that shape a simulation (run, swarm, explore): the
// Agent's and the rest, the Clients, their users, links and faults.
type simFlags struct {
	agentFlags
	policy, faults             string
	prompts, sessions, clients int
	timeout                    time.Duration
	cancels, closes, forks     int
	cancelBy                   string
	link                       string
	nodes                      int
	sticky, fresh              bool
	proxies                    int
	proxyMode                  string
	proxyFlag                  *pflag.Flag // to tell a --proxy given from its default
	skip                       []string
	sessionContract            string
	sessionFlags               sessionFlags
	designs                    designFlags
	maxAttempts, window        int
	staleAfter, backoff        time.Duration
	fs                         *pflag.FlagSet // for a design's settings given as flags too
}

func (s *simFlags) register(fs *pflag.FlagSet) {
	s.fs = fs
	fs.StringVar(&s.policy, "policy", "keyed", "Client retry policy (--list-policies), with parameters as NAME:PARAM=VALUE:… (acpsim knobs)")
	s.designs.register(fs, false)
	fs.IntVar(&s.maxAttempts, "max-attempts", client.DefaultMaxAttempts, "bounded: attempts whose responses did not come before the Client tells the user unknown")
	fs.DurationVar(&s.staleAfter, "stale-after", client.DefaultStaleAfter, "stale: how long after its submission a prompt is resent; later it is shown to the user")
	fs.IntVar(&s.window, "window", client.DefaultWindow, "how many of a session's oldest pending prompts a Client sends at once")
	fs.DurationVar(&s.backoff, "backoff", world.DefaultConfig().Backoff, "Client wait before reconnecting or retrying a transient error (virtual time)")
	s.agentFlags.register(fs)
	fs.IntVar(&s.prompts, "prompts", 10, "submissions per Client")
	s.sessionFlags = sessionFlags{n: &s.sessions, contract: &s.sessionContract}
	s.sessionFlags.registerCount(fs, 2)
	s.sessionFlags.registerContract(fs, sessionContractDoc+" (default: auto)")
	fs.IntVar(&s.clients, "clients", 1, "Clients, each with its own Agent installation")
	fs.StringVar(&s.faults, "fault-rates", "", "fault probabilities as kind=rate,… over the defaults (acpsim help faults)")
	fs.StringVar(&s.link, "link", "stdio", "transport: stdio, http (Streamable HTTP), ws (WebSocket) or mixed (Clients take them in turn)")
	fs.IntVar(&s.nodes, "nodes", 1, "Agent nodes sharing one store behind a remote endpoint (--link http or ws)")
	fs.IntVar(&s.proxies, "proxies", 0, "proxies between each Client and its Agent (each rewrites JSON-RPC ids)")
	fs.StringVar(&s.proxyMode, "proxy", proxy.Honest, "what the proxies do (acpsim help proxies); needs --proxies 1 or more")
	s.proxyFlag = fs.Lookup("proxy")
	fs.BoolVar(&s.fresh, "fresh-connection", false, "ws: a Client whose prompt times out opens a new connection, leaving the old one open")
	fs.BoolVar(&s.sticky, "sticky", false, "route a Client back to the node of its last connection while that node lives")
	fs.IntVar(&s.cancels, "cancels", 0, "per Client: how often its user cancels")
	fs.IntVar(&s.closes, "closes", 0, "per Client: how often its user closes a session and resumes it")
	fs.IntVar(&s.forks, "forks", 0, "per Client: how often its user forks a session")
	fs.StringVar(&s.cancelBy, "cancel-by", "either", cancelByDoc)
	fs.DurationVar(&s.timeout, "timeout", 250*time.Millisecond, "Client timeout waiting for a prompt's response (virtual time)")
	fs.StringSliceVar(&s.skip, "skip", nil, `users' events to leave out: a submission ("s3"), an action ("c1:cancel#0") or a Client ("c2")`)
}

func (s *simFlags) config() (world.Config, error) {
	cfg := world.DefaultConfig()
	if err := s.agentFlags.apply(&cfg); err != nil {
		return cfg, err
	}
	if s.maxAttempts < 1 || s.window < 1 || s.staleAfter <= 0 || s.backoff <= 0 {
		return cfg, fmt.Errorf("--max-attempts %d, --window %d, --stale-after %v, --backoff %v: expected 1 or more and positive durations", s.maxAttempts, s.window, s.staleAfter, s.backoff)
	}
	cfg.MaxAttempts, cfg.StaleAfter, cfg.Backoff = s.maxAttempts, s.staleAfter, s.backoff
	if s.window != client.DefaultWindow {
		cfg.Window = s.window
	}
	pol, err := design.ParsePolicy(s.policy)
	if err != nil {
		return cfg, fmt.Errorf("--policy: %v", err)
	}
	cfg.Prompts, cfg.Sessions, cfg.Clients = s.prompts, s.sessions, s.clients
	cfg.SessionContract = s.sessionContract
	cfg.Timeout = s.timeout
	if err := pol.Apply(&cfg); err != nil { // its parameters over the flags
		return cfg, fmt.Errorf("--policy: %v", err)
	}
	cfg.Cancels, cfg.Closes, cfg.Forks = s.cancels, s.closes, s.forks
	by, err := cancelByFlag(s.cancelBy)
	if err != nil {
		return cfg, fmt.Errorf("--%v", err)
	}
	cfg.CancelBy = by
	cfg.Link, cfg.Nodes, cfg.Sticky, cfg.FreshConnection = s.link, s.nodes, s.sticky, s.fresh
	cfg.Proxies, cfg.ProxyMode = s.proxies, s.proxyMode
	if s.proxyFlag.Changed && s.proxies < 1 {
		// A mode for no proxy would test nothing while seeming to.
		return cfg, fmt.Errorf("--proxy %s needs --proxies 1 or more (--proxies is %d)", s.proxyMode, s.proxies)
	}
	cfg.Skip = s.skip
	if err := applyDesign(&s.designs, s.fs, &cfg); err != nil {
		return cfg, err
	}
	cfg.EnableLinkFaults()
	rates, err := netfault.ParseRates(s.faults, cfg.Rates)
	if err != nil {
		return cfg, err
	}
	cfg.Rates = rates
	return cfg, asFlags(cfg.Validate())
}

// asFlags names the settings of a bound error by their flags (--prompts).
func asFlags(err error) error {
	var be *world.BoundError
	if errors.As(err, &be) {
		return errors.New(be.Describe(func(name string) string { return "--" + name }))
	}
	return err
}

// rerunFlags renders the simulation flags a user set (on the command line or
// through a twin), in name order, for a rerun command.
func rerunFlags(fs *pflag.FlagSet, skip ...string) string {
	var parts []string
	if !contains(skip, "design") {
		parts = designRerunFlags(fs)
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Changed || f.Name == "seed" || contains(skip, f.Name) {
			return
		}
		if (f.Name == "design" || f.Name == "design-file") && len(parts) > 0 {
			return // the design's settings stand for it: no file needed
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
