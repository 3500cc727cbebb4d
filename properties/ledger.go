package properties

import (
	"github.com/acpsim/acpsim/traces"
)

// The ledger is the checker's one pass over the trace: the tables every
// rule reads, built from the facts (form.go) as events come, with no
// judgement; the judgements run after the pass, in finish.go's order.
// Every table is a slice of fixed-size rows without pointers, indexed by a
// handle or by its place; a row names another by its index, and the lists
// a row owns (a submission's requests, the requests with one id on a link)
// are threaded through the rows they list by int32 "next" indices, so the
// tables cost the collector nothing and a rule follows indices, not
// pointers. What must be decided as of an event (which prompts a cancel
// caught, whether an answer came from a binding, whether a user message is
// new on its link) is decided in the pass; everything else waits for the
// end, when the final transcripts are known.

// none is the index of no row.
const none int32 = -1

type ledger struct {
	h  traces.Header
	in *Interner
	// scratch: the facts of the event being read.
	scratch []fact
	// values: the strings of the frame being scanned for leaks.
	values []string

	subs     []subRow // by submission handle
	subOrder []int32  // submission handles in order of first sight
	links    []linkRow
	// linkOrder are the link handles in order of first sight.
	linkOrder []int32
	reqs      []reqRow
	// resps are the responses that are not a request's first (the first
	// lives in its request's row) and those that answer no request;
	// strays those that answer no request delivered.
	resps  []respRow
	strays []respRef
	// answers are the submissions' answers (subRow.answers), sessions the
	// sessions their prompts named (subRow.sessions), tos the Agent
	// processes their prompts reached (subRow.tos).
	answers  []answerRow
	sessions []sessionRow
	tos      []toRow
	// msgs are the messages the Agent named in a response or an update,
	// found by their session and id (msgIndex).
	msgs    []msgRow
	msgByID []int32 // by id handle: 1 + the index of the first message with that id
	msgAt   map[msgKey]int32
	// created are the sessions the Agent answered a Client's session/new
	// with, once each, in order; isCreated and used are by id handle.
	// used: some Client (not the observer) named the session in a
	// request; a session no Client knew of can only be an orphan, or a
	// fork whose answer was lost.
	created   []int32
	isCreated []bool
	used      []bool
	// overflow holds the items of sends with more than one (batches).
	overflow []item

	// trans are the transcripts, candidates and final; tmsgs their
	// messages, found by tmsgAt; cand the candidates being read, by link
	// and session; final the final one of each session (by id handle: 1
	// + its index), sessOrder the sessions in the order theirs was first
	// made final. upds are the updates to the observer in flight.
	trans     []transRow
	tmsgs     []tmsgRow
	tmsgAt    map[transKey]int32
	cand      map[candKey]int32
	final     []int32
	sessOrder []int32
	upds      []updRow

	// cancels are the cancels the Agent read; lss what each link shows of
	// each session (linkRow.ls; by lsAt for a link with many); byKey the delivered keyed prompts of each
	// session and key (reqRow.nextKey), made when a cancel first needs
	// them, keyedPend those delivered until then; sessCancel, by session
	// handle, when a session/cancel or session/close of it was last read;
	// withdrawnKeys when a withdrawn prompt's key was answered -32800.
	cancels       []cancelRow
	lss           []lsRow
	lsAt          map[candKey]int32
	byKey         map[msgKey]int32
	keyedPend     []int32
	sessCancel    []int64
	withdrawnKeys map[msgKey]int64
	// strayCancels are -32800s no cancel explains, cancelled the answers
	// to withdrawn prompts other than -32800.
	strayCancels []strayRow
	cancelled    []respRef

	// v1: a peer spoke ACP v1, as v1Line says (version.go).
	v1     bool
	v1Line string
	// rework are the second rounds of work after a binding's answer.
	rework []reworkRow
	// twice are the requests answered twice, bad the prompts with a
	// malformed key not refused, refused those with a legal key refused
	// (replies.go); keyedReqs the delivered requests with a legal
	// key by session and key, made when a refusal needs them.
	twice, bad, refused []int32
	keyedReqs           map[msgKey][]int32
	// inconclusive: a judgement found the run stopped while busy
	// (missingReplies, unjudged).
	inconclusive bool
	// What the core reads that the pass must keep (noteLive, forked,
	// noteNamed, promptAnswered): live user messages no
	// response had named when announced (by liveAt), session/fork
	// requests sent, each fork's parent, the messages named under "last
	// N" (retainN; 0: all kept), and success answers naming a message
	// another submission owns.
	live    []liveRow
	liveAt  map[msgKey]int32
	forks   []int32
	forkOf  map[int32]int32
	retainN int
	named   []namedRow
	shared  []respRef
	// out are the anomalies found, in the order the judgements report
	// them (sortAnomalies orders them for the report).
	out []ledgerAnomaly

	stats  Stats
	endSeq int64
	end    word
	ended  bool // the trace has an end event, whose note is end

	// keys are the keys Clients sent (key_index.go); keyFirst, by key
	// handle, 1 + the first prompt request that carried each as its
	// legal key; leaks the needles the Agent wrote, found by leakOf (key
	// handle: 1 + the row), the field name's at fieldLeak (leak.go).
	keys      *keyIndex
	keyFirst  []int32
	leaks     []leakRow
	leakOf    map[int32]int32
	fieldLeak int32
	// setups are the set-up groups (setup.go) in order of their
	// first answer, found by setupAt; setupAnswers their answers,
	// uncheckedIn the submissions each names as unchecked. healSeq is the
	// first heal event's seq (0: none); noLoad: a v1 Agent answered
	// session/load -32601, so no transcript can be read.
	setups       []setupRow
	setupAt      map[setupKey]int32
	setupAnswers []setupAnswerRow
	uncheckedIn  []uncheckedRow
	healSeq      int64
	noLoad       bool
	// procs are the Agent processes (sessions.go), procAt their
	// index by name (1 + it); sessRows what each session's frames show,
	// in order of first sight, sessAt their index by id handle (1 + it);
	// seens the processes that had each or did not know it; hadBy a
	// session's processes past hadScan, listedBy the sessions each
	// process's list named; sessV the contract decided after the pass.
	procs    []procRow
	procAt   []int32
	sessRows []sessRow
	sessAt   []int32
	seens    []seenRow
	hadBy    map[procSess]bool
	listedBy map[procSess]bool
	sessV    sessVerdict

	// The core's judgement, after the pass (finals.go, attribute.go,
	// verdicts.go): the final transcripts laid out
	// (fmsgs, fins, found by finAt), and what is decided of each
	// submission (core, by handle).
	fins  []finalRow
	finAt []int32
	fmsgs []fmsg
	core  coreState
}

