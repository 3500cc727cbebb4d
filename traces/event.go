// Package traces is acpsim's trace format: one ndjson file per run, a header
// line and then one event per line, written as the run goes. The trace is the
// source of truth: checkers read it, replay re-runs it, people read it.
//
// Format 2 (written since issue 33) differs from format 1 in four ways,
// each to write less. A frame that is valid JSON (and valid UTF-8, starting
// with '{' or '[', with no white space around it and no raw line break) is
// written as the JSON value itself under "msg", byte for byte; any other
// frame is an escaped string under "frame", as in format 1, except that
// bytes that are not UTF-8 are kept, each as a lone surrogate escape
// \udc80-\udcff. A deliver or drop of a frame still in flight names its
// send ("send":N, N the send event's seq, paired as the checker pairs them)
// and leaves out the frame, the link and the direction, and from and to
// where they are the send's. A send, deliver or drop whose from and to are
// its link's ends in its direction, as the link's connect event named them,
// leaves them out. And an event leaves out its seq, its line's number after
// the header, except the end event, which keeps it so that a trace with a
// line removed is refused (NewAppendWriter writes every seq: an appender
// numbers from the last line). The reader reads both formats and gives the same events
// (with Send set where a deliver or drop met its send).
package traces

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

// FormatVersion is the version of the trace format this package writes.
// The reader reads it and FormatV1.
const FormatVersion = 2

// FormatV1 is the first trace format, still read, and written to a trace of
// that format that is appended to (acpsim tap).
const FormatV1 = 1

// Header is the first line of a trace: everything needed to rerun the run and
// to judge it without the tool that made it.
type Header struct {
	Format int    `json:"format"`
	Tool   string `json:"tool"`
	// Source says where the fault decisions came from: "seed" or "schedule".
	Source string `json:"source"`
	Seed   uint64 `json:"seed"`
	Policy string `json:"policy"`
	Agent  string `json:"agent"`
	Link   string `json:"link"`
	// Scenario sizes and timing.
	Clients  int `json:"clients"`
	Sessions int `json:"sessions"`
	Prompts  int `json:"prompts"`
	// Actions are the user's other actions per Client, e.g.
	// "cancels=1 closes=1 forks=0" ("" for none).
	Actions string `json:"actions,omitempty"`
	// Rates are the fault probabilities per decision kind.
	Rates map[string]float64 `json:"rates"`
	// Knobs are the Agent's settings for the choices the protocol leaves open.
	Knobs map[string]string `json:"knobs"`
	// Contract is what the Agent promises a black-box checker: which update
	// kinds are live-only and whether history is retained, so forgotten keys
	// that are expected are not reported.
	Contract Contract `json:"contract"`
	// KeyLengthUnit is the unit idempotencyKey lengths are counted in.
	KeyLengthUnit string `json:"keyLengthUnit"`
	// Command is the acpsim command line that reruns this trace's run.
	Command string `json:"command"`
	// Observed says where frames were seen. "" (the simulator): a deliver
	// is the moment the other end read the frame. ObservedAtProxy (acpsim
	// check against a real Agent): frames were seen by a proxy, so a
	// deliver to the Agent is when it was written to it, not when the
	// Agent read it, and an Agent's send is when the proxy read it.
	Observed string `json:"observed,omitempty"`
}

// ObservedAtProxy is Header.Observed for traces of real Agents.
const ObservedAtProxy = "proxy"

// ObservedAtTap is Header.Observed for traces acpsim tap recorded between a
// real Client and a real Agent: frames only, seen as they passed, with no
// user's submissions or outcomes and no final transcript.
const ObservedAtTap = "tap"

// Contract is the Agent's declared retention behaviour: what a black-box
// checker must not call lost, because the Agent said it would not keep it.
type Contract struct {
	// Retention is "all" (every inserted user message is retained) or
	// "last N" (each session keeps its N newest user messages; older ones
	// and their keys are forgotten).
	Retention string `json:"retention"`
	// LiveOnly lists prompt-text prefixes the Agent handles locally (a
	// command such as "/status"): such a message is echoed live but never
	// retained or replayed, and its key is recognised only while the
	// session stays active on its connection.
	LiveOnly []string `json:"liveOnly"`
	// Sessions is the session contract the checker is asked to hold the
	// Agent to: SessionsDurable (sessions must survive restarts),
	// SessionsProcess (a session ends with the process that created it) or
	// "" / SessionsAuto (the checker decides from the frames: durable if a
	// session is seen surviving a restart).
	Sessions string `json:"sessions,omitempty"`
}

// Session contracts (Contract.Sessions).
const (
	SessionsDurable = "durable"
	SessionsProcess = "process"
	SessionsAuto    = "auto"
)

// CheckSessionContract reports a session contract that is none of durable,
// process, auto or "" (auto).
func CheckSessionContract(s string) error {
	switch s {
	case "", SessionsAuto, SessionsDurable, SessionsProcess:
		return nil
	}
	return fmt.Errorf("session contract %q: expected durable, process or auto", s)
}

// HeaderSessionContract is session contract s as a trace header stores it:
// auto, the checker's default, is left out ("").
func HeaderSessionContract(s string) string {
	if s == SessionsAuto {
		return ""
	}
	return s
}

// RetainLast parses Retention: all is true for "all", otherwise n is the
// number of newest user messages each session keeps.
func (c Contract) RetainLast() (n int, all bool, err error) {
	if c.Retention == "all" {
		return 0, true, nil
	}
	if _, err := fmt.Sscanf(c.Retention, "last %d", &n); err != nil || n < 1 || fmt.Sprintf("last %d", n) != c.Retention {
		return 0, false, fmt.Errorf("contract retention %q: expected \"all\" or \"last N\" with N >= 1", c.Retention)
	}
	return n, false, nil
}

