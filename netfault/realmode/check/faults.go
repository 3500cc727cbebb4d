package check

import (
	"time"

	"github.com/acpsim/acpsim/netfault"
)

// The faults acpsim check injects against a real Agent, as data. The fault
// proxy between the model Clients and the Agent asks one decision per frame
// and kind; a process kill is a SIGKILL to the Agent's process group. The
// kinds share the simulator's names where they mean the same thing.
const (
	// ProxyDrop loses one frame from the Agent: the Client never sees that
	// response or update, while the Agent did its work (the RFD's case).
	ProxyDrop = "drop"
	// Overlap, under the virtual clock, lets one step happen while the
	// Agent owes an answer and has paused (clock.go).
	Overlap = "overlap"
)

// Delays are the options of a delay decision in real time: how long
// the proxy holds a frame back (later frames of that direction wait behind
// it, as in a pipe). Option 0 is no delay.
var Delays = []time.Duration{0, time.Millisecond, 10 * time.Millisecond, 60 * time.Millisecond, 250 * time.Millisecond}

// KillAfter are the options of the kill decision asked when a prompt has
// been written to the Agent: SIGKILL that long after it (option 0: no
// kill), so the kill lands before, during or after the Agent's insertion.
var KillAfter = []time.Duration{0, 0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond}

// Faults are the fault kinds of acpsim check with their default rates.
var Faults = []netfault.Fault{
	{Kind: ProxyDrop, Options: 2, Rate: 0.05, Doc: "the proxy loses a frame from the Agent (never a response to initialize or auth/login, which the model Client does not time out)"},
	{Kind: netfault.Delay, Options: len(Delays), Rate: 0.05, Doc: "the proxy holds a frame back for 1 ms to 250 ms; later frames of that direction wait behind it"},
	{Kind: netfault.Cut, Options: 2, Rate: 0.005, Doc: "the proxy breaks the connection as a frame passes: on stdio the Agent's stdin is closed and its later output is not read"},
	{Kind: netfault.Kill, Options: len(KillAfter), Rate: 0.03, Doc: "the Agent process gets SIGKILL: as one of its frames passes (that frame is lost), or 0-20 ms after a prompt was written to it"},
	{Kind: Overlap, Options: 2, Rate: 0.5, Doc: "virtual clock: the Agent has paused while it owes an answer (in the middle of a turn); the clock takes one step anyway (a user's cancel, a Client's timeout), so work in flight meets the users (not a fault, a choice the schedule makes)"},
	{Kind: netfault.Route, Options: 2, Rate: 0.5, Doc: "remote with several --url: a new connection goes to another endpoint than the first (not a fault, but a choice the schedule makes)"},
	{Kind: netfault.ClientRestart, Options: 2, Rate: 0.002, Doc: "the model Client dies before applying a step's outputs and restarts from what it persisted"},
}

// Rates returns the default rate of every fault kind of acpsim check.
func Rates() map[string]float64 { return netfault.Rates(Faults) }
