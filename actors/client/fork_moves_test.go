package client_test

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
)

// A user forks a conversation that has an exchange to branch from: a fork
// asked for while the session's only prompt is pending waits for its
// answer, and the user's next submission to the session goes on in the
// fork.
func TestForkWaitsForAnAnswerAndTheNextSubmissionGoesToIt(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.ready()
	first := onlyPrompt(t, h.submit("a", "one", 0))
	if o := h.take(h.c.Fork(0)); len(o.sends) != 0 {
		t.Fatalf("Fork with the session's only prompt pending sent %v, want nothing yet", o.methods())
	}
	o := h.receive(acp.Result(first.msg.ID, acp.PromptResult{MessageID: "m-a"}))
	if len(o.sends) != 1 || o.sends[0].msg.Method != acp.MethodSessionFork {
		t.Fatalf("the answer to the pending prompt sent %v, want the waiting session/fork", o.methods())
	}
	h.receive(acp.Result(o.sends[0].msg.ID, acp.NewSessionResult{SessionID: "F1"}))

	if sess, _, _, _ := promptOf(t, onlyPrompt(t, h.submit("b", "two", 0))); sess != "F1" {
		t.Fatalf("the next submission to the forked session went to %s, want the fork F1", sess)
	}
	if sess, _, _, _ := promptOf(t, onlyPrompt(t, h.submit("c", "three", 0))); sess == "F1" {
		t.Fatalf("the submission after it went to the fork too; only the next one goes on there")
	}
}

// A session with nothing pending and nothing answered is forked at once.
func TestForkOfAnIdleSessionIsSentAtOnce(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.ready()
	if o := h.take(h.c.Fork(0)); len(o.sends) != 1 || o.sends[0].msg.Method != acp.MethodSessionFork {
		t.Fatalf("Fork of an idle session sent %v, want session/fork", o.methods())
	}
}
