// Package world puts the pieces of one simulation together: model Clients,
// model Agent processes over a simulated disk, stdio links, the scenario of
// user submissions, the chaos phase, the heal phase and the observer that
// reads the final transcript. Run is a pure function of its Config.
package world

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// Links a run can use.
const (
	LinkStdio = "stdio"
	LinkHTTP  = "http"
	LinkWS    = "ws"
	LinkMixed = "mixed" // Clients take stdio, http and ws in turn
)

// Config is everything a run depends on.
type Config struct {
	Seed   uint64
	Policy string
	Agent  string
	// Factory, when set, builds the Agents instead of the model Agent
	// named Agent (which then only names it in the trace): a design of the
	// caller's own, as sim/simtest runs one from go test.
	Factory agent.Factory
	Knobs   agent.Knobs
	Link    string

	Clients  int
	Sessions int // per Client
	Prompts  int // per Client

	// SessionContract is the session contract the checker is asked to
	// hold the Agent to (traces.SessionsDurable, SessionsProcess; "" or
	// SessionsAuto: the checker decides from the frames). It goes into the
	// trace header's contract.
	SessionContract string

	Rates map[string]float64
	// Chooser, when set, replaces the seeded fault stream (rapid plans,
	// explore, replay). Rates are then ignored.
	Chooser sim.Chooser

	Latency time.Duration // one-way link latency
	Spawn   time.Duration // time to start an Agent process
	Timeout time.Duration // Client prompt timeout
	Backoff time.Duration // Client reconnect / retry wait
	// MaxAttempts and StaleAfter are the limits of the bounded and stale
	// Clients (0: the client package's defaults).
	MaxAttempts int
	StaleAfter  time.Duration
	// Window is how many of a session's oldest pending prompts a Client
	// sends at once (0: client.DefaultWindow).
	Window int
	MaxGap time.Duration // longest pause between two submissions of a Client
	// Nodes is how many server processes share one store behind a remote
	// endpoint (http, ws); Sticky routes a Client back to the node of its
	// last connection while that node lives.
	Nodes  int
	Sticky bool
	// Proxies is how many proxies stand between each Client and its Agent,
	// all of ProxyMode (proxy.Modes).
	Proxies   int
	ProxyMode string
	// FreshConnection: on ws, a Client whose prompt times out opens a new
	// connection and leaves the old one open (reordered reconnects).
	FreshConnection bool
	// Cancels, Closes and Forks are how often each Client's user cancels a
	// prompt or a session's work, closes a session (and comes back to it)
	// and forks one, at random moments while typing; CancelBy, if set,
	// sends every cancel one way (users.CancelByRequest, CancelBySession;
	// "": either, drawn per cancel).
	Cancels, Closes, Forks int
	CancelBy               string
	// Impatient, when set, is the Clients' prompt timeout in place of
	// Timeout: impatient users (the impatient action class; a swarm with
	// Actions on takes it as the class's timeout, and each seed's draw
	// sets or clears it).
	Impatient time.Duration
	ChaosFor  time.Duration // chaos lasts this long after the last submission
	HealCap   time.Duration // the heal phase gives up after this much virtual time (more for many prompts: healFor)
	// MaxEvents stops a run that never goes quiet: its chaos at most, and
	// then the heal and the observer each get a quarter of it again (so a
	// run cut in chaos still has its transcripts read). 0 sizes it to the
	// work asked (EventCap).
	MaxEvents int
	// Skip names users' events the run leaves out: a submission ("s3"), a
	// Client's action ("c1:cancel#0"), or a whole Client's users ("c2").
	// The scenario is still drawn whole, so what remains keeps its texts,
	// times and sessions: shrink drops prompts this way.
	Skip []string
	// ExtraDraws asks that many decisions of the fault stream before the
	// run starts, as a code change that adds a decision would: a seed's
	// schedule shifts, a recorded one (matched by site) does not. Tests.
	ExtraDraws int
	// Command is the command line that reruns this run (for the trace header).
	Command string

	// clientsReadBytes hands the Clients and the observer each frame
	// without its sender's digest, so they parse the bytes: tests hold the
	// two ways of reading to the same run. clientFrames, when set, counts
	// the frames handed to them and those with a digest.
	clientsReadBytes bool
	clientFrames     *handedFrames
}

// handedFrames counts frames handed to a reader, and those with a digest.
type handedFrames struct{ all, digested int }

