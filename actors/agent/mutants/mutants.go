// Package mutants holds known-bad model Agents. Each breaks one rule of the
// RFD in a way real Agents plausibly would, and each property checker must
// catch at least one of them: a checker that cannot fail is a defect.
//
// A mutant wraps the reference Agent and rewrites what goes in or comes out,
// so the reference stays free of deliberate bugs.
package mutants

import (
	"time"

	"github.com/acpsim/acpsim/actors/agent"
)

// The mutants, as data: name, what is wrong with it, how to build it, and
// the anomaly a checker must report for it.
var mutants = []struct {
	name, doc string
	build     agent.Factory
	catch     string
}{
	{"ignore-key", "ignores idempotencyKey: every retry inserts again", newIgnoreKey, "duplicate"},
	{"bind-on-arrival", "binds the key when the request arrives, so an error leaves it used", newBindOnArrival, "lost"},
	{"memory-keys", "keeps key bindings only in process memory: a restart forgets them", newMemoryKeys, "duplicate"},
	{"echo-key", "echoes the key in the user_message update's _meta", newEchoKey, "key-leak"},
	{"new-id-on-retry", "answers a retry with a new messageId (inserting nothing)", newNewIDOnRetry, "wrong-id"},
	{"rework-on-retry", "answers a retry from the binding, then runs the work again", newReworkOnRetry, "rework"},
	{"lenient-key", "treats a malformed idempotencyKey (\"\", too long, not a string) as no key", newLenientKey, "bad-reply"},
	{"key-length-in-bytes", "counts an idempotencyKey's length in UTF-8 bytes: refuses legal keys of 255 non-ASCII code points with -32602", keyLengthIn(utf8Bytes), "bad-reply"},
	{"key-length-in-utf16", "counts an idempotencyKey's length in UTF-16 units: refuses legal keys of four-byte code points (255 of them are 510 units) with -32602", keyLengthIn(utf16Units), "bad-reply"},
	{"key-in-list-meta", "shows each session's last key in session/list's _meta", newKeyInListMeta, "key-leak"},
	{"agent-scoped-keys", "scopes keys per Agent instead of per session: the same key in another session is taken for a retry", newAgentScopedKeys, "lost"},
	{"fold-key-case", "folds key case: keys that differ only in case are taken for one", newFoldKeyCase, "wrong-id"},
	{"newest-id-on-retry", "answers a retry from the binding with the session's newest user message, another submission's once one was inserted since", newNewestIDOnRetry, "wrong-id"},
	{"fork-copies-bindings", "gives a fork its parent's key bindings: a parent's key sent again in the fork is answered with a copy the fork inherited, and the new prompt is never inserted", newForkCopiesBindings, "lost"},
	{"fresh-live-id-on-retry", "answers a retry from the binding with the original messageId but announces the prompt live again as a user_message under a new id", newFreshLiveIDOnRetry, "duplicate"},
	{"new-ids-on-replay", "mints new message ids on replay instead of keeping the originals", newNewIDsOnReplay, "lost"},
	{"cancel-only-named", "$/cancel_request answers only the named request -32800; the prompt stays held and is inserted", newCancelOnlyNamed, "bad-reply"},
	{"cancel-spares-other-attempts", "$/cancel_request withdraws only the request it names: the key's other pending attempts stay held and are inserted", newCancelSparesOthers, "bad-reply"},
	{"insert-after-close", "session/close answers held prompts -32800 but inserts them later", newInsertAfterClose, "bad-reply"},
	{"cancel-keeps-held", "session/cancel stops the work but leaves held prompts to be inserted", newCancelKeepsHeld, "bad-reply"},
	{"withdrawn-key-stays-cancelled", "remembers the key of a withdrawn prompt and answers the user's later attempt with it -32800, though nobody cancelled that one", newWithdrawnKeyStaysCancelled, "stray-cancel"},
	{"fork-forgets-parent", "forking a session makes the Agent forget the parent's key bindings", newForkForgetsParent, "duplicate"},
	{"lost-writes", "each process writes back the session list it loaded, deleting sessions another process sharing the store created meanwhile", newLostWrites, "session-lost"},
	{"adapter-no-rebuild", "an adapter that never reads the message ids back from the runtime's history: after a restart a retry is submitted again", newAdapterNoRebuild, "duplicate"},
	{"resume-always-errors", "answers every session/resume -32603 'storage unavailable': a Client that resumes again at once spins", newResumeAlwaysErrors, "setup-failed"},
}

// Needs is what a mutant's run must have for its bug to show at all
// (zero values: the defaults): a link, Agent nodes, sessions per Client,
// how often each user forks, the Client's prompt timeout.
type Needs struct {
	Link                   string
	Nodes, Sessions, Forks int
	Timeout                time.Duration
}

// needs lists the mutants whose bug needs more than the default run.
var needs = map[string]Needs{
	// Lost updates need two processes on the store at once: nodes behind
	// an endpoint (on stdio one process runs at a time). With more
	// sessions more are created while another node holds an old list:
	// session-lost in 1 seed of 6 (2 nodes, 2 sessions: 1 of 25).
	"lost-writes": {Link: "ws", Nodes: 3, Sessions: 4},
	// The bug is in a fork, and shows when a prompt there carries a key the
	// parent bound before the fork: a Client now and then repeats the key of
	// its newest submission in another session, which with one session of
	// its own is the parent or a fork. With two sessions the expected lost
	// showed in 14 of 600 seeds (forks 1), with one in 24.
	"fork-copies-bindings": {Sessions: 1, Forks: 1},
	// Two attempts of one key pending at once: the Client resends while
	// the Agent still holds the prompt behind a running one, so its
	// timeout is shorter than a round of work (3 chunks 20 ms apart), and
	// one session keeps the Agent busy. With 6 cancels: bad-reply in 57 of
	// 200 seeds (at the defaults, 0 of 200).
	"cancel-spares-other-attempts": {Sessions: 1, Timeout: 30 * time.Millisecond},
	// A withdrawn prompt's user must send it again: a held prompt cancelled
	// (one busy session holds more), then one user in eight resends. With
	// 6 cancels: stray-cancel in 36 of 300 seeds (two sessions: 20).
	"withdrawn-key-stays-cancelled": {Sessions: 1},
}

// NeedsOf is what the named mutant's run must have (zero for most).
func NeedsOf(name string) Needs { return needs[name] }

// Catches is the anomaly kind the checkers must report for the named
// mutant ("" for a name that is not a mutant).
func Catches(name string) string {
	for _, m := range mutants {
		if m.name == name {
			return m.catch
		}
	}
	return ""
}

func init() {
	for _, m := range mutants {
		agent.Register(m.name, m.doc, m.build)
	}
}

// Names lists the mutants in the order of the table.
func Names() []string {
	out := make([]string, 0, len(mutants))
	for _, m := range mutants {
		out = append(out, m.name)
	}
	return out
}
