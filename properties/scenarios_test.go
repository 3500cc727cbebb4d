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
	end         string      // "" means quiet
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
	end := c.end
	if end == "" {
		end = "quiet"
	}
	b.finish(end, L1, Obs1)
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

// killedThenResent: the Agent inserts M1 for s1 and dies before writing the
// response (so no response ever names M1); the Client resends on the
// restarted Agent. Unkeyed, the resend inserts M2; keyed, it is answered M1
// from the binding. With other, an earlier submission s0 of the same text was
// delivered too and died unanswered (its outcome unknown), so M1 may be s0's.
func killedThenResent(keyed, other bool) *tb {
	b := newTB("all")
	var key any
	if keyed {
		key = K1
	}
	b.connect(L1)
	if other {
		b.submit("c1", "s0", text)
		b.prompt(L1, "s0", S1, text, nil)
	}
	b.submit("c1", "s1", text)
	b.prompt(L1, "s1", S1, text, key)
	b.insert(S1, "M1", text)
	b.choose("kill a1#1 before respond-prompt")
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	if other {
		b.outcome("c1", "s0", traces.OutcomeUnknown, "")
	}
	b.restart("a1#2")
	b.connect(L2)
	b.resume(L2, S1)
	id := b.prompt(L2, "s1", S1, text, key)
	replay := []msg{{id: "M1", text: text}}
	if keyed {
		b.answer(L2, id, "M1")
		b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	} else {
		b.insert(S1, "M2", text)
		b.answer(L2, id, "M2")
		b.userMsg(L2, S1, "M2", text)
		b.turn(L2, S1, "O2")
		b.outcome("c1", "s1", traces.OutcomeInserted, "M2")
		replay = append(replay, msg{id: "M2", text: text})
	}
	b.observe("a1#2", sess{S1, replay})
	b.finish("quiet", L2, Obs2)
	return b
}

// orderDecides is two submissions of one text. s1's first attempt is inserted
// (M1) and the Agent dies before naming it; s1's resend is answered M2. s3's
// first attempt is rejected (-32603, which a checker cannot take on trust)
// and its resend answered M3. The history reads M1, M2, M3. With decidable,
// s3's rejected attempt arrives after the Agent named M2, so M1 (inserted
// before M2) cannot be s3's: s1 was inserted twice. Otherwise it arrives
// before, and M1 may be either's.
func orderDecides(decidable bool) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	b.prompt(L1, "s1", S1, text, nil)
	b.insert(S1, "M1", text)
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	b.restart("a1#2")
	b.connect(L2)
	b.resume(L2, S1)
	s3 := func() {
		b.submit("c1", "s3", text)
		id := b.prompt(L2, "s3", S1, text, nil)
		b.fail(L2, id, acp.CodeInternalError)
	}
	if !decidable {
		s3()
	}
	id := b.prompt(L2, "s1", S1, text, nil)
	b.insert(S1, "M2", text)
	b.answer(L2, id, "M2")
	b.userMsg(L2, S1, "M2", text)
	b.turn(L2, S1, "O2")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M2")
	if decidable {
		s3()
	}
	id = b.prompt(L2, "s3", S1, text, nil)
	b.insert(S1, "M3", text)
	b.answer(L2, id, "M3")
	b.userMsg(L2, S1, "M3", text)
	b.turn(L2, S1, "O3")
	b.outcome("c1", "s3", traces.OutcomeInserted, "M3")
	b.observe("a1#2", sess{S1, []msg{{id: "M1", text: text}, {id: "M2", text: text}, {id: "M3", text: text}}})
	b.finish("quiet", L2, Obs2)
	return b
}

