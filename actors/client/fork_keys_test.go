package client_test

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
)

// In a fork, a submission sometimes takes a key its parent had bound before
// the fork (the RFD: such a key "names an unrelated submission" there):
// only keys bound then, each at most once in the fork, also after a Client
// restart; otherwise the key is fresh.
func TestForkSubmissionsReuseKeysTheParentBound(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.ready()
	bound := onlyPrompt(t, h.submit("a", "one", 0))
	_, _, boundKey, _ := promptOf(t, bound)
	h.receive(acp.Result(bound.msg.ID, acp.PromptResult{MessageID: "m-a"}))
	_, _, pendingKey, _ := promptOf(t, onlyPrompt(t, h.submit("b", "two", 0))) // not answered: not bound at the fork

	o := h.take(h.c.Fork(0))
	if len(o.sends) != 1 || o.sends[0].msg.Method != acp.MethodSessionFork {
		t.Fatalf("Fork sent %v", o.methods())
	}
	h.receive(acp.Result(o.sends[0].msg.ID, acp.NewSessionResult{SessionID: "F1"}))

	keyIn := func(h *harness, sub string) string {
		t.Helper()
		sess, _, key, _ := promptOf(t, onlyPrompt(t, h.submit(sub, "text of "+sub, 1)))
		if sess != "F1" {
			t.Fatalf("%s went to session %s, want the fork F1", sub, sess)
		}
		return key
	}
	if k := keyIn(h, "c"); k == boundKey || k == pendingKey {
		t.Fatalf("the ordinary draw reused the parent's key %q", k)
	}

	// A restarted Client still knows what the fork's parent had bound.
	h2, _ := h.restart(harnessConfig(h.pol, 1), nil)
	h2.c.Start()
	o = h2.handshake("conn-2")
	for _, s := range o.sends {
		if s.msg.Method != acp.MethodSessionResume {
			t.Fatalf("after a restart the Client sent %s, want session/resume", s.msg.Method)
		}
	}
	for _, s := range o.sends {
		h2.receive(acp.Result(s.msg.ID, nil))
	}
	h2.draws = map[string]int{"fork-key": 0, "fork-key-which": 0}
	if k := keyIn(h2, "d"); k != boundKey {
		t.Fatalf("fork submission's key %q, want the parent's bound key %q", k, boundKey)
	}
	if k := keyIn(h2, "e"); k == boundKey || k == pendingKey {
		t.Fatalf("second fork submission's key %q: a key is used once per session", k)
	}
}
