package properties

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The form the checker reads: every event the rules read becomes facts,
// one for each message of a frame (a batch gives several) and one for an
// event without a frame. A fact is a fixed-size record without pointers:
// each string the rules compare is a handle, each word they test a handle
// seeded with a constant value, so a table of facts costs the collector
// nothing and a rule compares integers. The strings stay in the Interner,
// for the rules that need their characters (a key's, a text's) and for
// explanations; only the leak scan reads a frame's bytes.
//
// The facts are made where the event is made or first read (Interner.facts):
// from the frame's digest where it has one, else from the bytes, and both
// read alike (DigestDiff compares the facts of every digested frame of many
// seeds with the facts of its bytes).

// word is the handle of a name from a small vocabulary: methods, event
// kinds, update kinds and states, outcomes, notes, endpoints. The first
// handles are the words the rules test, seeded in this order, so a rule
// tests a constant.
type word int32

const (
	wNone word = iota // ""

	wSubmit
	wSend
	wDeliver
	wDrop
	wConnect
	wDisconnect
	wOutcome
	wEnd
	wHeal
	wRestart
	wKill

	wInitialize
	wSessionNew
	wSessionResume
	wSessionLoad
	wSessionList
	wSessionClose
	wSessionPrompt
	wSessionCancel
	wSessionUpdate
	wSessionFork
	wCancelRequest

	wUserMessage
	wUserMessageChunk
	wStateUpdate
	wRunning
	wIdle

	wInserted
	wFailed
	wAbandoned

	wObserve
	wClose
	wCap
	wObserver

	wordsSeeded
)

// seededWords are the words of the constants above.
var seededWords = [wordsSeeded]string{
	wNone:   "",
	wSubmit: traces.KindSubmit, wSend: traces.KindSend, wDeliver: traces.KindDeliver, wDrop: traces.KindDrop,
	wConnect: traces.KindConnect, wDisconnect: traces.KindDisconnect, wOutcome: traces.KindOutcome, wEnd: traces.KindEnd,
	wHeal: traces.KindHeal, wRestart: traces.KindRestart, wKill: traces.KindKill,

	wInitialize: acp.MethodInitialize, wSessionNew: acp.MethodSessionNew, wSessionResume: acp.MethodSessionResume,
	wSessionLoad: acp.MethodSessionLoad, wSessionList: acp.MethodSessionList, wSessionClose: acp.MethodSessionClose,
	wSessionPrompt: acp.MethodSessionPrompt, wSessionCancel: acp.MethodSessionCancel, wSessionUpdate: acp.MethodSessionUpdate,
	wSessionFork: acp.MethodSessionFork, wCancelRequest: acp.MethodCancelRequest,

	wUserMessage: acp.UpdateUserMessage, wUserMessageChunk: acp.UpdateUserMessageChunk, wStateUpdate: acp.UpdateState,
	wRunning: acp.StateRunning, wIdle: acp.StateIdle,

	wInserted: traces.OutcomeInserted, wFailed: traces.OutcomeFailed, wAbandoned: traces.OutcomeAbandoned,

	wObserve: traces.NoteObserve, wClose: "close", wCap: traces.EndCap, wObserver: traces.Observer,
}

// Directions of a frame fact.
const (
	dirC2A = 0
	dirA2C = 1
)

// Key states of a prompt fact, beyond keyNone, keyValid and keyBad
// (requests.go): keyNull is keyNone said out loud ("idempotencyKey": null).
const keyNull = keyBad + 1

// fact is one message of a frame or one event without a frame, as the
// checker reads it. Which fields an event kind sets is listed
// beside them; a field a kind does not set is zero.
type fact struct {
	// Every event: its number, time (only ever printed), kind, and the
	// handles of the link and submission it names (-1: none).
	seq, t    int64
	ev        word
	link, sub int32
	// from and to are the event's endpoints (a Client, a process, the
	// observer), note its note.
	from, to, note word

	// A frame event (send, deliver, drop). dir is read from the event, or
	// from which end of its link wrote it. send, on a delivery or drop, is
	// the number of the send it delivers, paired as the trace reader pairs
	// them (the first send in flight on its link and direction with the
	// same bytes); such a fact stands for every message of that send, and
	// carries none itself. A delivery paired to no send carries its
	// messages as a send does. entry is the message's place in its frame
	// and entries how many the frame holds (0 for a frame of none).
	dir            uint8
	send           int64
	entry, entries int16

	// A message: its kind, id (the id an invalid entry is owed an error
	// with), method, and error.
	msg     acp.Kind
	id      rpcID
	nullID  bool // id is spelled null (an invalid entry's, or an answer's)
	method  word
	hasErr  bool
	errCode int32
	errMsg  int32 // a text handle: only printed

	// What the message names: params.sessionId, or a result's (session/new,
	// session/fork); a result's or an update's messageId (id handles).
	session, message int32

	// A session/prompt request's key: key is the handle of its string
	// when it is a JSON string, legal or not (the leak index reads every
	// one); keyRaw the text handle of its JSON when it is neither a legal
	// key nor absent (only printed). text is the prompt's text (a text
	// handle), read only when its submission has no text yet (textRead).
	keyState int8
	textRead bool
	key      int32
	keyRaw   int32
	text     int32

	// A session/update: its kind (-1: its params do not read as an
	// update), state, and whether it has content (its text is text).
	update, state word
	content       bool

	// $/cancel_request: the request it names (0: none readable).
	cancels rpcID

	// session/list's answer: listed when its result decodes, and the
	// sessions it names (Interner.list).
	listed           bool
	listAt, listSize int32

	// initialize and its answer: 1 + the index of what it says of the
	// peer's version (Interner.peerOf); 0 when the frame names no
	// protocolVersion.
	peer int32

	// An outcome: what the Client said (message is its messageId).
	outcome word
	// submit and outcome: the Client that told it.
	client word
}

