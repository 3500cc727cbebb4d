// Package client holds acpsim's model Clients, one retry policy each, and the
// checker's observer. Like the Agents they are state machines: they take an
// input (a connection coming up or going down, a frame, a timer, a user's
// submission) and return their outputs; the host runs the links and the clock.
package client

import (
	"fmt"
	"strings"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
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
	Kind  OutputKind
	Conn  string
	Frame []byte
	// Digest is what Frame says, made as it was encoded (acp.Digest); the
	// zero Digest when none was made.
	Digest    *acp.Digest
	Sub       string
	After     time.Duration
	ID        int
	Outcome   string
	MessageID string
	// Probe marks a frame malformed on purpose (the observer's
	// malformed-key probes): the trace notes it (traces.NoteProbe), so
	// lint expects it refused rather than reports it.
	Probe bool
}

// Policy is a retry policy (docs/design.md#actors-actors), described as data: each field
// switches on one behaviour, so a new policy is a new row of Policies, not a
// new branch in the Client.
type Policy struct {
	Name string
	// Resend: a prompt whose response did not come is sent again (after a
	// timeout, a transient error or a reconnect). Without it the Client
	// drops the submission and tells the user nothing.
	Resend bool
	// Keyed: every attempt of a submission carries the key made at submission.
	Keyed bool
	// Bounded: after Config.MaxAttempts attempts whose responses did not
	// come, the Client stops and tells the user the outcome is unknown.
	Bounded bool
	// ShowStale: a submission still pending Config.StaleAfter after the user
	// made it is shown to the user (outcome unknown) instead of being resent.
	// The RFD: by then the Agent may have discarded the message under its
	// own retention, and its key with it.
	ShowStale bool
	// Lookup: when a prompt's response does not come, the Client resumes the
	// session with replay from the start and looks for a user message with
	// the submission's text that it has not attributed to another of its
	// submissions; it resends only if there is none. The RFD's rejected
	// alternative, "resolve by lookup".
	Lookup bool
	// Alternative: one of the RFD's alternatives, which acpsim matrix
	// --alternatives runs (not a row of the default matrix).
	Alternative bool
	// KeyedCreate: session/new carries a key of its own, the same on every
	// attempt to create one session, so that an Agent that honours it
	// (the create-keys knob) answers a retry with the session it made: the
	// RFD's "Why not key session/new and session/fork?". The key lives in
	// the Client's memory until the session's id comes; forks are not
	// resent, so they carry none.
	KeyedCreate bool
	// TellsUnknown: a prompt whose response did not come, which the policy
	// does not resend, is told to the user as unknown instead of dropped
	// without a word (a Client that knows its retry class).
	TellsUnknown bool
	// ResendBeforeResume (known-bad): after reconnecting, pending prompts are
	// resent right after initialize, before session/resume, and a -32002
	// answer to such a retry is shown to the user as failed, although the
	// original may have been inserted.
	ResendBeforeResume bool
	// NewKeyPerAttempt (known-bad): every resend carries a fresh key, so the
	// Agent takes each attempt for a new submission.
	NewKeyPerAttempt bool
	// ReuseKey (known-bad): a submission takes the key of the previous
	// submission in its session instead of a new one, so an Agent that does
	// not compare prompts answers it as a retry of that one.
	ReuseKey bool
	// GiveUpSilently (known-bad): where a Bounded policy tells the user the
	// outcome is unknown, the submission is dropped without a word.
	GiveUpSilently bool
	// NewKeyAfterRestart (known-bad): a restarted Client makes new keys for
	// its pending submissions instead of sending the ones it saved.
	NewKeyAfterRestart bool
	// Catches is, for a known-bad Client, the anomaly the checker must report
	// for it in a swarm against the reference Agent; "" otherwise.
	Catches string
	Doc     string
}