// newLedger starts the ledger of a trace with header h, whose handles in
// gives out; events is how many events it is expected to hold (0:
// unknown), to size the tables.
func newLedger(h traces.Header, in *Interner, events int) *ledger {
	// Each table sized for the rows a trace of that many events holds, a
	// little over what the bench history (14 to 16 events a row of each
	// table a submission has one of, 7 a request) and ten-prompt seeds
	// (20 to 40, 8 a request and an update) were measured to need: grown
	// again and again from empty, the tables cost more than their rows.
	perSub, perReq, perUpd := events/13+8, events/6+8, events/8+8
	// An unknown or invalid retention promises the most: everything.
	retain, all, err := h.Contract.RetainLast()
	if all || err != nil {
		retain = 0
	}
	in.reserveTexts(events)
	return &ledger{h: h, in: in, retainN: retain,
		subs: make([]subRow, 0, perSub), subOrder: make([]int32, 0, perSub), reqs: make([]reqRow, 0, perReq),
		msgs: make([]msgRow, 0, perSub), answers: make([]answerRow, 0, perSub), sessions: make([]sessionRow, 0, perSub),
		tos: make([]toRow, 0, perSub), tmsgs: make([]tmsgRow, 0, perSub), upds: make([]updRow, 0, perUpd)}
}

// add reads the next event, in Seq order, with its handles.
func (lg *ledger) add(st *Step) {
	lg.scratch = lg.in.facts(st, lg.scratch[:0])
	lg.sendLeaks(st, lg.scratch)
	lg.read(lg.scratch)
}