// rpcID is a JSON-RPC id as a fact holds it: 0 when absent; -1-n for a
// small number n (acp.ID.SmallNum, how Clients number their requests,
// spelled without hashing); otherwise the handle (Interner.ID) of its
// spelling, which keeps a string id's quotes, so "1" and 1 differ.
type rpcID int32

// rpcIDOf is id's rpcID.
func (in *Interner) rpcIDOf(id acp.ID) rpcID {
	if id == "" {
		return 0
	}
	if n, ok := id.SmallNum(); ok {
		return rpcID(-1 - n)
	}
	return rpcID(in.ID(string(id)))
}

// rpcIDName is the spelling of id.
func (in *Interner) rpcIDName(id rpcID) acp.ID {
	switch {
	case id == 0:
		return ""
	case id < 0:
		return acp.NumID(int64(-1 - id))
	}
	return acp.ID(in.IDName(int32(id)))
}

// factString spells out fact x with its strings, for tests and for reading:
// two facts read alike when their strings are equal.
func (in *Interner) factString(x *fact) string {
	var b strings.Builder
	name := func(h int32) string {
		if h < 0 {
			return "-"
		}
		return in.IDName(h)
	}
	fmt.Fprintf(&b, "%d t=%d %s", x.seq, x.t, in.wordName(x.ev))
	if x.link >= 0 {
		fmt.Fprintf(&b, " link=%s", in.Link(x.link))
	}
	if x.sub >= 0 {
		fmt.Fprintf(&b, " sub=%s", in.Sub(x.sub))
	}
	for _, w := range []struct {
		k string
		v word
	}{{"from", x.from}, {"to", x.to}, {"note", x.note}, {"client", x.client}, {"outcome", x.outcome}} {
		if w.v != wNone {
			fmt.Fprintf(&b, " %s=%s", w.k, in.wordName(w.v))
		}
	}
	if x.ev == wSend || x.ev == wDeliver || x.ev == wDrop {
		fmt.Fprintf(&b, " dir=%d", x.dir)
		if x.send != 0 {
			fmt.Fprintf(&b, " send=%d", x.send)
			return b.String()
		}
		fmt.Fprintf(&b, " entry=%d/%d", x.entry, x.entries)
		if x.entries == 0 {
			return b.String()
		}
		fmt.Fprintf(&b, " msg=%d id=%s null=%t", x.msg, in.rpcIDName(x.id), x.nullID)
		if x.method != wNone {
			fmt.Fprintf(&b, " method=%s", in.wordName(x.method))
		}
		if x.hasErr {
			fmt.Fprintf(&b, " error=%d %q", x.errCode, in.textName(x.errMsg))
		}
	}
	if x.session != noID || x.message != noID {
		fmt.Fprintf(&b, " session=%q message=%q", name(x.session), name(x.message))
	}
	if x.keyState != keyNone || x.key != noID {
		fmt.Fprintf(&b, " key=%d %q raw=%q", x.keyState, name(x.key), in.textName(x.keyRaw))
	}
	if x.textRead || x.text != 0 {
		fmt.Fprintf(&b, " text=%q read=%t", in.textName(x.text), x.textRead)
	}
	if x.update != wNone {
		upd := "unreadable"
		if x.update >= 0 {
			upd = in.wordName(x.update)
		}
		fmt.Fprintf(&b, " update=%s state=%s content=%t", upd, in.wordName(x.state), x.content)
	}
	if x.cancels != 0 {
		fmt.Fprintf(&b, " cancels=%s", in.rpcIDName(x.cancels))
	}
	if x.listed {
		b.WriteString(" lists=[")
		for i, h := range in.list(x) {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%q", name(h))
		}
		b.WriteString("]")
	}
	if x.peer != 0 {
		p := in.peerOf(x)
		fmt.Fprintf(&b, " peer=%d v1=%t %q", p.Version, p.V1, p.Why)
	}
	return b.String()
}