// DefaultConfig is the configuration of `acpsim run` with no flags.
func DefaultConfig() Config {
	return Config{
		Seed:        1,
		Policy:      "keyed",
		Agent:       agent.Reference,
		Knobs:       agent.DefaultKnobs(),
		Link:        "stdio",
		Clients:     1,
		Sessions:    2,
		Nodes:       1,
		ProxyMode:   proxy.Honest,
		Prompts:     10,
		Rates:       netfault.DefaultRates(),
		Latency:     500 * time.Microsecond,
		Spawn:       5 * time.Millisecond,
		Timeout:     250 * time.Millisecond,
		Backoff:     20 * time.Millisecond,
		MaxAttempts: client.DefaultMaxAttempts,
		StaleAfter:  client.DefaultStaleAfter,
		MaxGap:      120 * time.Millisecond,
		ChaosFor:    2 * time.Second,
		HealCap:     60 * time.Second,
	}
}

// The event cap a run gets unless told (Config.MaxEvents 0): eventsPerPrompt
// for each prompt of each Client, and never less than minEventCap. A run
// that keeps up takes 15 to 40 events per prompt (BenchmarkSeedPrompts), so
// the cap stops only a run that has stopped making progress, however many
// prompts it was asked for; a fixed count cut every run of more than a few
// thousand prompts short, whatever it did (issue 18).
const (
	eventsPerPrompt = 100
	minEventCap     = 200000
)

// healPerPrompt is the virtual time the heal phase may take per prompt of a
// Client beyond HealCap (healFor): a long run at the default pace ends its
// chaos with a backlog the Agent works off one turn (3 chunks 20 ms apart)
// at a time, so a fixed HealCap cut every run of more than a few thousand
// prompts short.
const healPerPrompt = 100 * time.Millisecond

// healFor is how long the heal phase and the observer may each run: HealCap,
// or healPerPrompt per prompt of each Client when that is longer (the
// Clients' Agents work in parallel).
func (c *Config) healFor() time.Duration {
	return max(c.HealCap, time.Duration(c.Prompts)*healPerPrompt)
}

// EventCap is the run's cap on events: MaxEvents, or when that is 0 one
// sized to the prompts asked of all Clients.
func (c *Config) EventCap() int {
	if c.MaxEvents > 0 {
		return c.MaxEvents
	}
	return max(minEventCap, eventsPerPrompt*(c.Prompts+c.Cancels+c.Closes+c.Forks)*c.Clients)
}

// Validate reports the first setting a run cannot use, naming it.
func (c *Config) Validate() error {
	for _, sc := range settingChecks {
		if err := sc.check(c); err != nil {
			return err
		}
	}
	return c.checkBounds(true)
}

// A settingCheck checks some settings of a Config, under the name of the
// trace header field that records them ("" when a header holds them only in
// its command): Validate runs every one, CheckHeader those of its fields, so
// a header is held to what the flags it stands for accept.
type settingCheck struct {
	field string
	check func(*Config) error
}

var settingChecks = []settingCheck{
	{"policy", func(c *Config) error { _, err := client.LookupPolicy(c.Policy); return err }},
	{"agent", func(c *Config) error {
		if c.Factory != nil {
			return nil // an Agent of the caller's own, named Agent in the trace
		}
		_, err := agent.Lookup(c.Agent)
		return err
	}},
	{"knobs", func(c *Config) error { return c.Knobs.Validate() }},
	{"knobs", (*Config).checkAgentKnobs},
	{"policy", (*Config).checkProtocol},
	{"contract", func(c *Config) error { return traces.CheckSessionContract(c.SessionContract) }},
	{"link", func(c *Config) error { return checkLink(c.Link, Links) }},
	{"actions", func(c *Config) error { return users.CheckCancelBy(c.CancelBy) }},
	{"", (*Config).checkTiming},
}

// Links are the links a run can use.
var Links = []string{LinkStdio, LinkHTTP, LinkWS, LinkMixed}

func checkLink(link string, links []string) error {
	if !slices.Contains(links, link) {
		return fmt.Errorf("link %q: expected %s or %s", link, strings.Join(links[:len(links)-1], ", "), links[len(links)-1])
	}
	return nil
}

// checkAgentKnobs reports knobs the run's Agent cannot honour.
func (c *Config) checkAgentKnobs() error {
	if strings.HasPrefix(c.Agent, agent.Adapter) && c.Knobs.Retain > 0 {
		// Its runtime owns the history; the model keeps all of it, and a
		// header promising less would excuse what it never did.
		return fmt.Errorf("retain %d: the adapter does not model history retention (use --retain 0)", c.Knobs.Retain)
	}
	if c.Knobs.SessionsIn == agent.SessionsMemory {
		if strings.HasPrefix(c.Agent, agent.Adapter) {
			return fmt.Errorf("sessions-in memory: the adapter's runtime owns its sessions; the knob is the reference Agent's (and its mutants')")
		}
		if c.Nodes > 1 {
			// A session in one node's memory is unknown to the others while
			// its process lives: that is no restart, and no contract
			// acpsim checks says what it should be.
			return fmt.Errorf("sessions-in memory with nodes %d: a session would live in one node's memory only (use --nodes 1)", c.Nodes)
		}
	}
	return nil
}

