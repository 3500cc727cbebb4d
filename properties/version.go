package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The protocol version of a trace's peers. acpsim's properties are ACP v2's
// and the idempotency RFD's; a trace whose Agent answered initialize in ACP
// v1 (or whose Client asked in v1's shape) holds a conversation not all of
// those rules apply to (v1's cancel answers a turn, not an insertion), so
// the report says so in one line (Report.V1), with what is judged under v1
// and what is not. The first initialize, of either side, that reads as v1
// makes the trace v1's; an Agent's answer counts only where it answers an
// initialize the Client side sent on its link.

// readVersion reads the initialize messages of a frame sent on l, before
// its messages are read: v1 changes how an answer reads (setupAnswered:
// a v1 Agent may have no session/load).
func (lg *ledger) readVersion(l *linkRow, facts []fact) {
	if lg.v1 {
		return
	}
	for i := range facts {
		x := &facts[i]
		if x.peer == 0 {
			continue // no initialize, or its frame names no protocolVersion
		}
		p := lg.in.peerOf(x)
		switch {
		case x.dir == dirC2A && x.msg == acp.KindRequest && x.method == wInitialize:
			l.initIDs = append(l.initIDs, x.id)
			if p.V1 {
				lg.v1, lg.v1Line = true, p.V1JudgedLine("the Client")
				return
			}
		case x.dir == dirA2C && x.msg == acp.KindResponse && !x.hasErr && l.isInitID(x.id):
			if p.V1 {
				lg.v1, lg.v1Line = true, p.V1JudgedLine("the Agent")
				return
			}
		}
	}
}

func (l *linkRow) isInitID(id rpcID) bool {
	for _, x := range l.initIDs {
		if x == id {
			return true
		}
	}
	return false
}

// endNote is the note of the trace's end event: "" when it has none.
func (lg *ledger) endNote() string {
	if !lg.ended {
		return ""
	}
	return lg.in.wordName(lg.end)
}

// head fills what a report says of the whole trace: the protocol, how the
// run ended, and whether it judged anything at all.
func (lg *ledger) head(rep *Report) {
	rep.Protocol, rep.V1 = acp.ProtocolVersion, ""
	if lg.v1 {
		rep.Protocol, rep.V1 = acp.ProtocolV1, lg.v1Line
	}
	rep.End = lg.endNote()
	if len(lg.subOrder) == 0 {
		rep.NothingJudged = "the trace holds no submission"
		switch rep.End {
		case "":
			rep.NothingJudged += " (the trace has no end event)"
		case traces.EndCap:
			rep.NothingJudged += " (the run hit its cap)"
		}
	}
	if lg.h.Observed == traces.ObservedAtTap {
		rep.NotJudged = NeedWholeHistory
	}
}
