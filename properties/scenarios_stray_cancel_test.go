package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// strayCancel: c1 has two keyed prompts held in S1 (s1 then s2). how is
// what happens: "none" (no cancel: the Agent answers s1 -32800 anyway, as
// the schema lets it "because of resource constraints": no anomaly),
// "misdirected" (c1's $/cancel_request names s2, the Agent withdraws s1
// and inserts s2, as behind a hop that renumbers ids and forwards the
// cancel unmapped) or "named" (the same cancel withdraws s2, and s1 is
// inserted: the healthy run); "misdirected-v1" is "misdirected" in a
// trace whose second Client spoke ACP v1.
func strayCancel(how string) *tb {
	const text2 = "rename the parser"
	b := newTB("all")
	b.connect(L1)
	if how == "misdirected-v1" {
		how = "misdirected"
		const link = "c2>a1#1"
		b.add(traces.Event{Kind: traces.KindConnect, Link: link, From: "c2", To: "a1#1"})
		b.c2a(link, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`), "")
	}
	b.submit("c1", "s1", text)
	id1 := b.prompt(L1, "s1", S1, text, K1)
	b.submit("c1", "s2", text2)
	id2 := b.prompt(L1, "s2", S1, text2, K2)
	b.timer("c1")
	var replay []msg
	switch how {
	case "none":
		b.fail(L1, id1, acp.CodeRequestCancelled)
		b.outcome("c1", "s1", traces.OutcomeFailed, "")
		b.insert(S1, "M2", text2)
		b.answer(L1, id2, "M2")
		b.userMsg(L1, S1, "M2", text2)
		b.turn(L1, S1, "O2")
		b.outcome("c1", "s2", traces.OutcomeInserted, "M2")
		replay = []msg{{id: "M2", text: text2}}
	case "misdirected", "named":
		withdrawn, kept, keptText, keptSub, gone := id2, id1, text, "s1", "s2"
		if how == "misdirected" {
			withdrawn, kept, keptText, keptSub, gone = id1, id2, text2, "s2", "s1"
		}
		b.c2a(L1, cancelRequestFrame(id2), "")
		b.fail(L1, withdrawn, acp.CodeRequestCancelled)
		b.outcome("c1", gone, traces.OutcomeFailed, "")
		b.insert(S1, "M1", keptText)
		b.answer(L1, kept, "M1")
		b.userMsg(L1, S1, "M1", keptText)
		b.turn(L1, S1, "O1")
		b.outcome("c1", keptSub, traces.OutcomeInserted, "M1")
		replay = []msg{{id: "M1", text: keptText}}
	}
	b.observe("a1#1", sess{S1, replay})
	b.finish("quiet", L1, Obs1)
	return b
}

// withdrawnAgain: c1's keyed prompt s1 is held and cancelled by a
// $/cancel_request naming it (-32800, told failed, as the RFD has it: the
// key stays unused); the user sends it again with the same key. inserted:
// the Agent inserts it; else it answers -32800 again, though nobody
// cancelled the new attempt.
func withdrawnAgain(inserted bool) *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id := b.prompt(L1, "s1", S1, text, K1)
	b.timer("c1")
	b.c2a(L1, cancelRequestFrame(id), "")
	b.fail(L1, id, acp.CodeRequestCancelled)
	id2 := b.prompt(L1, "s1", S1, text, K1)
	var replay []msg
	if inserted {
		b.insert(S1, "M1", text)
		b.answer(L1, id2, "M1")
		b.userMsg(L1, S1, "M1", text)
		b.turn(L1, S1, "O1")
		b.outcome("c1", "s1", traces.OutcomeInserted, "M1")
		replay = []msg{{id: "M1", text: text}}
	} else {
		b.fail(L1, id2, acp.CodeRequestCancelled)
		b.outcome("c1", "s1", traces.OutcomeFailed, "")
	}
	b.observe("a1#1", sess{S1, replay})
	b.finish("quiet", L1, Obs1)
	return b
}

// strayRetry: c1's unkeyed s1 is sent, then sent again (a retry); the
// Client's $/cancel_request names the retry, and the Agent answers the
// first attempt -32800 as well, which nobody cancelled.
func strayRetry() *tb {
	b := newTB("all")
	b.connect(L1)
	b.submit("c1", "s1", text)
	id1 := b.prompt(L1, "s1", S1, text, nil)
	b.timer("c1")
	id2 := b.prompt(L1, "s1", S1, text, nil)
	b.c2a(L1, cancelRequestFrame(id2), "")
	b.fail(L1, id1, acp.CodeRequestCancelled)
	b.fail(L1, id2, acp.CodeRequestCancelled)
	b.outcome("c1", "s1", traces.OutcomeFailed, "")
	b.observe("a1#1", sess{S1, nil})
	b.finish("quiet", L1, Obs1)
	return b
}
