package properties

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// v1TwoPrompts is a v1 run of two submissions in one session, each answered
// with its stop reason, then read back by session/load whose replay gives
// the user messages as chunks without messageId, replay(link, session)
// writing them.
func v1TwoPrompts(replay func(b *tb, link, session string)) *Report {
	b := newTB("all")
	const link, S = "c1>a1#1", "s-1"
	b.add(traces.Event{Kind: traces.KindConnect, Link: link, From: "c1", To: "a1#1"})
	b.c2a(link, acp.Request(acp.NumID(0), acp.MethodInitialize, acp.InitializeParamsV1{ProtocolVersion: 1}), "")
	b.a2c(link, acp.Result(acp.NumID(0), acp.InitializeResultV1{ProtocolVersion: 1, AgentCapabilities: acp.AgentCapabilitiesV1{LoadSession: true}}))
	b.c2a(link, acp.Request(acp.NumID(1), acp.MethodSessionNew, acp.NewSessionParamsV1{Cwd: "/w"}), "")
	b.a2c(link, acp.Result(acp.NumID(1), acp.NewSessionResult{SessionID: S}))
	for i, text := range []string{"fix it", "and test it"} {
		sub, id := []string{"u1", "u2"}[i], acp.NumID(int64(i+2))
		b.submit("c1", sub, text)
		b.c2a(link, acp.Request(id, acp.MethodSessionPrompt, acp.PromptParams{SessionID: S, Prompt: []acp.ContentBlock{acp.Text(text)}}), sub)
		b.a2c(link, acp.Result(id, acp.PromptResultV1{StopReason: acp.StopEndTurn}))
		b.outcome("c1", sub, traces.OutcomeInserted, "")
	}
	b.add(traces.Event{Kind: traces.KindHeal})
	const obs = traces.Observer + ">a1#2"
	b.add(traces.Event{Kind: traces.KindConnect, Link: obs, From: traces.Observer, To: "a1#2"})
	b.c2a(obs, acp.Request(acp.NumID(1), acp.MethodInitialize, acp.InitializeParamsV1{ProtocolVersion: 1}), "")
	b.a2c(obs, acp.Result(acp.NumID(1), acp.InitializeResultV1{ProtocolVersion: 1, AgentCapabilities: acp.AgentCapabilitiesV1{LoadSession: true}}))
	b.c2a(obs, acp.Request(acp.NumID(2), acp.MethodSessionLoad, acp.LoadSessionParams{SessionID: S, Cwd: "/w"}), "")
	replay(b, obs, S)
	b.a2c(obs, acp.Result(acp.NumID(2), struct{}{}))
	b.finish("quiet", link, obs)
	return b.check()
}

func userChunk(b *tb, link, session, text string) {
	b.a2c(link, updFrame(session, acp.ChunkUpdate(acp.UpdateUserMessageChunk, "", text)))
}

// Two user messages replayed back to back with no messageId (a turn ended
// before any reply) read as one run of chunks; the checker takes it as the
// two texts it is made of, so neither is lost or unattributable.
func TestV1UserChunksBackToBackAreTheTextsTheyAreMadeOf(t *testing.T) {
	rep := v1TwoPrompts(func(b *tb, link, S string) {
		userChunk(b, link, S, "fix it")
		userChunk(b, link, S, "and test it")
	})
	if rep.Protocol != 1 || len(rep.Anomalies) != 0 {
		t.Fatalf("protocol %d, anomalies %v; want v1 and none", rep.Protocol, rep.Anomalies)
	}
	// A run of chunks that no split into submitted texts explains stays
	// one message, which nothing owns.
	rep = v1TwoPrompts(func(b *tb, link, S string) {
		userChunk(b, link, S, "fix it")
		userChunk(b, link, S, "and test it")
		userChunk(b, link, S, "!")
	})
	if len(rep.Anomalies) == 0 {
		t.Fatalf("an unexplained run of chunks passed")
	}
}