// threeWay: s1, s2 and s3 send one text; the Agent inserts two messages (M1,
// M2) and dies before naming either. s1's Client gives up silently; s2 and
// s3 resend and get N2 and N3. Some submission is surely in the transcript
// twice, but whether s1 is lost depends on whose requests inserted M1 and M2.
func threeWay() *tb {
	b := newTB("all")
	b.connect(L1)
	for _, s := range []string{"s2", "s3", "s1"} {
		b.submit("c1", s, "hi")
		b.prompt(L1, s, S1, "hi", nil)
	}
	b.insert(S1, "M1", "hi")
	b.insert(S1, "M2", "hi")
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	b.outcome("c1", "s1", traces.OutcomeAbandoned, "")
	b.restart("a1#2")
	b.connect(L2)
	for _, s := range []string{"s2", "s3"} {
		id := b.prompt(L2, s, S1, "hi", nil)
		n := "N" + s[1:]
		b.insert(S1, n, "hi")
		b.answer(L2, id, n)
		b.userMsg(L2, S1, n, "hi")
		b.outcome("c1", s, traces.OutcomeInserted, n)
	}
	b.observe("a1#2", sess{S1, []msg{{id: "M1", text: "hi"}, {id: "M2", text: "hi"}, {id: "N2", text: "hi"}, {id: "N3", text: "hi"}}})
	b.finish("quiet", L2, Obs2)
	return b
}

// L3 is a link of c1 to another node of the same Agent, serving the same
// sessions from shared storage (a remote transport): both links stay up.
const L3 = "c1>a2#1"

// heldCancel: the Agent holds a keyed prompt (it is not inserted yet) and
// the Client cancels it. how is the cancel: "cancel" (session/cancel),
// "close" (session/close) or "request" ($/cancel_request naming it). agent
// is what the Agent does: "withdraw" (answers -32800), "insert" (inserts it
// afterwards, answering M1), "wrong-code" (answers -32603), "silent" (never
// answers it), "hidden" (answers -32800, then inserts it anyway without a
// response), "raced" (sends M1 just before it reads the cancel, at the same
// time) or "raced-bad" (sends M1 just after it reads the cancel, at the same
// time).
func heldCancel(how, agent string) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.timer("c1")
	var frame []byte
	var closeID acp.ID
	switch how {
	case "cancel":
		frame = cancelFrame(S1)
	case "close":
		closeID, frame = b.closeFrame(L1, S1)
	case "request":
		frame = cancelRequestFrame(id)
	}
	closed := func() {
		if how == "close" {
			b.a2c(L1, acp.Result(closeID, nil))
		}
	}
	inserted := func() {
		b.userMsg(L1, S1, "M1", text)
		b.turn(L1, S1, "O1")
		closed()
		b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	}
	b.send(L1, traces.ClientToAgent, frame, "")
	replay := []msg{{id: "M1", text: text}}
	switch agent {
	case "withdraw", "wrong-code", "silent", "hidden":
		b.deliver(L1, traces.ClientToAgent, frame, "")
		switch agent {
		case "withdraw":
			b.fail(L1, id, acp.CodeRequestCancelled)
			b.outcome("c1", "s1", traces.OutcomeFailed, "")
		case "hidden":
			b.fail(L1, id, acp.CodeRequestCancelled)
			closed()
			b.outcome("c1", "s1", traces.OutcomeFailed, "")
			b.insert(S1, "M1", text)
			b.userMsg(L1, S1, "M1", text)
			b.turn(L1, S1, "O1")
			b.observe("a1#1", sess{S1, replay})
			b.finish("quiet", L1, Obs1)
			return b
		case "wrong-code":
			b.fail(L1, id, acp.CodeInternalError)
			b.outcome("c1", "s1", traces.OutcomeFailed, "")
		case "silent":
			b.outcome("c1", "s1", traces.OutcomeUnknown, "")
		}
		closed()
		replay = nil
	case "insert":
		b.deliver(L1, traces.ClientToAgent, frame, "")
		b.insert(S1, "M1", text)
		b.answer(L1, id, "M1")
		inserted()
	case "insert-after-read":
		// The Agent answers a request written after the cancel first: it
		// has read the cancel by then, wherever the frames were seen.
		b.deliver(L1, traces.ClientToAgent, frame, "")
		lid := b.nextID(L1)
		b.c2a(L1, acp.Request(lid, acp.MethodSessionList, acp.ListSessionsParams{}), "")
		b.a2c(L1, acp.Result(lid, acp.ListSessionsResult{Sessions: []acp.SessionInfo{}}))
		b.insert(S1, "M1", text)
		b.answer(L1, id, "M1")
		inserted()
	case "raced", "raced-bad":
		resp := msgResult(id, "M1")
		if agent == "raced" {
			b.send(L1, traces.AgentToClient, resp, "")
			b.sameT()
			b.deliver(L1, traces.ClientToAgent, frame, "")
		} else {
			b.deliver(L1, traces.ClientToAgent, frame, "")
			b.sameT()
			b.send(L1, traces.AgentToClient, resp, "")
		}
		b.deliver(L1, traces.AgentToClient, resp, "")
		inserted()
	}
	b.observe("a1#1", sess{S1, replay})
	b.finish("quiet", L1, Obs1)
	return b
}

