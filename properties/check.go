package properties

import (
	"sort"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// Check, the streaming Checker, the checker's state, and the one pass over
// the trace that hands each event to what it concerns; the judging happens
// after it, in finish.go.

// Check judges a trace. It reads only frames, submissions, outcomes and link
// and process events: events whose Kind is in traces.Bookkeeping are skipped,
// so stripping them never changes the report. Events are taken in Seq order
// (sorted first when they are not). It is a Checker fed the whole slice.
func Check(h traces.Header, events []traces.Event) *Report {
	evs := inSeqOrder(events)
	c := NewBorrowingChecker(h, len(evs))
	c.own.reserve(len(evs)) // not for a run's checker, whose ids its register holds
	for i := range evs {
		c.Add(&evs[i])
	}
	rep := c.Finish()
	if checked != nil {
		checked(h, evs, rep)
	}
	return rep
}

// checked, when set, sees every trace Check judged and its report: the
// package's tests hold the rewrite's ledger to each (ledger_compare.go).
var checked func(h traces.Header, evs []traces.Event, rep *Report)

// Checker judges a trace one event at a time, as Check does, without holding
// the trace: its memory grows with the submissions, sessions, requests and
// links the trace names, not with its frames, so a trace can be judged as it
// is read (traces.Decoder) or written. Explanations still cite event numbers.
type Checker struct {
	c *checker
	// own is the checker's own interner, when it interns its events (Add).
	own      *Interner
	finished bool
}

// NewChecker starts judging a trace with header h.
func NewChecker(h traces.Header) *Checker {
	in := NewInterner(false)
	return &Checker{c: newChecker(h, in, 0), own: in}
}

// NewBorrowingChecker is NewChecker for a caller whose events' strings may
// stay in memory as long as the checker: what it keeps of them (keys, ids,
// texts, names) are those strings or substrings of them, not copies, which
// spares an allocation each but holds the frames they came from until the
// checker is dropped. Check borrows from the trace it is handed, and the
// simulator from the run it is making (the frames die with the run). events
// is how many events the trace is expected to hold (0: unknown), to size
// the checker's tables.
func NewBorrowingChecker(h traces.Header, events int) *Checker {
	in := NewInterner(true)
	c := &Checker{c: newChecker(h, in, events), own: in}
	c.c.borrow = true
	return c
}

// NewStepChecker is a checker of the steps in made, borrowing as in does
// (NewInterner), for a caller that interns the events itself: AddStep, not
// Add. events is as for NewBorrowingChecker.
func NewStepChecker(h traces.Header, in *Interner, events int) *Checker {
	c := &Checker{c: newChecker(h, in, events)}
	c.c.borrow = in.borrow
	return c
}

// UseNames makes the run's register of minted ids the source of the
// handles the checker gives ids (Interner.UseNames): the simulator's
// checker, whose actors mint every id there. Call it before the first Add.
func (c *Checker) UseNames(n *sim.Names) {
	if c.own == nil {
		panic("properties: Checker.UseNames on a NewStepChecker (its Interner's UseNames)")
	}
	c.own.UseNames(n)
}

// Add hands the checker the next event, in Seq order. Add does not retain e
// (only copies of the few strings a verdict needs), so the caller may reuse
// it for the next event.
func (c *Checker) Add(e *traces.Event) {
	if c.finished {
		panic("properties: Checker.Add after Finish")
	}
	if c.own == nil {
		panic("properties: Checker.Add on a NewStepChecker (AddStep takes its steps)")
	}
	st := c.own.Step(e)
	c.add(&st)
}

// AddStep hands a checker made by NewStepChecker the next step, in Seq
// order, made by the Interner it was given. Like Add, it retains neither st
// nor its Event.
func (c *Checker) AddStep(st *Step) {
	if c.finished {
		panic("properties: Checker.AddStep after Finish")
	}
	if c.own != nil {
		panic("properties: Checker.AddStep on a checker that interns its events itself (NewChecker, NewBorrowingChecker: Add)")
	}
	if !st.made {
		panic("properties: Checker.AddStep of a Step not made by Interner.Step")
	}
	c.add(st)
}

func (c *Checker) add(st *Step) { c.c.step(st) }

// Finish judges the events added and returns the report. It may be called
// once; Add must not follow.
func (c *Checker) Finish() *Report {
	if c.finished {
		panic("properties: Checker.Finish called twice")
	}
	c.finished = true
	rep := *c.c.finish() // a copy: the report must not hold the checker's tables in memory
	c.c, c.own = nil, nil
	return &rep
}

// inSeqOrder returns the events sorted by Seq, copying only when they are not.
func inSeqOrder(evs []traces.Event) []traces.Event {
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq < evs[i-1].Seq {
			out := append([]traces.Event(nil), evs...)
			sort.SliceStable(out, func(a, b int) bool { return out[a].Seq < out[b].Seq })
			return out
		}
	}
	return evs
}

