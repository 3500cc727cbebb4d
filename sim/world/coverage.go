package world

import (
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
)

// Coverage: which (fault point × protocol state) pairs a run hit. A clean
// swarm only means something if its faults reached the states that matter
// (the response of a held prompt lost, a kill between the store write and
// the response, a retry arriving while its original is pending), so every
// pair is a row of CoveragePairs and a run counts the rows it hit.
//
// The hit set is read from the run's trace after the run, and only when
// asked for (SwarmConfig.Coverage), so a swarm without it runs exactly as
// before. The trace has what the labels need: a fault is a choose event
// (Decision, Site, Option); a link fault is asked right after the send
// event of the frame at stake (pipes and HTTP record the send, then ask),
// so the frame it hits is the send just before it; a kill's site ends in
// the Agent's protocol step (agent.Output.Step); submit, send, deliver and
// outcome events give the Clients' and the Agent's view of each
// submission. No hook in the simulation, no field on sim.Decision.

// Fault points that are not a fault kind: a resent prompt reaching the
// Agent, the window the faults open.
const PointRetry = "retry"

// need is what a configuration must have for a pair to be reachable.
type need uint16

const (
	needStream need = 1 << iota // a Client on stdio or ws (pipes are cut)
	needHTTP                    // a Client on http (its own faults)
	needHold                    // busy=hold: the Agent holds prompts while it works
	needResend                  // the policy resends
	needKeyed                   // the policy sends keys (a binding answers retries)
	needCancel                  // users cancel or close (held prompts withdrawn)
	needClose                   // users close sessions
	needFork                    // users fork sessions
)

// CoveragePair is one (fault point × protocol state) pair.
type CoveragePair struct {
	Point string // the fault kind (sim.Decision.Kind) of the point, or PointRetry
	State string // the protocol state it met
	Doc   string
	needs need
	// boost are the fault kinds guided mode raises when the pair is missing
	// (the Point's own kind is always among them).
	boost []string
}

// Name is "point × state".
func (p CoveragePair) Name() string { return p.Point + " × " + p.State }

