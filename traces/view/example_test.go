package view_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/view"
)

// A Client without a key resends a prompt after its Agent died without
// answering; the first attempt had been inserted, so the final transcript
// holds it twice. Render writes the page and says what it shows.
func ExampleRender() {
	log := &traces.Log{Header: traces.Header{Format: traces.FormatVersion, Policy: "naive", Contract: traces.Contract{Retention: "all"}}}
	frame := func(kind, link, from, to, dir, f, sub string) {
		log.Append(traces.Event{Kind: kind, Link: link, From: from, To: to, Dir: dir, Frame: f, Sub: sub})
	}
	prompt := `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"fix the tests"}]}}`
	userMsg := func(id string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S1","update":{"sessionUpdate":"user_message","messageId":"` + id + `","content":[{"type":"text","text":"fix the tests"}]}}}`
	}
	log.Append(traces.Event{Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: "fix the tests"})
	log.Append(traces.Event{Kind: traces.KindConnect, Link: "c1:a1#1", From: "c1", To: "a1#1"})
	frame(traces.KindSend, "c1:a1#1", "c1", "a1#1", traces.ClientToAgent, prompt, "s1")
	frame(traces.KindDeliver, "c1:a1#1", "c1", "a1#1", traces.ClientToAgent, prompt, "s1")
	log.Append(traces.Event{Kind: traces.KindKill, From: "a1#1", Note: "killed before respond-prompt"})
	log.Append(traces.Event{Kind: traces.KindDisconnect, Link: "c1:a1#1", Note: "kill"})
	log.Append(traces.Event{Kind: traces.KindRestart, From: "a1#2"})
	log.Append(traces.Event{Kind: traces.KindConnect, Link: "c1:a1#2", From: "c1", To: "a1#2"})
	frame(traces.KindSend, "c1:a1#2", "c1", "a1#2", traces.ClientToAgent, prompt, "s1")
	frame(traces.KindDeliver, "c1:a1#2", "c1", "a1#2", traces.ClientToAgent, prompt, "s1")
	answer := `{"jsonrpc":"2.0","id":1,"result":{"messageId":"M2"}}`
	frame(traces.KindSend, "c1:a1#2", "a1#2", "c1", traces.AgentToClient, answer, "")
	frame(traces.KindDeliver, "c1:a1#2", "a1#2", "c1", traces.AgentToClient, answer, "")
	log.Append(traces.Event{Kind: traces.KindOutcome, Client: "c1", Sub: "s1", Outcome: traces.OutcomeInserted, MessageID: "M2"})
	log.Append(traces.Event{Kind: traces.KindHeal})
	log.Append(traces.Event{Kind: traces.KindConnect, Link: "observer:a1#2", From: traces.Observer, To: "a1#2"})
	resume := `{"jsonrpc":"2.0","id":1,"method":"session/resume","params":{"sessionId":"S1","cwd":"/","replayFrom":{"type":"start"}}}`
	frame(traces.KindSend, "observer:a1#2", traces.Observer, "a1#2", traces.ClientToAgent, resume, "")
	frame(traces.KindDeliver, "observer:a1#2", traces.Observer, "a1#2", traces.ClientToAgent, resume, "")
	for _, f := range []string{userMsg("M1"), userMsg("M2"), `{"jsonrpc":"2.0","id":1,"result":{}}`} {
		frame(traces.KindSend, "observer:a1#2", "a1#2", traces.Observer, traces.AgentToClient, f, "")
		frame(traces.KindDeliver, "observer:a1#2", "a1#2", traces.Observer, traces.AgentToClient, f, "")
	}
	log.Append(traces.Event{Kind: traces.KindEnd, Note: "quiet"})

	var page bytes.Buffer
	sum, err := view.Render(&page, log, view.Options{Name: "dup.ndjson", MaxEvents: 16})
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Verdict)
	fmt.Println(sum.Window)
	fmt.Println(strings.HasPrefix(page.String(), "<!DOCTYPE html>"), page.Len() > 10000)
	// Output:
	// FAIL: 1 duplicate
	// 16 of 24 events shown: the first anomaly's (duplicate s1) 12 cited events and the 4 nearest them; 8 cut. acpsim view --all or --max-events N shows more.
	// true true
}
