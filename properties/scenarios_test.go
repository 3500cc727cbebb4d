package properties

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Ids look like the simulator's (UUIDs) where length matters for shortening
// and key search; message ids stay short so explanations read easily.
const (
	S1   = "9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001"
	K1   = "1f0c9e2a-7b7d-4c1e-9d53-2f5d8c7a4b10"
	K2   = "77b0d3e4-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
	text = "fix the tests"
	L1   = "c1>a1#1"
	L2   = "c1>a1#2"
	Obs1 = traces.Observer + ">a1#1"
	Obs2 = traces.Observer + ">a1#2"
)

// defaultText names text where a local variable shadows it.
const defaultText = text

// single is one submission on one link; its zero value is the healthy run
// (keyed, inserted once, answered, read back), and each field breaks one thing.
type single struct {
	retention   string   // the contract's retention; "" means "all"
	liveOnly    []string // the contract's live-only prefixes
	text        string   // "" means text
	key         any      // nil means K1; noKey omits it
	errCode     int      // the Agent answers this error and inserts nothing
	answers     int      // success responses to the one request (default 1)
	outcome     string   // "" means inserted; "-" means none
	replay      []msg    // nil means [M1]; empty means nothing
	emptyReplay bool
	end         string      // "" means quiet, "-" no end event
	early       func(b *tb) // before the submission, after the link is up
	extra       func(b *tb)
}

var noKey = struct{}{}

func (c single) build() *tb {
	ret := c.retention
	if ret == "" {
		ret = "all"
	}
	b := newTB(ret)
	b.h.Contract.LiveOnly = c.liveOnly
	text := c.text
	if text == "" {
		text = defaultText
	}
	b.connect(L1)
	if c.early != nil {
		c.early(b)
	}
	b.submit("c1", "s1", text)
	var key any = K1
	switch {
	case c.key == noKey:
		key = nil
	case c.key != nil:
		key = c.key
	}
	id := b.prompt(L1, "s1", S1, text, key)
	outcome, outMsg := traces.OutcomeInserted, "M1"
	if c.errCode != 0 {
		b.fail(L1, id, c.errCode)
		outcome, outMsg = traces.OutcomeFailed, ""
	} else {
		b.insert(S1, "M1", text)
		for range max(c.answers, 1) {
			b.answer(L1, id, "M1")
		}
		b.userMsg(L1, S1, "M1", text)
		b.turn(L1, S1, "O1")
	}
	if c.extra != nil {
		c.extra(b)
	}
	switch c.outcome {
	case "":
	case "-":
		outcome = ""
	default:
		outcome = c.outcome
		if outcome != traces.OutcomeInserted {
			outMsg = ""
		}
	}
	if outcome != "" {
		b.outcome("c1", "s1", outcome, outMsg)
	}
	b.timer("c1")
	replay := c.replay
	if replay == nil && !c.emptyReplay {
		replay = []msg{{id: "M1", text: text}}
	}
	b.observe("a1#1", sess{S1, replay})
	switch c.end {
	case "-": // a trace cut short: no end event
		return b
	case "":
		b.finish("quiet", L1, Obs1)
	default:
		b.finish(c.end, L1, Obs1)
	}
	return b
}

// crashRetry: the Agent inserts M1 and is killed before its response and
// update are read; the Client reconnects to the restarted Agent, resumes and
// resends. mode says how the Agent answers the resend: "rebind" (from the
// binding, M1), "reinsert" (a new message M2), "fail" (-32603).
func crashRetry(keyed bool, mode string) *tb {
	b := newTB("all")
	var key any
	if keyed {
		key = K1
	}
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, key)
	b.insert(S1, "M1", text)
	b.choose("kill a1#1 after insert")
	b.send(L1, traces.AgentToClient, msgResult(id, "M1"), "")
	b.send(L1, traces.AgentToClient, updFrame(S1, acp.MessageUpdate(acp.UpdateUserMessage, "M1", text)), "")
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	b.restart("a1#2")
	b.timer("c1")
	b.connect(L2)
	b.resume(L2, S1)
	id2 := b.prompt(L2, "s1", S1, text, key)
	replay := []msg{{id: "M1", text: text}}
	switch mode {
	case "rebind":
		b.answer(L2, id2, "M1")
		b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	case "reinsert":
		b.insert(S1, "M2", text)
		b.answer(L2, id2, "M2")
		b.userMsg(L2, S1, "M2", text)
		b.turn(L2, S1, "O2")
		b.outcome("c1", "s1", traces.OutcomeInserted, "M2")
		replay = append(replay, msg{id: "M2", text: text})
	case "fail":
		b.fail(L2, id2, acp.CodeInternalError)
		b.outcome("c1", "s1", traces.OutcomeFailed, "")
	}
	b.observe("a1#2", sess{S1, replay})
	b.finish("quiet", L2, Obs2)
	return b
}

