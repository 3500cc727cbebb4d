// Package client holds acpsim's model Clients, one retry policy each, and the
// checker's observer. Like the Agents they are state machines: they take an
// input (a connection coming up or going down, a frame, a timer, a user's
// submission) and return their outputs; the host runs the links and the clock.
package client

import (
	"fmt"
	"strings"
	"time"
)

// OutputKind says what an Output asks the host to do.
type OutputKind uint8

// Output kinds.
const (
	// OutSend writes Frame on connection Conn; Sub names the submission a
	// prompt request belongs to.
	OutSend OutputKind = iota + 1
	// OutConnect asks for a new connection to the Agent (on stdio: spawn it).
	OutConnect
	// OutTimer asks for Timer(ID) to be called After from now.
	OutTimer
	// OutOutcome reports a submission's outcome to the user.
	OutOutcome
	// OutHangup closes connection Conn (on stdio: the Agent process ends);
	// the Client reconnects after its backoff.
	OutHangup
)

// Output is one effect of a step.
type Output struct {
	Kind      OutputKind
	Conn      string
	Frame     []byte
	Sub       string
	After     time.Duration
	ID        int
	Outcome   string
	MessageID string
}

// Policy is a retry policy (DESIGN.md §3), described as data.
type Policy struct {
	Name string
	// Resend: a prompt whose response did not come is sent again (after a
	// timeout, a transient error or a reconnect). Without it the Client
	// drops the submission and tells the user nothing.
	Resend bool
	// Keyed: every attempt of a submission carries the key made at submission.
	Keyed bool
	Doc   string
}

// Policies lists the retry policies.
var Policies = []Policy{
	{Name: "none", Doc: "never resends and tells the user nothing: the silent loss of today's Clients"},
	{Name: "naive", Resend: true, Doc: "resends without a key on timeout or reconnect"},
	{Name: "keyed", Resend: true, Keyed: true, Doc: "the RFD: one key per submission, the same key on every attempt, resend after session/resume"},
}

// LookupPolicy returns the named policy.
func LookupPolicy(name string) (Policy, error) {
	names := make([]string, 0, len(Policies))
	for _, p := range Policies {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Policy{}, fmt.Errorf("unknown policy %q: expected one of %s", name, strings.Join(names, ", "))
}

// Config configures a model Client.
type Config struct {
	Name     string
	Policy   Policy
	Sessions int
	Cwd      string
	// Timeout is how long the Client waits for a prompt's response.
	Timeout time.Duration
	// Backoff is the wait before reconnecting or retrying a transient error.
	Backoff time.Duration
}

// Env is what a Client gets from its host: the stream of fresh ids and a
// source of non-fault randomness (for key reuse across sessions).
type Env struct {
	NewID func() string
	IntN  func(n int) int
}
