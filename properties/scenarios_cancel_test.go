package properties

// The scenarios of resends after a crash, attribution by order, and held
// and cancelled prompts; scenarios_test.go has the builder and the rest.

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

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
	case "insert-before-read":
		// The Agent inserts the prompt, then shows it has read the
		// cancel: seen at a proxy, the answer may precede its reading.
		b.deliver(L1, traces.ClientToAgent, frame, "")
		b.insert(S1, "M1", text)
		b.answer(L1, id, "M1")
		inserted()
		lid := b.nextID(L1)
		b.c2a(L1, acp.Request(lid, acp.MethodSessionList, acp.ListSessionsParams{}), "")
		b.a2c(L1, acp.Result(lid, acp.ListSessionsResult{Sessions: []acp.SessionInfo{}}))
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

// retryOfInsertedCancelled: s1's first request is inserted and answered M1;
// a retry of it (same key) is still pending when a cancel is delivered
// (session/cancel, or $/cancel_request naming the retry). The prompt was
// inserted before the cancel, so the cancel withdraws nothing (the RFD: it
// "withdraws a prompt that is not inserted yet") and the retry's M1 is right.
func retryOfInsertedCancelled(how string) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id1 := b.prompt(L1, "s1", S1, text, K1)
	b.insert(S1, "M1", text)
	b.answer(L1, id1, "M1")
	b.userMsg(L1, S1, "M1", text)
	id2 := b.prompt(L1, "s1", S1, text, K1)
	frame := cancelFrame(S1)
	if how == "request" {
		frame = cancelRequestFrame(id2)
	}
	b.c2a(L1, frame, "")
	b.answer(L1, id2, "M1")
	b.turn(L1, S1, "O1")
	b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
	b.observe("a1#1", sess{S1, []msg{{id: "M1", text: text}}})
	b.finish("quiet", L1, Obs1)
	return b
}
