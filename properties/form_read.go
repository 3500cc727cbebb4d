package properties

import (
	"strings"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/acp/jsonscan"
	"github.com/acpsim/acpsim/traces"
)

// Making the facts of an event (form.go): the Interner reads each event once,
// in order, and keeps what reading the next one needs: which end of each link
// is its Client, the sends in flight (to pair a delivery with its send), the
// ids of the session/list requests sent (to read an answer's list only where
// it may answer one), and which submissions have a text.

// formState is what the Interner keeps to make facts.
type formState struct {
	words     map[string]word
	wordNames []string
	// texts and textNames are made at the first text (Interner.text),
	// textHint in size.
	texts     map[string]int32
	textNames []string
	textHint  int
	// lists holds the sessions each session/list answer names, one run
	// after another (fact.listAt, listSize); peers what each initialize
	// frame says of its peer's version (fact.peer).
	lists []int32
	peers []acp.PeerVersion
	// subText: the submission of that handle has its text (its submit
	// event's, or a prompt's): a prompt's text is read only until then.
	subText []bool
	links   []formLink
	views   []msgView
	// again are the frames without a digest that name a protocol version
	// (a peer's initialize and its answer), read last, with what was read
	// of them: the same bytes come at every connect, and are read once.
	again    [4]readFrame
	nextRead uint8
	// recent are the words read last, by value: an event's ends and note
	// repeat from event to event (a link's two processes), and comparing
	// a short string costs less than hashing it into words.
	recent [8]recentWord
	next   uint8
}

// recentWord is a word read lately, as the interner keeps its string.
type recentWord struct {
	s string
	w word
}

// formLink is a link as fact making sees it.
type formLink struct {
	seen bool
	// client is its Client end's name, as the interner keeps strings: a
	// non-borrowing interner keeps no string of the caller's events.
	client string
	// flight are the sends in flight, by direction, oldest first.
	flight [2]fifo[inFlight]
	// listIDs are the ids of the session/list requests sent on it.
	listIDs []rpcID
	// ends are the last two words its events' From and To read as: the
	// two processes at its ends, nearly always.
	ends [2]recentWord
}

type inFlight struct {
	frame string
	seq   int64
}

// ready makes the tables at their first use: an Interner that only gives
// out handles (Step, ID) pays nothing for them.
func (f *formState) ready() {
	if f.words == nil {
		f.init()
	}
}

func (f *formState) init() {
	// The seeded words are found by seededWord, never in the table: it
	// holds the others (a run's processes, the update kinds no rule tests).
	f.words = make(map[string]word, 8)
	f.wordNames = make([]string, 0, 2*wordsSeeded)
	f.wordNames = append(f.wordNames, seededWords[:]...)
}

// reserveTexts sizes the texts' table, made at the first text an interner
// with no register reads, for a trace of about n events: a text in 12
// events or so (the bench history has one in 15), so that it is not grown
// again and again from empty.
func (in *Interner) reserveTexts(n int) { in.form.textHint = max(n/12, 0) }

// word is the handle of w.
func (in *Interner) word(w string) word {
	if w == "" {
		return wNone
	}
	if h := seededWord(w); h != wNone {
		return h
	}
	in.form.ready()
	f := &in.form
	for i := range f.recent {
		if r := &f.recent[i]; len(r.s) == len(w) && r.s == w {
			return r.w
		}
	}
	h := intern(f.words, &f.wordNames, w, in.borrow)
	// The string as the interner keeps it (a copy, unless it borrows the
	// caller's events): the event's own may be a caller's buffer.
	f.recent[f.next%uint8(len(f.recent))] = recentWord{f.wordNames[h], h}
	f.next++
	return h
}

// wordName is the string of word w.
func (in *Interner) wordName(w word) string {
	in.form.ready()
	return in.form.wordNames[w]
}