type checker struct {
	h       traces.Header
	retainN int // the contract keeps each session's last retainN user messages; 0: all
	rep     Report

	// in gave out the handles of the steps' ids: subAt and linkAt are
	// indexed by them.
	in     *Interner
	subAt  []*subState
	order  []*subState
	linkAt []*linkState
	// linkOrder are the links in order of first sight.
	linkOrder []*linkState

	keys  *keyIndex
	names map[string]string // interned names: sessions, methods, links, processes
	// borrow: what the checker keeps may point into the events' strings
	// (own, name), which then live as long as it (NewBorrowingChecker).
	borrow bool

	// byKey threads (by nextKey) the delivered keyed prompts of each
	// session and key, for $/cancel_request; until the first one is
	// delivered they are only listed in keyedPend, in delivery order.
	byKey     map[sessKey]*reqRec
	keyedPend []*reqRec
	cancelled []*respRec // responses to withdrawn prompts other than -32800
	strays    []strayRec // -32800s no cancel explains (stray_cancel.go)
	// withdrawnKeys are the keys (per session) of prompts a cancel withdrew,
	// with the event of their -32800.
	withdrawnKeys map[sessKey]int64
	// sessCancel is, per session, when a session/cancel or session/close
	// of it was last read.
	sessCancel map[string]int64
	silent     []silentRec // withdrawn prompts inserted without a response

	// msgs are the messages the Agent named (response or update), with the
	// first success response that named each (its owner).
	msgByID []int32 // by id handle: 1 + the index of the first message with that id
	msgAt   map[msgKey]int32
	msgs    []msgRec
	// named lists, per session, when each user message was first named
	// (response or update) and whether its text is live-only: how many
	// newer messages could have pushed one out under retention by a time.
	named map[string][]namedRec
	// live are the user messages the Agent announced under an id no
	// response had named yet (live_ids.go): usually none.
	liveAt map[msgKey]int32
	live   []liveRec

	final map[string]*transcript // session → final transcript
	// forkOf maps a session made by session/fork to its parent: a fork
	// starts with copies of the parent's history, which no submission of
	// the fork inserted.
	forkOf map[string]string
	forks  []*reqRec // every session/fork request, for forks whose answer was lost
	// sessionUsed are the sessions some Client (not the observer) named in a
	// request: a session no Client knew of can only be an orphan.
	sessionUsed map[string]bool
	// v1: a peer spoke ACP v1 (version.go); noLoad: its Agent answered
	// session/load -32601, so no transcript can be read.
	v1, noLoad bool
	// created are the sessions the Agent answered a Client's session/new
	// with, in order, once each.
	created    []string
	createdSet map[string]bool
	sessOrder  []string // sessions in the order their transcript was first read

	shared []*respRec // success responses naming a message another submission already got
	rework []reworkRec
	stray  []*respRec // responses to no delivered request
	bad    []*reqRec  // malformed key not answered -32602
	// refused are prompts with a legal key first answered -32602 (legal_keys.go)
	refused []*reqRec
	twice   []*reqRec // requests answered twice
	leaks   []*leakAcc
	leakBy  map[string]*leakAcc

	// procs are the Agent processes and sessRecs what each session's
	// frames show, for the session contract (sessions.go).
	procs        map[string]*procRec
	procOrder    []*procRec
	sessRecs     map[string]*sessRec
	sessAt       []*sessRec // by session handle: sessOf
	sessRecOrder []*sessRec
	sessions     sessionVerdict

	// setups are the set-up requests' answers per session or Client
	// (setup.go); healSeq is the heal event's, 0 without one.
	setups     map[string]*setupGroup
	setupOrder []*setupGroup
	healSeq    int64

	endSeq int64
	out    []anomaly
	// judging names the judgement running, for the anomalies it finds.
	judging  string
	byReport map[reportKey]bool // the anomalies of one submission in out (emit)
	views    []msgView          // scratch for parse
	byText   map[groupKey][]*subState
	// keyedReqs: the delivered requests with a legal key, by session and
	// key (deliveredKeyed).
	keyedReqs map[sessKey][]*reqRec
	free      []*frameRec // delivered frames, for reuse

	reqSlab  sim.Slab[reqRec]
	respSlab sim.Slab[respRec]
	subSlab  sim.Slab[subState]
}

// newChecker sizes its tables for a trace of n events: a submission, a
// message, a key per dozen or so events, as traces run.
func newChecker(h traces.Header, in *Interner, n int) *checker {
	// An unknown or invalid retention promises the most: everything.
	retain, all, err := h.Contract.RetainLast()
	if all || err != nil {
		retain = 0
	}
	hint := n/16 + 8
	c := &checker{
		names:   map[string]string{},
		h:       h,
		in:      in,
		retainN: retain,
		order:   make([]*subState, 0, hint),
		msgs:    make([]msgRec, 0, hint),
		final:   map[string]*transcript{},
		leakBy:  map[string]*leakAcc{},
	}
	c.keys = newKeyIndex(hint, c.own, in.lookup)
	return c
}