// Protocol is the ACP version of the run: the Agent's knob, which the model
// Clients and the observer speak too.
func (c *Config) Protocol() int {
	if c.Knobs.Protocol == agent.ProtocolV1 {
		return acp.ProtocolV1
	}
	return acp.ProtocolVersion
}

// ErrNoKeyInV1 is why a keyed policy cannot run against a v1 Agent.
var ErrNoKeyInV1 = errors.New("v1 has no idempotencyKey")

// checkProtocol refuses a policy that needs what the run's protocol lacks.
func (c *Config) checkProtocol() error {
	if c.Protocol() != acp.ProtocolV1 {
		return nil
	}
	if p, err := client.LookupPolicy(c.Policy); err == nil && (p.Keyed || p.Catches != "") {
		return fmt.Errorf("policy %s under protocol 1: %w; expected none, naive, lookup or classes-only", c.Policy, ErrNoKeyInV1)
	}
	return nil
}

// checkTiming reports the settings no header field records.
func (c *Config) checkTiming() error {
	switch {
	case c.Timeout <= 0 || c.Backoff <= 0 || c.Latency <= 0:
		return fmt.Errorf("timeout, backoff and latency must be positive")
	case c.Proxies > 0 && proxy.Check(c.ProxyMode) != nil:
		return proxy.Check(c.ProxyMode)
	case c.Nodes > 1 && c.Link == LinkStdio:
		return fmt.Errorf("nodes %d: several nodes need a remote link (--link http or ws)", c.Nodes)
	case c.MaxAttempts < 0 || c.StaleAfter < 0:
		return fmt.Errorf("max attempts %d, stale after %v: expected 0 (default) or more", c.MaxAttempts, c.StaleAfter)
	case c.MaxEvents != 0 && c.MaxEvents < 1000:
		return fmt.Errorf("max events %d: expected 0 (sized to the prompts) or at least 1000", c.MaxEvents)
	}
	return nil
}

// UseAgent makes the run's Agent the named one, with what a known-bad one
// needs for its bug to show (mutants.NeedsOf: a link, nodes, sessions, forks,
// a timeout).
func (c *Config) UseAgent(name string) {
	c.Agent = name
	n := mutants.NeedsOf(name)
	if n == (mutants.Needs{}) {
		return
	}
	if n.Link != "" {
		c.Link = n.Link
	}
	if n.Nodes != 0 {
		c.Nodes = n.Nodes
	}
	if n.Sessions != 0 {
		c.Sessions = n.Sessions
	}
	c.Forks = max(c.Forks, n.Forks)
	if n.Timeout != 0 {
		c.Timeout = n.Timeout
	}
	c.EnableLinkFaults() // the HTTP faults, routing between the nodes
}

// actions renders the user's actions for the trace header.
func (c *Config) actions() string {
	if c.Cancels == 0 && c.Closes == 0 && c.Forks == 0 {
		return ""
	}
	s := fmt.Sprintf("cancels=%d closes=%d forks=%d", c.Cancels, c.Closes, c.Forks)
	if c.CancelBy != "" {
		s += " cancel-by=" + c.CancelBy
	}
	return s
}

// UserActions are c's users' actions besides typing.
func (c *Config) UserActions() users.Actions {
	return users.Actions{Cancels: c.Cancels, Closes: c.Closes, Forks: c.Forks, CancelBy: c.CancelBy, Timeout: c.Impatient}
}

// SetUserActions gives c's users the actions a.
func (c *Config) SetUserActions(a users.Actions) {
	c.Cancels, c.Closes, c.Forks, c.CancelBy, c.Impatient = a.Cancels, a.Closes, a.Forks, a.CancelBy, a.Timeout
}

// promptTimeout is how long the Clients wait for a prompt's response.
func (c *Config) promptTimeout() time.Duration {
	return cmp.Or(c.Impatient, c.Timeout)
}

// EnableLinkFaults turns on the faults only remote links ask for, at their
// default rates: the HTTP faults when a Client uses http, node routing when
// there are several nodes. Their table rate is 0, so stdio seeds never draw
// them; call it after setting Link and Nodes, before any user override.
func (c *Config) EnableLinkFaults() {
	if c.Link == LinkHTTP || c.Link == LinkMixed {
		maps.Copy(c.Rates, netfault.HTTPRates)
	}
	if c.Nodes > 1 {
		maps.Copy(c.Rates, netfault.NodeRates)
	}
}
