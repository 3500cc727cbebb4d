package properties

import (
	"maps"
	"slices"

	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// Step is an event as the checker judges it: the event, with the ids it
// names as small integers (handles) an Interner gave out, once, where the
// event was made or first read. The checker indexes its tables by handles
// instead of looking strings up (docs/design.md, "The checker on handles");
// the Step carries its Event for what no handle holds (the frame's bytes,
// which the facts and the leak scan read).
type Step struct {
	Event *traces.Event
	// Link and Sub are the handles of the event's link and submission; -1:
	// the event names none.
	Link, Sub int32
	// Session and Msg are the handles (Interner.ID) of the sessionId and
	// the messageId a send event's frame names, as its digest reads them,
	// and Msg of the messageId an outcome reports; noID when the event
	// names none or its frame has no digest (the checker then reads its
	// bytes and interns what it finds itself).
	Session, Msg int32
	// Key is the handle of the idempotencyKey the digest of a prompt's
	// frame says its Client holds (acp.Digest.Key); noID for none.
	Key int32
	// made: Interner.Step made it. A Step made otherwise lacks the handles
	// the checker reads, and would be judged wrong without a word:
	// AddStep refuses it.
	made bool
}

// noID is the handle of the empty id: no session, no message.
const noID = 0

// Interner gives out the handles of one trace's ids, each the next small
// integer in the order the ids are first seen, so equal traces get equal
// handles, and keeps the strings behind them.
type Interner struct {
	borrow    bool
	links     map[string]int32
	linkNames []string
	subs      map[string]int32
	subNames  []string
	// ids are the sessionIds, messageIds and keys the events name: one
	// table, as a peer may reuse a string for any of them.
	ids     map[string]int32
	idNames []string
	// names, when set (UseNames), gives the ids and the texts their
	// handles instead of ids and form's texts: the run's register, where
	// an id or text it minted is found by its address, not hashed.
	names *sim.Names
	// The last link and submission named, with their handles: events
	// come in runs on one link and of one submission.
	lastLink, lastSub   string
	lastLinkH, lastSubH int32
	// form is what making facts keeps (form_read.go).
	form formState
}

// NewInterner starts the handles of a trace. A borrowing interner keeps the
// events' own strings, not copies: its events' strings must live as long as
// it does (NewBorrowingChecker says when that holds). An interner is not
// safe for use by several goroutines, and a checker of its steps adds to it
// (the ids it reads from frames without a digest): one interner serves one
// checker at a time.
func NewInterner(borrow bool) *Interner {
	in := &Interner{borrow: borrow, links: map[string]int32{}, subs: map[string]int32{}, ids: map[string]int32{}}
	// Handle 0 of each is the empty name, for an event of a link or
	// submission kind that names none (a malformed trace): the checker
	// then reads a handle, as for any other, and never adds one.
	in.handle(in.links, &in.linkNames, "")
	in.handle(in.subs, &in.subNames, "")
	in.handle(in.ids, &in.idNames, "")
	return in
}

// reserve sizes in's tables for a trace of about n events: a submission
// per 16 events or so, a new id per 7 (as the bench history and seeds run),
// so that they are not grown again and again from empty.
func (in *Interner) reserve(n int) {
	if n <= 0 || in.names != nil || len(in.ids) > 1 || len(in.subs) > 1 {
		return // nothing to size, or a register gives the ids, or in is in use
	}
	grow := func(m *map[string]int32, names *[]string, k int) {
		old := *m
		*m = make(map[string]int32, k)
		maps.Copy(*m, old)
		*names = slices.Grow(*names, k)
	}
	grow(&in.subs, &in.subNames, n/16)
	grow(&in.ids, &in.idNames, n/7)
}

// noName is the handle of the empty name, of links and of submissions.
const noName = 0

// Step is e as the checker judges it. Steps must be made in the order they
// are judged (handles are given out in order of first sight).
func (in *Interner) Step(e *traces.Event) Step {
	st := Step{Event: e, Link: -1, Sub: -1, made: true}
	// The caches hold the interner's names, never the event's: a caller
	// may reuse the event's buffers.
	if e.Link != "" {
		if e.Link != in.lastLink {
			in.lastLinkH = in.handle(in.links, &in.linkNames, e.Link)
			in.lastLink = in.linkNames[in.lastLinkH]
		}
		st.Link = in.lastLinkH
	}
	if e.Sub != "" {
		if e.Sub != in.lastSub {
			in.lastSubH = in.handle(in.subs, &in.subNames, e.Sub)
			in.lastSub = in.subNames[in.lastSubH]
		}
		st.Sub = in.lastSubH
	}
	switch e.Kind {
	case traces.KindSend:
		if d := e.Digest; d.Describes(e.Frame) {
			st.Session, st.Msg, st.Key = in.ID(d.Session()), in.ID(d.MessageID()), in.ID(d.Key())
		}
	case traces.KindOutcome:
		st.Msg = in.ID(e.MessageID)
	}
	return st
}

// ID is the handle of a sessionId or messageId, given out at its first
// sight; noID for "".
func (in *Interner) ID(s string) int32 {
	if s == "" {
		return noID
	}
	if in.names != nil {
		if h := in.names.Handle(s); h != 0 {
			return h
		}
		_, h := in.names.Mint(s) // an id or text no actor minted: an Agent's own, an error's, or garbage
		return h
	}
	return in.handle(in.ids, &in.idNames, s)
}

// UseNames makes the run's register of minted ids and texts (sim.Names)
// the source of the interner's id and text handles, so an id or a user's
// text an actor minted costs no hashing; any other (an Agent's own id, an
// error's message, a frame's description in an explanation) is registered
// there. Call it before the first step. The register's handles are then
// the ids' and texts' handles, one space for both: Handle and Name of the
// register agree with ID and IDName.
func (in *Interner) UseNames(n *sim.Names) {
	if len(in.idNames) > 1 || len(in.form.textNames) > 1 {
		panic("properties: Interner.UseNames after ids or texts were given out")
	}
	in.names = n
}

// lookup is the handle of s, if given out; it gives out none.
func (in *Interner) lookup(s string) (int32, bool) {
	if s == "" {
		return noID, true
	}
	if in.names != nil {
		h := in.names.Handle(s)
		return h, h != 0
	}
	h, ok := in.ids[s]
	return h, ok
}

// IDName is the string of id handle h.
func (in *Interner) IDName(h int32) string {
	if in.names != nil {
		return in.names.Name(h)
	}
	return in.idNames[h]
}

func (in *Interner) handle(m map[string]int32, names *[]string, s string) int32 {
	return intern(m, names, s, in.borrow)
}

// Link is the name of link handle h.
func (in *Interner) Link(h int32) string { return in.linkNames[h] }

// Sub is the id of submission handle h.
func (in *Interner) Sub(h int32) string { return in.subNames[h] }

// Subs is how many submission handles the interner has given out, the
// empty name's among them.
func (in *Interner) Subs() int { return len(in.subNames) }
