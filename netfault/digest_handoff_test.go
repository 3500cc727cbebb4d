package netfault_test

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
)

// A frame's digest reaches its reader with the frame, on a pipe both ways
// and on the HTTP link's POSTs and SSE events: the receivers read messages
// from it (acp.Digest.Message), and a link that dropped it would leave every
// verdict as it is and only the speed behind.
func TestLinksHandEachFrameItsSendersDigest(t *testing.T) {
	prompt, pd := acp.RequestDigest(acp.NumID(3), acp.MethodSessionPrompt, acp.PromptParams{SessionID: "s1", Prompt: []acp.ContentBlock{acp.Text("hi")}})
	answer, ad := acp.ResultDigest(acp.NumID(3), acp.PromptResult{MessageID: "m1"})
	if _, ok := pd.Message(prompt); !ok {
		t.Fatal("no digest made for the prompt")
	}
	if _, ok := ad.Message(answer); !ok {
		t.Fatal("no digest made for the answer")
	}

	t.Run("pipe", func(t *testing.T) {
		r := newRig()
		var toAgent, toClient *acp.Digest
		r.pipe.ToAgent = func(_ []byte, d *acp.Digest) { toAgent = d }
		r.pipe.ToClient = func(_ []byte, d *acp.Digest) { toClient = d }
		r.pipe.SendToAgentDigest(prompt, "sub-1", &pd)
		r.pipe.SendToClientDigest(answer, &ad)
		r.loop.RunUntil(r.loop.Now()+100*ms, nil)
		if toAgent != &pd || toClient != &ad {
			t.Fatalf("the Agent got digest %p (sent %p), the Client %p (sent %p)", toAgent, &pd, toClient, &ad)
		}
	})

	t.Run("http", func(t *testing.T) {
		r := newHRig()
		r.connect(t)
		r.link.OpenStream("s1")
		r.run()
		var toAgent, toClient *acp.Digest
		r.link.ToAgent = func(_ string, _ []byte, d *acp.Digest) { toAgent = d }
		r.link.OnEvent = func(_ []byte, d *acp.Digest) { toClient = d }
		r.link.PostDigest(prompt, "sub-1", &pd)
		r.loop.RunUntil(r.loop.Now()+ms, nil)
		r.link.FromAgentDigest(answer, "s1", &ad)
		r.run()
		if toAgent != &pd || toClient != &ad {
			t.Fatalf("the Agent got digest %p (sent %p), the Client %p (sent %p)", toAgent, &pd, toClient, &ad)
		}
	})
}