// text is the handle of a text (a prompt's, an update's, an error's
// message, a key's JSON); 0 for "".
//
// With the run's register (UseNames), texts are its strings too: a text a
// user typed, sent by its Client and echoed by the Agent, is found from
// its address; any other is registered there.
func (in *Interner) text(s string) int32 {
	if in.names != nil {
		return in.ID(s)
	}
	f := &in.form
	if f.texts == nil {
		f.texts = make(map[string]int32, f.textHint+1)
		f.texts[""] = 0
		f.textNames = make([]string, 1, f.textHint+1)
	}
	return intern(f.texts, &f.textNames, s, in.borrow)
}

// intern is the handle of s in table m, whose strings names holds by
// handle: given out at its first sight, the next in order. A borrowing
// interner keeps s itself, else a copy.
func intern[H ~int32](m map[string]H, names *[]string, s string, borrow bool) H {
	if h, ok := m[s]; ok {
		return h
	}
	if !borrow {
		s = strings.Clone(s)
	}
	h := H(len(*names))
	m[s] = h
	*names = append(*names, s)
	return h
}

// textName is the string of text handle h.
func (in *Interner) textName(h int32) string {
	switch {
	case in.names != nil:
		return in.names.Name(h)
	case h == 0:
		return "" // before any text was read
	}
	return in.form.textNames[h]
}

// list is the session ids of the session/list answer whose fact is x.
func (in *Interner) list(x *fact) []int32 { return in.form.lists[x.listAt : x.listAt+x.listSize] }

// peerOf is what the initialize frame of fact x says of its peer's version.
func (in *Interner) peerOf(x *fact) acp.PeerVersion { return in.form.peers[x.peer-1] }

// formLinkOf is the link of handle h, its Client read from its name at its
// first sight (linkEnds) until a connect event says it, as the ledger
// reads a link's ends (ledger.link).
func (in *Interner) formLinkOf(h int32) *formLink {
	if h < 0 {
		h = noName
	}
	l := byIndex(&in.form.links, h)
	if !l.seen {
		l.seen = true
		if client, _, ok := linkEnds(in.linkNames[h]); ok {
			l.client = client
		}
	}
	return l
}

// facts appends the facts of st's event to out: none for the kinds the
// checker does not read (traces.Bookkeeping, and any it does not know).
func (in *Interner) facts(st *Step, out []fact) []fact {
	in.form.ready()
	e := st.Event
	ev := kindWord(e.Kind)
	if ev == wNone {
		return out
	}
	x := fact{seq: e.Seq, t: e.T, ev: ev, link: st.Link, sub: st.Sub, note: in.word(e.Note)}
	var l *formLink
	if st.Link >= 0 {
		l = in.formLinkOf(st.Link)
		x.from, x.to = in.endWord(&l.ends, e.From), in.endWord(&l.ends, e.To)
	} else {
		x.from, x.to = in.word(e.From), in.word(e.To)
	}
	switch ev {
	case wSubmit:
		x.text, x.client = in.text(e.Text), in.word(e.Client)
		if st.Sub >= 0 {
			*byIndex(&in.form.subText, st.Sub) = true
		}
	case wOutcome:
		x.outcome, x.message, x.client = in.word(e.Outcome), st.Msg, in.word(e.Client)
	case wConnect:
		in.formLinkOf(st.Link).client = in.keep(e.From)
	case wDisconnect:
		// What was in flight is lost: no delivery pairs with it.
		l := in.formLinkOf(st.Link)
		l.flight[0].release()
		l.flight[1].release()
	case wSend, wDeliver, wDrop:
		if l == nil {
			l = in.formLinkOf(st.Link) // a frame event naming no link
		}
		return in.frameFacts(st, l, x, out)
	}
	return append(out, x)
}

// endWord is the word of s, an end of a link as its event names it: one
// of the two ends the link's events named last (a frame's From and To
// swap with its direction), else looked up and kept in the place of the
// older.
func (in *Interner) endWord(ends *[2]recentWord, s string) word {
	if ends[0].s == s {
		return ends[0].w
	}
	if ends[1].s == s {
		return ends[1].w
	}
	w := in.word(s)
	ends[1], ends[0] = ends[0], recentWord{in.form.wordNames[w], w}
	return w
}