// IsLiveOnly reports whether a prompt with this text is handled locally.
func (c Contract) IsLiveOnly(text string) bool {
	for _, p := range c.LiveOnly {
		if p != "" && strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// Event kinds. Frames move as send (written by an endpoint), deliver (read by
// the other end) or drop (lost in flight). The kinds in Bookkeeping are the
// simulator's own notes: a checker must reach the same verdict without them.
const (
	KindSubmit     = "submit"     // a user submitted text to a Client (Client, Sub, Text)
	KindSend       = "send"       // an endpoint wrote Frame to Link (From, To, Dir, Frame, Sub; Note: NoteProbe)
	KindDeliver    = "deliver"    // Frame arrived at To over Link
	KindDrop       = "drop"       // Frame was lost on Link (Note says why)
	KindConnect    = "connect"    // Link came up between From (Client side) and To (Agent side)
	KindDisconnect = "disconnect" // Link ended; frames still in flight were dropped
	KindKill       = "kill"       // process From died (Note: where; LostUnsynced; Text: a real process's whole stderr)
	KindRestart    = "restart"    // process From started (a new incarnation)
	KindOutcome    = "outcome"    // a Client told its user the outcome of Sub
	KindHeal       = "heal"       // chaos ended: no more faults from here on
	KindEnd        = "end"        // the run stopped: Note is "quiet" or "cap"
	KindChoose     = "choose"     // a non-zero fault decision (Decision, Site, Option)
	KindInsert     = "insert"     // an Agent process (From) inserted a user message (Session, MessageID, Text)
	KindTimer      = "timer"      // an actor's timer fired (To, Note)
	KindStream     = "stream"     // an HTTP SSE stream opened or closed (Link, Note: "open <session>" or "closed <session>: why")
	KindRoute      = "route"      // a new connection was routed to an Agent node (Link, From: Client, To: node process)
)

// Bookkeeping lists the event kinds a checker must not depend on.
var Bookkeeping = map[string]bool{KindChoose: true, KindInsert: true, KindTimer: true, KindStream: true, KindRoute: true}

// Directions of a frame on a link.
const (
	ClientToAgent = "c2a"
	AgentToClient = "a2c"
)

// Outcomes a Client reports to its user.
const (
	OutcomeInserted  = "inserted"  // with MessageID (ACP v2; v1 names none)
	OutcomeFailed    = "failed"    // a definite error was shown
	OutcomeUnknown   = "unknown"   // the Client gave up and told the user it does not know
	OutcomeAbandoned = "abandoned" // the Client stopped tracking it and told the user nothing
)

// Notes of the end event: the run went quiet (nothing left to do), or it hit
// its cap while still busy (inconclusive).
const (
	EndQuiet = "quiet"
	EndCap   = "cap"
)

// NoteProbe is the note of a send event whose frame is malformed on purpose:
// the observer's malformed-key probes (an idempotencyKey that is empty, too
// long or not a string), sent after a run to see the Agent refuse each with
// -32602. Lint expects such a frame to break the schema and checks the
// refusal instead; a malformed frame without the note is a problem.
const NoteProbe = "probe"

// NoteObserve is the note of a send event by which the checker's observer
// takes over a Client's live connection, to read the transcripts an Agent
// process holds in memory before it ends: from that frame on, the
// connection is the observer's.
const NoteObserve = "observe"

// Sources of fault decisions in the header.
const (
	SourceSeed     = "seed"
	SourceSchedule = "schedule"
)

// Observer is the endpoint name of the checker's own Client, which reads the
// final transcript after the run has healed.
const Observer = "observer"

// Event is one line after the header. T is virtual time in microseconds; Seq
// numbers events from 1, in line order (format 2 leaves it out of the line).
// Fields are set per Kind as the Kind constants say.
type Event struct {
	T    int64  `json:"t"`
	Seq  int64  `json:"seq"`
	Kind string `json:"kind"`

	Link  string `json:"link,omitempty"`
	From  string `json:"from,omitempty"`
	To    string `json:"to,omitempty"`
	Dir   string `json:"dir,omitempty"`
	Frame string `json:"frame,omitempty"`
	// Send is set by the reader of a format-2 trace on a deliver or drop
	// event of a frame in flight: the seq of the send it delivers, paired
	// as the checker pairs them (the first send in flight on its link and
	// direction with its frame). The writer ignores it (it pairs them
	// itself); the simulator and the reader of format 1 leave it 0.
	Send int64 `json:"send,omitempty"`

	Client    string `json:"client,omitempty"`
	Sub       string `json:"sub,omitempty"`
	Text      string `json:"text,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	Session   string `json:"session,omitempty"`
	MessageID string `json:"messageId,omitempty"`

	Decision string `json:"decision,omitempty"`
	Site     string `json:"site,omitempty"`
	Option   int    `json:"option,omitempty"`

	LostUnsynced bool   `json:"lostUnsynced,omitempty"`
	Note         string `json:"note,omitempty"`

	// Digest is what a send event's Frame says, as the simulator's actor
	// encoded it (acp.Digest): the checker reads it instead of the bytes.
	// It is never written: a trace read back has none, and the checker
	// reads the bytes, reaching the same verdict.
	Digest *acp.Digest `json:"-"`
}