// sharedID: s1 and s2 are the same text sent twice on purpose, with their own
// keys. With bug the Agent answers s2 with s1's messageId (a binding derived
// from the content) and inserts nothing.
func sharedID(bug bool) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", "hi")
	id := b.prompt(L1, "s1", S1, "hi", K1)
	b.insert(S1, "M1", "hi")
	b.answer(L1, id, "M1")
	b.userMsg(L1, S1, "M1", "hi")
	b.turn(L1, S1, "O1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.submit("c1", "s2", "hi")
	id2 := b.prompt(L1, "s2", S1, "hi", K2)
	replay := []msg{{id: "M1", text: "hi"}}
	if bug {
		b.answer(L1, id2, "M1")
		b.outcome("c1", "s2", traces.OutcomeInserted, "M1")
	} else {
		b.insert(S1, "M2", "hi")
		b.answer(L1, id2, "M2")
		b.userMsg(L1, S1, "M2", "hi")
		b.turn(L1, S1, "O2")
		b.outcome("c1", "s2", traces.OutcomeInserted, "M2")
		replay = append(replay, msg{id: "M2", text: "hi"})
	}
	b.observe("a1#1", sess{S1, replay})
	b.finish("quiet", L1, Obs1)
	return b
}

// retryOnTimeout: the Agent inserts M1 and writes its update, running and
// response; before they arrive the Client times out and resends on the same
// link; the Agent answers the resend from the binding and the turn ends idle.
// mode says what follows: "none", "rework" (running again with nothing new),
// "snapshot" (a resume whose snapshot says running), "after-resume" (running
// after a resume), "new-turn" (a new submission starts a new turn).
func retryOnTimeout(mode string) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	inFlight := [][]byte{
		updFrame(S1, acp.MessageUpdate(acp.UpdateUserMessage, "M1", text)),
		updFrame(S1, acp.StateUpdate(acp.StateRunning, "")),
		msgResult(id, "M1"),
	}
	for _, f := range inFlight {
		b.send(L1, traces.AgentToClient, f, "")
	}
	b.timer("c1")
	id2 := b.prompt(L1, "s1", S1, text, K1)
	inFlight = append(inFlight, msgResult(id2, "M1"))
	b.send(L1, traces.AgentToClient, inFlight[3], "")
	for _, f := range inFlight {
		b.deliver(L1, traces.AgentToClient, f, "")
	}
	b.a2c(L1, updFrame(S1, acp.MessageUpdate(acp.UpdateAgentMessage, "O1", "done")))
	b.state(L1, S1, acp.StateIdle)
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	replay := []msg{{id: "M1", text: text}}
	switch mode {
	case "rework":
		b.turn(L1, S1, "O2")
	case "snapshot", "after-resume":
		rid := b.nextID(L1)
		b.c2a(L1, acp.Request(rid, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: S1, Cwd: "/w"}), "")
		if mode == "snapshot" {
			b.state(L1, S1, acp.StateRunning)
			b.a2c(L1, acp.Result(rid, nil))
			b.state(L1, S1, acp.StateIdle)
		} else {
			b.state(L1, S1, acp.StateIdle)
			b.a2c(L1, acp.Result(rid, nil))
			b.turn(L1, S1, "O2")
		}
	case "new-turn":
		b.submit("c1", "s2", "now the docs")
		id3 := b.prompt(L1, "s2", S1, "now the docs", K2)
		b.insert(S1, "M2", "now the docs")
		b.answer(L1, id3, "M2")
		b.userMsg(L1, S1, "M2", "now the docs")
		b.turn(L1, S1, "O2")
		b.outcome("c1", "s2", traces.OutcomeInserted, "M2")
		replay = append(replay, msg{id: "M2", text: "now the docs"})
	}
	b.observe("a1#1", sess{S1, replay})
	b.finish("quiet", L1, Obs1)
	return b
}

// agentSays adds an agent_message whose frame is given raw, so tests can hide
// keys behind JSON escapes.
func agentSays(raw string) func(b *tb) {
	return func(b *tb) {
		b.a2c(L1, []byte(raw))
	}
}

func agentMessage(textJSON string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message","messageId":"O9","content":[{"type":"text","text":%s}]}}}`, S1, textJSON)
}

