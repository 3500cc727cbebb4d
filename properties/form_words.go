package properties

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The words every event and frame names (form.go): found by a switch on
// their few lengths, not hashed into the interner's table of words. The
// switches repeat seededWords by hand: a lookup made from that table (its
// words by length, compared in turn) ran 2.5 times the switch's time on a
// frame's mix of words. TestSeededWordKnowsTheSeededWords and
// TestKindWordsAreTheSeededKinds hold the two to the table.

// seededWord is the seeded word of s, wNone when s is none: the methods,
// update kinds and states of nearly every frame, and most notes, found by
// a switch on their few lengths instead of a hash.
func seededWord(s string) word {
	switch s {
	case acp.MethodInitialize:
		return wInitialize
	case acp.MethodSessionNew:
		return wSessionNew
	case acp.MethodSessionResume:
		return wSessionResume
	case acp.MethodSessionLoad:
		return wSessionLoad
	case acp.MethodSessionList:
		return wSessionList
	case acp.MethodSessionClose:
		return wSessionClose
	case acp.MethodSessionPrompt:
		return wSessionPrompt
	case acp.MethodSessionCancel:
		return wSessionCancel
	case acp.MethodSessionUpdate:
		return wSessionUpdate
	case acp.MethodSessionFork:
		return wSessionFork
	case acp.MethodCancelRequest:
		return wCancelRequest
	case acp.UpdateUserMessage:
		return wUserMessage
	case acp.UpdateUserMessageChunk:
		return wUserMessageChunk
	case acp.UpdateState:
		return wStateUpdate
	case acp.StateRunning:
		return wRunning
	case acp.StateIdle:
		return wIdle
	case traces.OutcomeInserted:
		return wInserted
	case traces.OutcomeFailed:
		return wFailed
	case traces.OutcomeAbandoned:
		return wAbandoned
	case traces.NoteObserve:
		return wObserve
	case "close":
		return wClose
	case traces.EndCap:
		return wCap
	case traces.Observer:
		return wObserver
	}
	return kindWord(s)
}

// kindWord is the word of an event kind the checker reads, wNone for the
// others: a switch on the few kinds, which every event passes through,
// costs less than a lookup in words.
func kindWord(kind string) word {
	switch kind {
	case traces.KindSend:
		return wSend
	case traces.KindDeliver:
		return wDeliver
	case traces.KindDrop:
		return wDrop
	case traces.KindSubmit:
		return wSubmit
	case traces.KindOutcome:
		return wOutcome
	case traces.KindConnect:
		return wConnect
	case traces.KindDisconnect:
		return wDisconnect
	case traces.KindEnd:
		return wEnd
	case traces.KindHeal:
		return wHeal
	case traces.KindRestart:
		return wRestart
	case traces.KindKill:
		return wKill
	}
	return wNone
}