// frameFacts appends the facts of a frame event on link l, x its event's.
func (in *Interner) frameFacts(st *Step, l *formLink, x fact, out []fact) []fact {
	e := st.Event
	x.dir = dirA2C
	switch {
	case e.Dir == traces.ClientToAgent:
		x.dir = dirC2A
	case e.Dir == traces.AgentToClient:
	case e.From == l.client:
		x.dir = dirC2A
	}
	sent := x.ev == wSend
	if !sent {
		if x.send = l.take(x.dir, e.Frame); x.send != 0 {
			return append(out, x)
		}
	} else {
		l.flight[x.dir].push(inFlight{e.Frame, e.Seq})
	}
	if v, ok := digestView(e); ok && sent && v.method != acp.MethodInitialize {
		// A digested frame is one message, read from its digest.
		v.ids, v.sessH, v.msgH, v.keyH = true, st.Session, st.Msg, st.Key
		x.entries = 1
		in.messageFact(l, &x, &v, st)
		return append(out, x)
	}
	var views []msgView
	var again *readFrame
	if again = in.readAgain(e.Frame); again != nil {
		views = again.views
	} else {
		views = viewFrame(e.Frame, in.form.views[:0])
		// The views point into the frame: the scratch keeps none of them
		// past this call, so that no frame outlives its event in the
		// interner.
		defer func() { clear(views); in.form.views = views[:0] }()
	}
	x.entries = int16(min(len(views), 1<<15-1))
	if len(views) == 0 {
		return append(out, x)
	}
	// A version is read from bytes only (again): no digested shape is an
	// initialize request or its answer (an InitializeResult gets none).
	version := sent && again != nil
	for i := range views {
		y := x
		y.entry = int16(min(i, 1<<15-1))
		in.messageFact(l, &y, &views[i], st)
		if version {
			at := &again.peers[i][y.dir]
			if *at < 0 {
				*at = in.peerFact(y.dir, &views[i])
			}
			y.peer = *at
		}
		out = append(out, y)
	}
	return out
}

// take is the number of the oldest send in flight in direction d with
// frame's bytes, taken out of flight; 0 for none.
func (l *formLink) take(d uint8, frame string) int64 {
	q := &l.flight[d]
	if q.head < len(q.q) && q.q[q.head].frame == frame {
		f, _ := q.takeFront() // nearly always: frames arrive in the order sent
		return f.seq
	}
	f, _ := q.take(func(x *inFlight) bool { return x.frame == frame })
	return f.seq
}

// messageFact fills y from message v of its frame.
func (in *Interner) messageFact(l *formLink, y *fact, v *msgView, st *Step) {
	y.msg = v.kind
	switch v.kind {
	case acp.KindInvalid:
		y.id, y.nullID = in.rpcIDOf(v.errID), v.errID == "null"
		return
	case acp.KindResponse:
		y.id, y.nullID = in.rpcIDOf(v.id), v.id == "null"
		if y.dir == dirC2A {
			return // a Client's answer to the Agent: no rule reads it
		}
		if v.hasErr {
			y.hasErr, y.errCode, y.errMsg = true, int32(v.errCode), in.text(v.errMsg)
			return
		}
		// The request it answers is the ledger's to find: read what any
		// success result may say.
		y.message = in.idOf(v.ids, v.msgH, v.messageID())
		y.session = in.idOf(v.ids, v.sessH, v.resultSession())
		if y.dir == dirA2C && l.askedList(y.id) {
			in.listFact(y, v)
		}
		return
	}
	y.id, y.method = in.rpcIDOf(v.id), in.word(v.method)
	switch {
	case y.dir == dirA2C && y.method == wSessionUpdate:
		if u, ok := v.update(); ok {
			y.session, y.message = in.idOf(u.ids, u.sessionH, u.session), in.idOf(u.ids, u.msgH, u.msgID)
			y.update, y.state, y.content = in.word(u.kind), in.word(u.state), u.hasContent()
			if y.update == wUserMessage || y.update == wUserMessageChunk {
				y.text = in.text(u.text()) // no rule reads another update's text
			}
		} else {
			y.update = -1 // unreadable
		}
	case y.dir == dirA2C:
	case y.method == wSessionPrompt && v.kind == acp.KindRequest:
		in.promptFact(y, v, st)
	case y.method == wSessionCancel && v.kind == acp.KindNotification:
		y.session = in.ID(v.sessionParam())
	case y.method == wCancelRequest && v.kind == acp.KindNotification:
		y.cancels = in.rpcIDOf(readRequestID(v.rawParams()))
	case v.kind != acp.KindRequest:
	case y.method == wSessionClose, y.method == wSessionFork, y.method == wSessionResume, y.method == wSessionLoad:
		y.session = in.idOf(v.ids, v.sessH, v.sessionParam())
	case y.method == wSessionList:
		l.listIDs = append(l.listIDs, y.id)
	}
}