// noReply: after a healthy submission the Client sends session/list and the
// Agent never answers it. linkEnd is how the link ends: "close" (orderly, at
// the end), "cut", or "" (never).
func noReply(linkEnd, end string) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	b.answer(L1, id, "M1")
	b.userMsg(L1, S1, "M1", text)
	b.turn(L1, S1, "O1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.c2a(L1, acp.Request(b.nextID(L1), acp.MethodSessionList, acp.ListSessionsParams{}), "")
	if linkEnd == "cut" {
		b.choose("cut c1>a1#1")
		b.disconnect(L1, "cut")
	}
	b.observe("a1#1", sess{S1, []msg{{id: "M1", text: text}}})
	links := []string{Obs1}
	if linkEnd == "close" {
		links = append([]string{L1}, links...)
	}
	b.finish(end, links...)
	return b
}

// abandonedTrace: a Client without resends loses its link and tells the user
// nothing. delivered says whether the prompt reached the Agent (which then
// inserted it and answered into the cut link).
func abandonedTrace(delivered bool) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.nextID(L1)
	f := promptFrame(id, S1, text, nil)
	b.send(L1, traces.ClientToAgent, f, "s1")
	var replay []msg
	if delivered {
		b.deliver(L1, traces.ClientToAgent, f, "s1")
		b.insert(S1, "M1", text)
		b.send(L1, traces.AgentToClient, msgResult(id, "M1"), "")
		replay = []msg{{id: "M1", text: text}}
	}
	b.choose("cut c1>a1#1")
	b.disconnect(L1, "cut")
	b.outcome("c1", "s1", traces.OutcomeAbandoned, "")
	b.observe("a1#1", sess{S1, replay})
	b.finish("quiet", Obs1)
	return b
}

// killedBeforeAnswer: unkeyed submissions (texts given) are each delivered,
// then the Agent inserts the messages named in inserted and dies before
// writing anything. Every submission ends with outcome. The observer reads
// the restarted Agent; chunks replays messages as chunks.
func killedBeforeAnswer(retention, outcome string, texts, inserted []string, chunks bool) *tb {
	b := newTB(retention)
	b.connect(L1)
	for i, t := range texts {
		sub := fmt.Sprintf("s%d", i+1)
		b.submit("c1", sub, t)
		b.prompt(L1, sub, S1, t, nil)
	}
	var replay []msg
	for i, t := range inserted {
		id := fmt.Sprintf("M%d", i+1)
		b.insert(S1, id, t)
		m := msg{id: id, text: t}
		if chunks {
			half := len(t) / 2
			m.chunks = []string{t[:half], t[half:]}
		}
		replay = append(replay, m)
	}
	b.choose("kill a1#1 after insert")
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	for i := range texts {
		b.outcome("c1", fmt.Sprintf("s%d", i+1), outcome, "")
	}
	b.restart("a1#2")
	b.observe("a1#2", sess{S1, replay})
	b.finish("quiet", Obs2)
	return b
}

// naiveTwiceByText: an unkeyed Client resends after a crash; both attempts
// are inserted and the Agent dies before answering either.
func naiveTwiceByText() *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	b.prompt(L1, "s1", S1, text, nil)
	b.insert(S1, "M1", text)
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	b.restart("a1#2")
	b.connect(L2)
	b.prompt(L2, "s1", S1, text, nil)
	b.insert(S1, "M2", text)
	b.disconnect(L2, "kill")
	b.kill("a1#2")
	b.outcome("c1", "s1", traces.OutcomeUnknown, "")
	b.restart("a1#3")
	b.observe("a1#3", sess{S1, []msg{{id: "M1", text: text}, {id: "M2", text: text}}})
	b.finish("quiet", traces.Observer+">a1#3")
	return b
}

// heldRetry: the Agent is busy and holds the prompt; the Client's keyed
// resend reaches the same process while the first is unanswered; both are
// answered with M1 when it is inserted.
func heldRetry() *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.timer("c1")
	id2 := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	// Responses before the user message: not a retry from a binding.
	b.answer(L1, id, "M1")
	b.answer(L1, id2, "M1")
	b.userMsg(L1, S1, "M1", text)
	b.turn(L1, S1, "O1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.observe("a1#1", sess{S1, []msg{{id: "M1", text: text}}})
	b.finish("quiet", L1, Obs1)
	return b
}

// strayNullError: the Agent sends an error with a null id; with garbage the
// Client had sent an unparsable line first, which that error answers.
func strayNullError(garbage bool) func(b *tb) {
	return func(b *tb) {
		if garbage {
			b.c2a(L1, []byte(`{"jsonrpc":"2.0","method":`), "")
		}
		b.a2c(L1, acp.ErrorResponse("", acp.Errorf(acp.CodeParseError, "parse error")))
	}
}

func keyOf(runes int) json.RawMessage { return acp.KeyJSON(strings.Repeat("é", runes)) }