// CoveragePairs is the universe of pairs.
var CoveragePairs = []CoveragePair{
	// An Agent process killed before an output: the state is the protocol
	// step it was about to take (its failpoint name).
	{Point: netfault.Kill, State: "sync-session", Doc: "a new session written, not yet synced"},
	{Point: netfault.Kill, State: "respond-session-new", Doc: "a new session synced, before session/new's response"},
	{Point: netfault.Kill, State: "sync-insert", Doc: "a prompt's message and key binding written, not yet synced"},
	{Point: netfault.Kill, State: "respond-prompt", Doc: "a prompt inserted and synced, before its response"},
	{Point: netfault.Kill, State: "update-user-message", Doc: "after a prompt's response, before the user message echo"},
	{Point: netfault.Kill, State: "work", Doc: "while the Agent works on a prompt (running, chunk, idle updates)"},
	{Point: netfault.Kill, State: "sync-agent-message", Doc: "the Agent's reply written, not yet synced"},
	{Point: netfault.Kill, State: "respond-from-binding", Doc: "before answering a retry from its binding", needs: needKeyed | needResend},
	{Point: netfault.Kill, State: "replay", Doc: "in the middle of a session/resume replay (messages, state snapshot)"},
	{Point: netfault.Kill, State: "respond-resume", Doc: "replay sent, before session/resume's response"},
	{Point: netfault.Kill, State: "respond-initialize", Doc: "before initialize's response"},
	{Point: netfault.Kill, State: "respond-error", Doc: "before an error response (a transient reject, a refused request)"},
	{Point: netfault.Kill, State: "respond-cancelled", Doc: "before answering a withdrawn prompt -32800", needs: needCancel},
	{Point: netfault.Kill, State: "respond-close", Doc: "before session/close's response", needs: needClose},
	{Point: netfault.Kill, State: "fork", Doc: "while forking a session (sync, response)", needs: needFork},

	// A killed Agent losing its unsynced writes: the state is where it died.
	{Point: netfault.LoseUnsynced, State: "sync-insert", Doc: "killed at sync-insert, the message and its binding lost: a retry must insert again", boost: []string{netfault.Kill}},
	{Point: netfault.LoseUnsynced, State: "sync-session", Doc: "killed at sync-session, the new session lost", boost: []string{netfault.Kill}},
	{Point: netfault.LoseUnsynced, State: "sync-agent-message", Doc: "killed at sync-agent-message, the Agent's reply lost", boost: []string{netfault.Kill}},

	// A pipe or WebSocket cut as a frame is written: the state is that
	// frame, or what the connection had in flight.
	{Point: netfault.Cut, State: "prompt", Doc: "a prompt's first attempt lost before the Agent read it", needs: needStream},
	{Point: netfault.Cut, State: "prompt-retry", Doc: "a resent prompt lost before the Agent read it", needs: needStream | needResend},
	{Point: netfault.Cut, State: "prompt-response", Doc: "the response of an inserted prompt lost", needs: needStream},
	{Point: netfault.Cut, State: "held-response", Doc: "the response of a held prompt (inserted once the session went idle) lost", needs: needStream | needHold},
	{Point: netfault.Cut, State: "binding-response", Doc: "a retry's answer from the binding lost", needs: needStream | needKeyed | needResend},
	{Point: netfault.Cut, State: "held", Doc: "the connection ends while the Agent holds a prompt from it", needs: needStream | needHold},
	{Point: netfault.Cut, State: "resume-in-flight", Doc: "the connection ends while a session/resume and its replay are in flight", needs: needStream},
	{Point: netfault.Cut, State: "initialize", Doc: "an initialize or its response lost", needs: needStream},
	{Point: netfault.Cut, State: "cancel", Doc: "a cancel notification lost", needs: needStream | needCancel},

	// Streamable HTTP's own losses.
	{Point: netfault.PostLost, State: "prompt", Doc: "a prompt's first POST lost", needs: needHTTP},
	{Point: netfault.PostLost, State: "prompt-retry", Doc: "a resent prompt's POST lost", needs: needHTTP | needResend},
	{Point: netfault.PostLost, State: "resume", Doc: "a session/resume POST lost", needs: needHTTP},
	{Point: netfault.PostLost, State: "initialize", Doc: "an initialize POST lost", needs: needHTTP},
	{Point: netfault.AcceptedLost, State: "prompt", Doc: "the Agent read a prompt, its 202 never came back", needs: needHTTP},
	{Point: netfault.AcceptedLost, State: "prompt-retry", Doc: "the Agent read a resent prompt, its 202 never came back", needs: needHTTP | needResend},
	{Point: netfault.StreamBreak, State: "prompt-response", Doc: "an SSE stream breaks on an inserted prompt's response", needs: needHTTP},
	{Point: netfault.StreamBreak, State: "held-response", Doc: "an SSE stream breaks on a held prompt's response", needs: needHTTP | needHold},
	{Point: netfault.StreamBreak, State: "binding-response", Doc: "an SSE stream breaks on a retry's answer from the binding", needs: needHTTP | needKeyed | needResend},
	{Point: netfault.StreamBreak, State: "resume-in-flight", Doc: "an SSE stream breaks while a session/resume replay is in flight", needs: needHTTP},
	{Point: netfault.ConnExpired, State: "prompt", Doc: "the connection id expires as a prompt POST arrives (404)", needs: needHTTP},
	{Point: netfault.ConnExpired, State: "held", Doc: "the connection id expires while the Agent holds a prompt from it", needs: needHTTP | needHold},

	// Delays long enough for the Client to time out.
	{Point: netfault.Delay, State: "prompt-late", Doc: "a prompt delayed past the Client's timeout"},
	{Point: netfault.Delay, State: "response-late", Doc: "a prompt's response delayed past the Client's timeout: the retry races it"},

	{Point: netfault.Reject, State: "prompt", Doc: "a prompt's first attempt rejected before insertion (-32603)"},
	{Point: netfault.Reject, State: "prompt-retry", Doc: "a resent prompt rejected before insertion: its key stays unused", needs: needResend},

	{Point: netfault.ClientRestart, State: "unsent", Doc: "the Client dies with a submission saved but never sent (its key only on the Client's disk)"},
	{Point: netfault.ClientRestart, State: "pending", Doc: "the Client dies with a sent submission still pending (resent with its key after the restart)"},

	// A resent prompt reaching the Agent: the state is what happened to
	// the submission's earlier attempts.
	{Point: PointRetry, State: "pending", Doc: "a resent prompt arrives while an earlier attempt is held by the Agent", needs: needResend | needHold, boost: []string{netfault.Delay}},
	{Point: PointRetry, State: "answered", Doc: "a resent prompt arrives after an earlier attempt was answered with a messageId", needs: needResend, boost: []string{netfault.Cut, netfault.Delay, netfault.StreamBreak}},
	{Point: PointRetry, State: "restarted", Doc: "a resent prompt reaches an Agent process started after the one that had an earlier attempt", needs: needResend, boost: []string{netfault.Kill, netfault.Cut}},
	{Point: PointRetry, State: "unseen", Doc: "a resent prompt whose earlier attempts never reached the Agent", needs: needResend, boost: []string{netfault.Cut, netfault.PostLost}},
}