// keyedCancel: c1's keyed prompt is held by a1#1 over L1; c1 also reaches
// a2#1 over L3, resumes the session there and retries with the same key,
// which is held too; then c1 sends $/cancel_request on L3 naming the retry,
// and a2#1 answers the retry -32800. original is what becomes of the first
// request: "withdraw" (-32800), "insert" (inserted anyway, answered M1),
// "silent" (never answered), "resend" (withdrawn, then c1 sends the key again
// on L3 and that new request is inserted: the key was never used). With
// other, the cancel names the id of L1's prompt but goes over L3, where that
// id is an answered session/resume: it cancels nothing and the unkeyed
// original is inserted.
func keyedCancel(original string, other bool) *tb {
	b := newTB("all")
	var key any = K1
	if other {
		key = nil
	}
	b.connect(L1)
	b.submit("c1", "s1", text)
	id1 := b.prompt(L1, "s1", S1, text, key)
	b.timer("c1")
	b.connect(L3)
	b.resume(L3, S1)
	named := id1
	if !other {
		id2 := b.prompt(L3, "s1", S1, text, key)
		named = id2
		b.c2a(L3, cancelRequestFrame(id2), "")
		b.fail(L3, id2, acp.CodeRequestCancelled)
	} else {
		b.c2a(L3, cancelRequestFrame(named), "")
	}
	replay := []msg{{id: "M1", text: text}}
	switch original {
	case "withdraw":
		b.fail(L1, id1, acp.CodeRequestCancelled)
		b.outcome("c1", "s1", traces.OutcomeFailed, "")
		replay = nil
	case "insert":
		b.insert(S1, "M1", text)
		b.answer(L1, id1, "M1")
		b.userMsg(L1, S1, "M1", text)
		b.turn(L1, S1, "O1")
		b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	case "silent":
		b.outcome("c1", "s1", traces.OutcomeUnknown, "")
		replay = nil
	case "resend":
		b.fail(L1, id1, acp.CodeRequestCancelled)
		id3 := b.prompt(L3, "s1", S1, text, key)
		b.insert(S1, "M1", text)
		b.answer(L3, id3, "M1")
		b.userMsg(L3, S1, "M1", text)
		b.turn(L3, S1, "O1")
		b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	}
	b.observe("a1#1", sess{S1, replay})
	b.finish("quiet", L1, L3, Obs1)
	return b
}

// killedThenCancelled: s1's first request is inserted (M1) and the Agent dies
// before answering; on the restarted Agent the keyed resend is held and the
// user cancels it (answered -32800, told failed). M1 may be the first
// request's, which nobody withdrew: a phantom, not a withdrawn insertion.
func killedThenCancelled() *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	b.disconnect(L1, "kill")
	b.kill("a1#1")
	b.restart("a1#2")
	b.connect(L2)
	b.resume(L2, S1)
	id := b.prompt(L2, "s1", S1, text, K1)
	b.c2a(L2, cancelFrame(S1), "")
	b.fail(L2, id, acp.CodeRequestCancelled)
	b.outcome("c1", "s1", traces.OutcomeFailed, "")
	b.observe("a1#2", sess{S1, []msg{{id: "M1", text: text}}})
	b.finish("quiet", L2, Obs2)
	return b
}