// read reads the facts of events, in Seq order (a frame's facts together,
// as the Interner made them).
func (lg *ledger) read(facts []fact) {
	for i := 0; i < len(facts); {
		x := &facts[i]
		if x.link < 0 {
			x.link = noName // an event of a link kind naming none
		}
		switch x.ev {
		case wSend, wDeliver, wDrop:
			n := 1
			for i+n < len(facts) && facts[i+n].seq == x.seq {
				n++
			}
			lg.frame(facts[i : i+n])
			i += n
			continue
		case wSubmit:
			s := lg.sub(x.sub, x.client)
			s.submitSeq, s.text, s.textFromSubmit = x.seq, x.text, true
		case wConnect:
			l := lg.link(x.link)
			l.client, l.agent = x.from, x.to
			l.observer = x.from == wObserver
		case wHeal:
			if lg.healSeq == 0 {
				lg.healSeq = x.seq
			}
		case wDisconnect:
			lg.disconnect(x)
		case wOutcome:
			s := lg.sub(x.sub, x.client)
			s.outcome, s.outcomeMsg, s.outcomeSeq, s.outT = x.outcome, x.message, x.seq, x.t
			s.nOutcomes++
		case wEnd:
			lg.end, lg.endSeq, lg.ended = x.note, x.seq, true
		}
		switch x.ev {
		case wRestart, wKill, wConnect, wDisconnect:
			lg.procEvent(x)
		}
		i++
	}
}

// subRow is a submission: what one user asked to insert once, however
// many prompt requests its Client sent for it.
type subRow struct {
	seen           bool
	textFromSubmit bool
	keyed, mixed   bool
	keyState       int8
	client         word
	text           int32 // a text handle
	key            int32
	submitSeq      int64
	// reqs threads its prompt requests (reqRow.nextOfSub), first to last.
	firstReq, lastReq int32
	attempts          int32
	// sessions, tos and answers are the heads of its lists in the
	// ledger's tables of those (sessionRow, toRow, answerRow).
	sessions, tos, answers int32
	lastAnswer             int32

	outcome          word
	outcomeMsg       int32
	outcomeSeq, outT int64
	nOutcomes        int32
	// unchecked: its verdict rests on final transcripts a failed set-up
	// kept the observer from reading (judgeSetups).
	unchecked bool
}

// sessionRow is one of the sessions a submission's prompts named, in
// order of first use.
type sessionRow struct{ session, next int32 }

// toRow counts a submission's prompt requests unanswered at one Agent
// process.
type toRow struct {
	proc    word
	n, next int32
}

// answerRow is a distinct (session, messageId) a success response to one
// of a submission's prompts named, with the response.
type answerRow struct {
	session, msg int32
	resp         respRef
	next         int32
}

// sub is the row of submission h, made at its first sight.
func (lg *ledger) sub(h int32, client word) *subRow {
	if h < 0 {
		h = noName // a submit or outcome naming none
	}
	s := byIndex(&lg.subs, h)
	if !s.seen {
		*s = subRow{seen: true, firstReq: none, lastReq: none, sessions: none, tos: none, answers: none, lastAnswer: none}
		lg.subOrder = append(lg.subOrder, h)
	}
	if s.client == wNone {
		s.client = client
	}
	return s
}

// linkRow is a link, and what its frames show per direction.
type linkRow struct {
	seen, observer, ended bool
	client, agent, note   word
	endSeq, endT          int64
	// byNum and byID are the heads and tails of the lists of requests
	// delivered with each id (reqRow.nextSameID): byNum by a small number,
	// byID the rest.
	byNum []idList
	nums  int // lists in byNum
	byID  map[rpcID]idList
	// nullErrs counts delivered entries whose id was unreadable: each is
	// owed an error with a null id.
	nullErrs int
	// lastCancelReq is 1 + the last $/cancel_request read on it; 0: none.
	lastCancelReq int32
	// firstOpen threads (reqRow.nextOpen) the requests delivered on it, in
	// delivery order; lastOpen is the last.
	firstOpen, lastOpen int32
	// initIDs are the ids of the initialize requests the Client side sent
	// on it that name protocolVersion: their answers are the Agent's
	// initialize results.
	initIDs []rpcID
	// ls threads (lsRow.next) what it shows of each session; lsN counts
	// them.
	ls, lsN int32
	// flight are the sends in flight, by direction, oldest first.
	flight [2]fifo[flightRow]
}

// idList is the first and last request delivered with one id on a link,
// each as 1 + its index (0: none), so that a zero idList is empty.
type idList struct{ first, last int32 }

// link is the row of link h, made at its first sight, its ends read from
// its name until a connect event says them.
func (lg *ledger) link(h int32) *linkRow {
	if h < 0 {
		h = noName
	}
	l := byIndex(&lg.links, h)
	if !l.seen {
		l.seen, l.ls, l.firstOpen, l.lastOpen = true, none, none, none
		if client, agent, ok := linkEnds(lg.in.Link(h)); ok {
			l.client, l.agent = lg.in.word(client), lg.in.word(agent)
			l.observer = l.client == wObserver
		}
		lg.linkOrder = append(lg.linkOrder, h)
	}
	return l
}
