// Package properties judges a trace from its frames alone (docs/design.md#properties-properties).
//
// Check reads what each endpoint wrote and read, attributes the user messages
// of the final transcript to submissions, and reports anomalies with the chain
// of events that shows each one. It is a black-box checker: it never looks at
// the simulator's own notes (traces.Bookkeeping), so it judges a model Agent,
// a Go plug-in Agent and a real executable by the same evidence, held to the
// contract the Agent declares in the trace header (traces.Contract): what the
// contract lets it forget is expected, not an anomaly. It reads the trace
// in one pass into pointer-free tables indexed by handles, judges after the
// pass, and never searches over interleavings; a Checker takes the events
// one at a time, so a trace is judged as it is read, in memory that grows
// with its submissions and sessions, not its frames.
package properties

// Anomaly kinds, in the order reports list them.
const (
	// Duplicate: one submission was inserted two or more times: it has two
	// or more messages in the final transcript, or, without a key, success
	// responses to its requests name two or more messages (in a transcript
	// or not: live-only messages never are), or both together. When the
	// frames prove that one of several same-text submissions has, without
	// telling which, the anomaly names them all and its Sub is empty.
	Duplicate = "duplicate"
	// Lost: the user was told inserted(M), or nothing, and the message is not
	// in the final transcript although the Agent's contract promised to
	// retain it: not when its text is live-only, nor when the contract keeps
	// the last N user messages and the session's transcript holds N or more
	// (either excuse needs a request of it to have reached the Agent). An
	// unknown or invalid retention counts as "all".
	Lost = "lost"
	// SessionLost: under the durable session contract (asked for, or chosen
	// because another session of the run survived a restart), a session the
	// Agent answered prompts in was unknown to a process started after every
	// process that had it: its session/resume was answered -32002, or the
	// observer's session/list did not name it. Reported once per session;
	// its messages are not reported lost one by one.
	SessionLost = "session-lost"
	// Phantom: the user was told failed, yet the submission is in the transcript.
	Phantom = "phantom"
	// Unresolved: the submission never got an outcome although the run
	// ended quiet, nothing left to do. One the run stopped (its cap, or a
	// trace cut short) before it got an outcome is inconclusive instead
	// (Report.Unjudged).
	Unresolved = "unresolved"
	// WrongID: a keyed submission got two different messageIds in one
	// session, or two submissions got the same one. A new messageId is
	// expected, and counted in Stats.ExpectedForgotten instead, when the
	// contract let the Agent forget the earlier message before the retry
	// arrived.
	WrongID = "wrong-id"
	// Rework: a retry answered from a binding was followed by a second round
	// of work for the message.
	Rework = "rework"
	// KeyLeak: an Agent-to-Client frame sent after a Client first sent an
	// idempotencyKey carries it (in any JSON escaping) as a whole string, a
	// delimited token, or, for a key of 16 code points or more, anywhere
	// inside a string; or a frame carries an "idempotencyKey" object key.
	KeyLeak = "key-leak"
	// BadReply: a request got no response or two while its link lived, a
	// malformed key was not answered -32602, a response answered no request,
	// or a prompt the Client cancelled before it was inserted (session/cancel
	// or session/close for its session on its link, or $/cancel_request
	// naming it or a pending request with its key in its session) was later
	// answered with success, or first answered with an error other than
	// -32800, or is in the final transcript although no request of it that
	// could have inserted it escaped the cancel.
	BadReply = "bad-reply"
	// StrayCancel: a request was answered -32800 (request cancelled) although
	// no cancel reached it: no $/cancel_request named it (or, for a keyed
	// prompt, another pending attempt of its key), and no session/cancel or
	// session/close of its session was read while it was pending
	// (cancel.go).
	StrayCancel = "stray-cancel"
	// Unattributable: transcript messages that no response names could not be
	// matched to submissions without changing some verdict, or match none.
	Unattributable = "unattributable"
	// SetupFailed: the Agent answered a session's session/resume (or a
	// Client's session/new) with an error after healing, other than
	// -32002, and never with success after it, so the session could not
	// be set up again. Submissions told inserted (or nothing) in such a
	// session whose final transcript the observer could not read are not
	// reported lost as well: the anomaly names them as unchecked.
	SetupFailed = "setup-failed"
)

// Kinds lists every anomaly kind in report order.
var Kinds = []string{Duplicate, Lost, SessionLost, Phantom, Unresolved, WrongID, Rework, KeyLeak, BadReply, StrayCancel, Unattributable, SetupFailed}

// Report is the verdict on one trace.
type Report struct {
	// Submissions are in the order the trace first names them.
	Submissions []SubmissionResult
	// Anomalies are ordered by kind (as in Kinds), then by their first event.
	Anomalies []Anomaly
	Stats     Stats
	// End is the Note of the trace's end event: "quiet", "cap", or "" when the
	// trace has none (a truncated trace).
	End string
	// Sessions is the session contract the run was judged by, and why.
	Sessions SessionContract
	// Inconclusive is set when the run hit its cap, or stopped (no end
	// event) while work was still pending: a missing outcome, response or
	// transcript is not a bug the checker can pin on anyone, and a report
	// without anomalies is no pass.
	Inconclusive bool
	// Unjudged are the submissions the run stopped before the checker could
	// judge, in the order the trace first names them, each with why: no
	// outcome yet, or the observer never read the transcript whose lack of
	// it would make it lost. They are no anomaly.
	Unjudged []Unjudged `json:",omitempty"`
	// NothingJudged says why the report judged no submission at all; such
	// a report is inconclusive, never a pass.
	NothingJudged string `json:",omitempty"`
	// Protocol is the ACP version the trace's peers spoke: 2, or 1 when a
	// peer's initialize read as v1 (version.go). V1 is then the line that
	// says so, what is judged under v1 and what is not.
	Protocol int
	V1       string `json:",omitempty"`
	// NotJudged are the kinds the trace cannot show (NeedWholeHistory, on
	// a trace acpsim tap recorded), so the report can say so.
	NotJudged []string `json:",omitempty"`
	// Accounts say, for duplicate, lost, phantom and unresolved, how many
	// submissions each was judged for and why not the rest (Verdict).
	Accounts []Account `json:",omitempty"`

	// ab is how the report cuts its ids (cutIDs), so the table cuts them
	// as its prose did.
	ab *abbrev
}