// idOf is the handle of id s: h, when the digest gave it (ids).
func (in *Interner) idOf(ids bool, h int32, s string) int32 {
	if ids {
		return h
	}
	return in.ID(s)
}

// promptFact reads a session/prompt request's session, key and text.
func (in *Interner) promptFact(y *fact, v *msgView, st *Step) {
	p := v.prompt()
	y.session = in.idOf(v.ids, v.sessH, p.session)
	key, present, bad := promptKey(p.key, v.dig != nil) // a digest's strings are valid UTF-8
	switch {
	case bad:
		y.keyState, y.keyRaw = keyBad, in.text(p.key)
		if k, ok := jsonscan.StringField(p.key); ok && p.key[0] == '"' {
			y.key = in.ID(k)
		}
	case present && v.ids && key == v.dig.Key():
		y.keyState, y.key = keyValid, v.keyH
	case present:
		y.keyState, y.key = keyValid, in.ID(key)
	case p.key == "null":
		y.keyState = keyNull
	}
	if st.Sub < 0 {
		return
	}
	has := byIndex(&in.form.subText, st.Sub)
	if *has {
		return
	}
	text := p.text
	if !p.hasText {
		var blocks []acp.ContentBlock
		_ = json.Unmarshal([]byte(p.prompt), &blocks)
		text = acp.PromptText(blocks)
	}
	y.textRead, y.text, *has = true, in.text(text), text != ""
}

// keep is s as the interner keeps a string: itself when it borrows, else
// a copy, so that no string of the caller's events stays in its tables.
func (in *Interner) keep(s string) string {
	if in.borrow {
		return s
	}
	return strings.Clone(s)
}

// askedList reports whether a session/list request with id was sent on l.
func (l *formLink) askedList(id rpcID) bool {
	for _, x := range l.listIDs {
		if x == id {
			return true
		}
	}
	return false
}

// listFact reads a session/list answer's sessions: listed only when the
// whole result decodes, since a list read in part would make sessions it
// names look gone.
func (in *Interner) listFact(y *fact, v *msgView) {
	var res acp.ListSessionsResult
	if json.Unmarshal([]byte(v.rawResult()), &res) != nil {
		return
	}
	y.listed, y.listAt = true, int32(len(in.form.lists))
	for _, si := range res.Sessions {
		in.form.lists = append(in.form.lists, in.ID(si.SessionID))
	}
	y.listSize = int32(len(in.form.lists)) - y.listAt
}

// peerFact is the fact.peer of message bv sent in direction dir: what an
// initialize request or a success answer says of its peer's version, read
// from its bytes.
func (in *Interner) peerFact(dir uint8, bv *msgView) int32 {
	var raw string
	switch {
	case dir == dirC2A && bv.kind == acp.KindRequest && bv.method == acp.MethodInitialize:
		raw = bv.params
	case dir == dirA2C && bv.kind == acp.KindResponse && !bv.hasErr:
		raw = bv.result
	default:
		return 0
	}
	in.form.peers = append(in.form.peers, acp.ReadPeerVersionValid(raw))
	return int32(len(in.form.peers))
}