// Policies lists the retry policies. The first three are the baseline the
// CLI names in its errors; the RFD's Client is keyed.
var Policies = []Policy{
	{Name: "none", Doc: "never resends and tells the user nothing: the silent loss of today's Clients"},
	{Name: "naive", Resend: true, Doc: "resends without a key on timeout or reconnect"},
	{Name: "keyed", Resend: true, Keyed: true, Doc: "the RFD: one key per submission, the same key on every attempt (also after a Client restart), resend after session/resume"},
	{Name: "bounded", Resend: true, Keyed: true, Bounded: true, Doc: "keyed, but gives up after MaxAttempts attempts and tells the user the outcome is unknown"},
	{Name: "stale", Resend: true, Keyed: true, ShowStale: true, Doc: "keyed, but a prompt still pending StaleAfter after it was submitted is shown to the user (outcome unknown) instead of resent"},
	{Name: "classes-only", TellsUnknown: true, Alternative: true, Doc: "the RFD's first alternative, retry classes documented and no key: a prompt (unsafe to retry) is never resent; one whose response did not come is told to the user as unknown"},
	{Name: "keyed-create", Resend: true, Keyed: true, KeyedCreate: true, Alternative: true, Doc: "keyed, and session/new carries a key too, the same on every attempt to create one session (the RFD's alternative of a key on the creating methods)"},
	{Name: "lookup", Resend: true, Lookup: true, Doc: "no key: when a response does not come, resumes with replay from the start and looks for its message by text; resends if it is not there (the RFD's rejected alternative)"},
	{Name: "resend-before-resume", Resend: true, Keyed: true, ResendBeforeResume: true, Catches: "phantom",
		Doc: "known-bad: keyed, but after reconnecting resends pending prompts before session/resume and shows their -32002 as failed"},
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

// Defaults of the Config fields that only some policies use.
const (
	DefaultMaxAttempts = 4
	DefaultStaleAfter  = 1500 * time.Millisecond
)

// The patience of a resending Client with one prompt (Config.PromptTimeouts,
// promptWait): its wait for an answer doubles from Timeout after each
// attempt unanswered on a live connection, up to 8 × Timeout, and after
// DefaultPromptTimeouts of them (about 56 s at the 250 ms default) it stops.
// That is far longer than a healthy Agent holds a prompt behind others,
// and short enough that an Agent that never answers costs a bounded number
// of attempts per submission.
const (
	DefaultPromptTimeouts = 30
	promptWaitDoublings   = 3
)

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
	// BackoffCap bounds the wait before a session set-up attempt after
	// answered errors, which doubles from Backoff per error (0:
	// DefaultBackoffCap).
	BackoffCap time.Duration
	// SetupAttempts is how many set-up requests of a session (session/new,
	// session/resume) in a row the Agent may answer with an error before
	// the Client stops trying the session and tells the user (0:
	// DefaultSetupAttempts). Requests lost with a connection do not count.
	SetupAttempts int
	// Window is how many of a session's oldest pending prompts the Client
	// sends at once; the others wait in the Client until one of those is
	// resolved (0: DefaultWindow).
	Window int
	// PromptTimeouts is how many attempts of one submission may go
	// unanswered on a live connection before a resending Client stops and
	// tells the user the outcome is unknown, whatever its policy (0:
	// DefaultPromptTimeouts). Attempts lost with their connection do not
	// count: a Client under cuts and kills keeps resending after resuming.
	PromptTimeouts int
	// MaxAttempts bounds the attempts of a Bounded policy (0: DefaultMaxAttempts).
	MaxAttempts int
	// StaleAfter is when a ShowStale policy stops resending a submission
	// (0: DefaultStaleAfter).
	StaleAfter time.Duration
	// FreshConnection: after a prompt times out the Client gives up on the
	// connection and opens a new one without closing the old, as a remote
	// Client that suspects a dead connection does. The old connection's
	// late frames then arrive after the new one's, and the retry on the new
	// connection races the original still pending on the old one.
	FreshConnection bool
	// StallWaitOneIn: a user's $/cancel_request waits for a stalled prompt
	// (Cancel) in one of this many (0: three). A host with few, real-time
	// runs (acpsim check) sets 1, as the move is what catches an Agent that
	// withdraws only the attempt a cancel names.
	StallWaitOneIn int
	// IDStyles: each connection numbers its requests in a way drawn from
	// idStyles (from 0, a random start, gaps, strings, large numbers, from
	// 1), not 1, 2, 3 … always, so that a hop that does not map ids in
	// params shows (ids.go).
	IDStyles bool
	// UnkeyedOneIn: a keyed Client sends one submission in this many
	// without a key (omitted or null, drawn), as the RFD allows, and never
	// resends it (0: every submission keyed).
	UnkeyedOneIn int
	// MayOmitKey, when set, is asked before a submission is sent without
	// a key: acpsim check lets only a text no other submission of the
	// Client types go unkeyed, since the checker can then attribute its
	// insertion by text (two unkeyed same-text submissions, one lost in a
	// crash, are unattributable on an honest Agent).
	MayOmitKey func(text string) bool
	// Protocol is the ACP version the Client speaks on the wire: 2 (0
	// too), or 1 (v1.go: no key, session/load, the prompt's answer at the
	// end of its turn). A keyed policy has nothing to send its key in v1.
	Protocol int
}

// Env is what a Client gets from its host: the stream of fresh ids, a
// source of non-fault randomness (for key reuse across sessions) and the
// virtual clock (for how long a submission has been pending; nil reads 0).
type Env struct {
	NewID func() string
	IntN  func(n int) int
	Now   func() time.Duration
	// Sub, when set, gives a submission its own draws for its key, so that
	// a scenario with one submission left out (shrink) keeps the others'
	// keys. Without it the key comes from NewID and IntN.
	Sub func(sub string) (newID func() string, intN func(n int) int)
	// Draw, when set, draws a value in [0, n) for the decision named name
	// (a submission's key shape, whether a user relies on the Agent to
	// withdraw a key's other attempts) from a stream of that name's own, so
	// that a decision added later shifts no draw of an older one. Without
	// it each such decision takes its ordinary option (Client.draw).
	Draw func(name string, n int) int
	// Canonical, when set, gives an id the Client read from a frame (a
	// session id from session/new or session/fork) as the run's own string
	// of the same value (sim.Names.Canonical), so that every later mention
	// is the string the Agent minted, which the checker finds a handle for
	// without hashing it. The value is the same: nothing the Client does
	// changes.
	Canonical func(id string) string
	// Mint, when set, registers a key the Client made by hand (a drawn
	// shape, another session's key in upper case) in the run's register
	// and gives back its string there (sim.Names.Mint): the same value.
	Mint func(id string) string
}

// mint is id as Env.Mint registers it, id itself without one.
func (c *Client) mint(id string) string { return orSelf(c.env.Mint, id) }

// canonical is id as Env.Canonical gives it, id itself without one.
func (c *Client) canonical(id string) string { return orSelf(c.env.Canonical, id) }

// orSelf is f(id), id itself when f is nil (a host that keeps no register).
func orSelf(f func(string) string, id string) string {
	if f == nil {
		return id
	}
	return f(id)
}
