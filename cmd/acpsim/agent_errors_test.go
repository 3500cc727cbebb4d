package main

import (
	stdjson "encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault/realmode/tap"
)

// refusals drives the Agent of --prompt-errors rate and seed through n
// keyed submissions, each sent until it is inserted, then once more: the
// error codes of the refused attempts, in order. It fails the test if a
// retry of a recorded key is refused or answered with another messageId.
func refusals(t *testing.T, rate float64, seed uint64, n int) []int {
	t.Helper()
	k := agent.DefaultKnobs()
	k.Busy = agent.BusyBreakpoint // every accepted prompt is answered at once
	a := agent.New(k, store.NewDisk(), promptErrorsEnv(rate, seed))
	id := 0
	ask := func(method string, params any) acp.Message {
		id++
		for _, o := range a.Receive("c", acp.Request(acp.NumID(int64(id)), method, params)) {
			var m acp.Message
			if o.Kind == agent.OutSend && stdjson.Unmarshal(o.Frame, &m) == nil && m.Kind() == acp.KindResponse && m.ID == acp.NumID(int64(id)) {
				return m
			}
		}
		t.Fatalf("%s (id %d) was not answered", method, id)
		return acp.Message{}
	}
	a.Connect("c")
	ask(acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion})
	var s struct{ SessionID string }
	_ = stdjson.Unmarshal(ask(acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/w"}).Result, &s)
	var codes []int
	for i := range n {
		p := acp.PromptParams{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.Text(fmt.Sprint("text ", i))}, IdempotencyKey: acp.KeyJSON(fmt.Sprint("K", i))}
		var msgID string
		for range 50 {
			m := ask(acp.MethodSessionPrompt, p)
			if m.Error == nil {
				var r acp.PromptResult
				_ = stdjson.Unmarshal(m.Result, &r)
				msgID = r.MessageID
				break
			}
			codes = append(codes, m.Error.Code)
		}
		if msgID == "" {
			t.Fatalf("K%d: refused 50 times in a row", i)
		}
		m := ask(acp.MethodSessionPrompt, p)
		var r acp.PromptResult
		if m.Error != nil || stdjson.Unmarshal(m.Result, &r) != nil || r.MessageID != msgID {
			t.Fatalf("K%d: the retry of a recorded key was answered %s %s, want its messageId %s", i, m.Result, m.Error, msgID)
		}
	}
	return codes
}

// acpsim agent --prompt-errors refuses a share of new prompts with errors the
// v2 schema allows, leaves the key unused (the same key is inserted later)
// and never refuses a retry of a key it recorded; the seed fixes which.
func TestAgentPromptErrorsRefuseNewPromptsOnly(t *testing.T) {
	t.Setenv(tap.ProcessEnv, "2")
	codes := refusals(t, 0.3, 7, 60)
	if len(codes) < 8 || len(codes) > 40 {
		t.Fatalf("%d refusals of 60 submissions at 0.3: %v", len(codes), codes)
	}
	var kinds []int
	for _, c := range codes {
		if !slices.Contains([]int{acp.CodeInternalError, 429}, c) {
			t.Fatalf("refused with %d, not one of -32603, 429", c)
		}
		if !slices.Contains(kinds, c) {
			kinds = append(kinds, c)
		}
	}
	if len(kinds) < 2 {
		t.Errorf("only the codes %v in %d refusals", kinds, len(codes))
	}
	if again := refusals(t, 0.3, 7, 60); !slices.Equal(again, codes) {
		t.Errorf("the same seed refused %v, then %v", codes, again)
	}
	if other := refusals(t, 0.3, 8, 60); slices.Equal(other, codes) {
		t.Errorf("seeds 7 and 8 refused alike: %v", codes)
	}
	t.Setenv(tap.ProcessEnv, "3")
	if other := refusals(t, 0.3, 7, 60); slices.Equal(other, codes) {
		t.Errorf("Agent processes 2 and 3 of a seed refused alike: %v", codes)
	}
	if none := refusals(t, 0, 7, 20); len(none) > 0 {
		t.Errorf("--prompt-errors 0 refused %v", none)
	}
}