type linkState struct {
	name, client, agent string
	observer            bool
	ended               bool
	note                string
	endSeq, endT        int64

	// byNum and byID are the delivered requests by id: byNum by a small
	// number (acp.ID.SmallNum: how Clients number their requests), byID the rest
	// (fileReq).
	byNum []reqList
	nums  int // ids in byNum
	byID  map[acp.ID]reqList
	// initIDs are the ids of the initialize requests the Client side
	// sent: their answers are the Agent's initialize results (version.go).
	initIDs []acp.ID
	// lastCancelReq is the last $/cancel_request read on the link.
	lastCancelReq *cancelRec
	open          []*reqRec // delivered requests, for the missing-response check
	unanswered    int
	nullErrs      int // delivered entries whose id was unreadable: each is owed a null-id error

	q      [2]fifo[*frameRec]     // frames in flight, by direction, in send order
	cand   map[string]*transcript // observer: the transcript being replayed, per session
	sess   []*lsState             // in order of first sight (ls)
	sessBy map[string]*lsState
}

func (c *checker) step(st *Step) {
	e := st.Event
	switch e.Kind {
	case traces.KindSubmit:
		s := c.sub(st.Sub, e.Client)
		s.submitSeq, s.text, s.textFromSubmit = e.Seq, c.own(e.Text), true
	case traces.KindSend:
		if e.Note == traces.NoteObserve {
			// The observer took over a Client's live connection: what
			// follows on it is its reading (traces.NoteObserve).
			c.link(st.Link).observer = true
		}
		c.send(st)
	case traces.KindDeliver, traces.KindDrop:
		c.arrive(st)
	case traces.KindConnect:
		l := c.link(st.Link)
		l.client, l.agent = c.name(e.From), c.name(e.To)
		l.observer = e.From == traces.Observer
	case traces.KindDisconnect:
		c.disconnect(st)
	case traces.KindOutcome:
		s := c.sub(st.Sub, e.Client)
		s.outcome, s.outcomeMsg, s.outcomeMsgH, s.outcomeSeq, s.outT = c.name(e.Outcome), c.own(e.MessageID), st.Msg, e.Seq, e.T
		s.nOutcomes++
	case traces.KindEnd:
		c.rep.End, c.endSeq = c.own(e.Note), e.Seq
	case traces.KindHeal:
		if c.healSeq == 0 {
			c.healSeq = e.Seq
		}
	}
	switch e.Kind {
	case traces.KindRestart, traces.KindKill, traces.KindConnect, traces.KindDisconnect:
		c.procEvent(st)
	}
	// kill and restart otherwise show in the link events they cause;
	// bookkeeping kinds (choose, insert, timer) are ignored on purpose.
}

// link is the link of handle h, made at its first sight.
func (c *checker) link(h int32) *linkState {
	if h < 0 {
		h = noName // an event of a link kind naming none
	}
	at := byIndex(&c.linkAt, h)
	if *at == nil {
		name := c.in.Link(h) // the interner's own copy, or borrowed as the checker is
		l := &linkState{name: name}
		if client, agent, ok := linkEnds(name); ok {
			l.client, l.agent = client, agent
			l.observer = l.client == traces.Observer
		}
		*at = l
		c.linkOrder = append(c.linkOrder, l)
	}
	return *at
}

// linkEnds are the Client and Agent ends a link's name spells ("c1>a1#2"),
// as a trace without connect events names them; ok false for a name of
// another shape.
func linkEnds(name string) (client, agent string, ok bool) {
	return strings.Cut(name, ">")
}

// byIndex is the entry of index i in *table, the table grown to hold it.
func byIndex[T any](table *[]T, i int32) *T {
	if n := int(i) + 1; n > len(*table) {
		*table = append(*table, make([]T, n-len(*table))...)
	}
	return &(*table)[i]
}

// name interns a string the checker keeps that many records share (a
// session, a method, a link or process name): one copy, which holds no
// frame or event string in memory.
func (c *checker) name(s string) string {
	if c.borrow {
		return s
	}
	if n, ok := c.names[s]; ok {
		return n
	}
	n := strings.Clone(s)
	c.names[n] = n
	return n
}

// own is a string the checker keeps, as its own copy: a substring of a
// frame would keep the whole frame in memory. A borrowing checker keeps the
// string itself (NewBorrowingChecker).
func (c *checker) own(s string) string {
	if c.borrow {
		return s
	}
	return strings.Clone(s)
}