// killStates maps an Agent step (agent.Output.Step) to the state of the
// kill pairs; a step missing here (a mutant's own) has no pair.
var killStates = map[string]string{
	"sync-session": "sync-session", "respond-session-new": "respond-session-new",
	"sync-insert": "sync-insert", "respond-prompt": "respond-prompt", "update-user-message": "update-user-message",
	"update-running": "work", "update-chunk": "work", "update-idle": "work", "sync-agent-message": "sync-agent-message",
	"respond-from-binding": "respond-from-binding", "respond-from-history": "respond-from-binding",
	"replay": "replay", "resume-snapshot": "replay", "respond-resume": "respond-resume",
	"respond-initialize": "respond-initialize", "respond-error": "respond-error",
	"respond-cancelled": "respond-cancelled", "respond-close": "respond-close",
	"sync-fork": "fork", "respond-fork": "fork",
}

var pairIndex = func() map[[2]string]int {
	m := make(map[[2]string]int, len(CoveragePairs))
	for i, p := range CoveragePairs {
		m[[2]string{p.Point, p.State}] = i
	}
	return m
}()

// needsOf is what cfg has.
func needsOf(cfg *Config) need {
	var n need
	switch cfg.Link {
	case LinkStdio, LinkWS:
		n |= needStream
	case LinkHTTP:
		n |= needHTTP
	case LinkMixed:
		n |= needStream
		if cfg.Clients > 1 {
			n |= needHTTP
		}
	}
	if cfg.Knobs.Busy == agent.BusyHold {
		n |= needHold
	}
	if pol, err := client.LookupPolicy(cfg.Policy); err == nil {
		if pol.Resend {
			n |= needResend
		}
		if pol.Keyed {
			n |= needKeyed
		}
	}
	if cfg.Cancels > 0 || cfg.Closes > 0 {
		n |= needCancel
	}
	if cfg.Closes > 0 {
		n |= needClose
	}
	if cfg.Forks > 0 {
		n |= needFork
	}
	return n
}

// Applicable says which pairs a swarm of cfg can reach: those whose point's
// fault kind has a rate (and, for lose-unsynced, kill too) and whose needs
// the configuration has.
func Applicable(cfg *Config) []bool {
	has := needsOf(cfg)
	out := make([]bool, len(CoveragePairs))
	anyFault := false
	for _, r := range cfg.Rates {
		anyFault = anyFault || r > 0
	}
	for i, p := range CoveragePairs {
		ok := p.needs&has == p.needs
		switch p.Point {
		case PointRetry:
			ok = ok && anyFault
		case netfault.LoseUnsynced:
			ok = ok && cfg.Rates[p.Point] > 0 && cfg.Rates[netfault.Kill] > 0
		default:
			ok = ok && cfg.Rates[p.Point] > 0
		}
		out[i] = ok
	}
	return out
}

// Coverage is how often a run hit each pair, by index in CoveragePairs.
type Coverage []int