// Unjudged is a submission the checker could not judge, and why.
type Unjudged struct {
	Sub     string
	Session string // the session whose transcript was not read, or its first
	// Why tells what was missing and why, with the events that show it.
	Why    string
	Events []int64
}

// OK reports whether no anomaly was found. An inconclusive report may be OK.
func (r *Report) OK() bool { return len(r.Anomalies) == 0 }

// SubmissionResult is what the checker learned about one submission.
type SubmissionResult struct {
	Sub    string
	Client string
	Text   string
	// Sessions are the sessions its prompt requests named, in first-use order.
	Sessions []string
	// Key is the idempotencyKey every attempt carried, "" when none did; Mixed
	// is set when the attempts disagree (then the submission is not keyed).
	Key   string
	Mixed bool
	// Attempts counts prompt requests sent; Delivered those that reached an Agent.
	Attempts, Delivered int
	// Outcome is the last outcome the Client reported ("" for none) and
	// MessageID the id it reported with inserted.
	Outcome   string
	MessageID string
	// Answered lists the distinct messageIds the Agent sent in success
	// responses to its requests, in order.
	Answered []string
	// Transcript lists the messageIds of the final transcript attributed to
	// it; ByText counts those attributed by the text fallback.
	Transcript []string
	ByText     int
	// Anomalies are the kinds reported for it.
	Anomalies []string
	// Inconclusive: the run stopped before it could be judged (Report.Unjudged).
	Inconclusive bool `json:",omitempty"`
}

// SessionContract is the session contract a run was judged by: whether its
// sessions must outlive the process that made them.
type SessionContract struct {
	// Requested is the trace header's contract: durable, process or auto.
	Requested string
	// Chosen is durable or process: the requested one, or under auto
	// durable when a session survived a restart and process when none did.
	Chosen string
	// Sessions counts the sessions the Clients used that an Agent process
	// had; Survived those a second process had too; Vanished those a
	// process started after every one that had them did not know.
	Sessions, Survived, Vanished int
	// VanishedAlive counts the sessions a process forgot while it lived
	// (each a session-lost under any contract), not among Vanished.
	VanishedAlive int
	// Restarts counts Agent processes started after another process of
	// their Agent had ended.
	Restarts int
	// Why is the report's contract line, e.g. "0 of 9 sessions survived 4
	// restarts: sessions live with their process".
	Why string
}

// Anomaly is one property violation.
type Anomaly struct {
	Kind    string
	Sub     string // the submission it concerns, "" when none or not one alone
	Session string // the session it concerns, "" when none
	// Explanation tells the chain of events that shows it, in order, in prose.
	Explanation string
	// Events are the seqs of the events Explanation cites, ascending.
	Events []int64
}

// Stats counts how often the run reached the windows where retries matter, so
// a swarm can show that its faults hit them and not only easy spots.
type Stats struct {
	// RespLostAfterInsert: prompt requests whose success response the Agent
	// sent but that never arrived, plus submissions attributed by the text
	// fallback (inserted, never answered).
	RespLostAfterInsert int
	// RetriesFromBinding: success responses to the second or later request of
	// a keyed submission that carry a messageId already sent for it.
	RetriesFromBinding int
	// RetriesWhilePending: keyed prompt requests delivered to an Agent process
	// while an earlier request of the same submission was still unanswered there.
	RetriesWhilePending int
	// RetriesAfterRestart: keyed prompt requests delivered to an incarnation of
	// an Agent other than one an earlier attempt reached.
	RetriesAfterRestart int
	// ExpectedForgotten: keyed retries answered with a new messageId because
	// the Agent's contract let it forget the earlier message, and so the key,
	// before the retry arrived (a live-only message after its link ended or
	// the session moved to another link; a message discarded under "last N").
	// Each is a new submission by the RFD, not a wrong-id.
	ExpectedForgotten int
	// Submissions, prompt requests sent, and frames sent.
	Submissions, Prompts, Frames int
	// Sessions the Agent made for a Client's session/new (one answered to
	// several attempts counts once), and of those the ones no Client ever
	// named in a request: made for an attempt whose answer was lost, the
	// duplicate the RFD calls cheap ("an unused session").
	Sessions, UnusedSessions int
}

// Add adds o to s, for summing over the seeds of a swarm.
func (s *Stats) Add(o Stats) {
	s.RespLostAfterInsert += o.RespLostAfterInsert
	s.RetriesFromBinding += o.RetriesFromBinding
	s.RetriesWhilePending += o.RetriesWhilePending
	s.RetriesAfterRestart += o.RetriesAfterRestart
	s.ExpectedForgotten += o.ExpectedForgotten
	s.Submissions += o.Submissions
	s.Prompts += o.Prompts
	s.Frames += o.Frames
	s.Sessions += o.Sessions
	s.UnusedSessions += o.UnusedSessions
}
