// Package bench builds the large histories behind the speed figures of
// DESIGN.md §7 that no single simulated seed reaches: a fleet of keyed
// Clients, each with its own Agent over stdio, submitting prompts while
// links are cut, requests and responses are lost, attempts are rejected and
// some Clients give up with "unknown". Generate writes the history twice
// from one pass: as a trace, frame by frame as the simulator writes one, for
// acpsim's checker, and as operations (one per prompt attempt, plus the
// observer's final read of every transcript) for a general linearizability
// checker. The benchmarks that time both, and the porcupine model, are in
// this package's tests; nothing here imports porcupine.
package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// Config sizes a history. The fractions are of submissions and are drawn
// per submission; they need not add up to 1 (the rest go through at once).
type Config struct {
	Submissions int
	Clients     int // each with its own Agent installation
	Sessions    int // per Client
	// Unknown: the Client gives up after its first attempt and tells the
	// user "unknown"; half of those attempts were inserted before the link
	// was cut, half were lost with the link before the Agent read them.
	Unknown float64
	// LostResponse: the link is cut after the Agent inserted and answered;
	// the Client reconnects, resumes and retries with the same key, and is
	// answered from the binding.
	LostResponse float64
	// LostRequest: the link is cut with the request in flight; the retry
	// is inserted.
	LostRequest float64
	// Reject: the first attempt gets a transient -32603 before insertion
	// and the Client retries at once.
	Reject float64
	// Duplicates plants submissions that the Agent inserts twice: a lost
	// response, then a keyed retry the Agent does not recognise.
	Duplicates int
	Seed       uint64
}

// Defaults returns the configuration of the published figures for n
// submissions: 8 Clients with 2 sessions each, 10% unknown outcomes, 10%
// lost responses, 5% lost requests, 3% rejected attempts, no duplicate.
func Defaults(n int) Config {
	return Config{Submissions: n, Clients: 8, Sessions: 2, Unknown: 0.10, LostResponse: 0.10, LostRequest: 0.05, Reject: 0.03, Seed: 1}
}

// Result is what a Client learned from one prompt attempt.
type Result int

const (
	Inserted Result = iota // a success response naming the message
	Failed                 // an error response: the Agent did not insert it
	Unknown                // no response: inserted or not, the Client cannot tell
)

func (r Result) String() string {
	switch r {
	case Inserted:
		return "inserted"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// Attempt is one session/prompt request as an operation on the transcript.
// Call is when the Client wrote the request. Return is when it read the
// response or, for an attempt it never got one for, the last moment the
// trace allows the attempt to take effect: when the Agent wrote its
// response, or when the link and the Agent process reading it ended.
// Times are the trace's virtual microseconds.
type Attempt struct {
	Client    int // 0-based
	Sub       int // 0-based submission index; its text is unique
	Call      int64
	Return    int64
	Result    Result
	MessageID string // with Inserted
}

// Read is the observer's reading of every final transcript, from its first
// session/resume to the last answer: the submission of each user message,
// identified by its text, in transcript order.
type Read struct {
	Call, Return int64
	Subs         []int
}

// History is one generated run.
type History struct {
	Header   traces.Header
	Events   []traces.Event
	Attempts []Attempt // in the order the Clients wrote them
	Read     Read
	Texts    []string // per submission
	// Planted are the submissions inserted twice.
	Planted []int
}

// Timing, in virtual microseconds, as the simulator's defaults.
const (
	latency = 500    // one way, every frame
	backoff = 25_000 // a Client's wait before it reconnects
	maxGap  = 10_000 // a user's longest pause between submissions
)

// Generate builds the history of cfg. It is a function of cfg alone.
func Generate(cfg Config) *History {
	if cfg.Clients < 1 || cfg.Sessions < 1 || cfg.Submissions < 0 {
		panic(fmt.Sprintf("bench: bad config %+v", cfg))
	}
	g := &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x62656e6368)), h: &History{}}
	g.h.Header = traces.Header{
		Format: traces.FormatVersion, Tool: "acpsim bench", Source: traces.SourceSeed, Seed: cfg.Seed,
		Policy: "keyed", Agent: "reference", Link: "stdio",
		Clients: cfg.Clients, Sessions: cfg.Sessions, Prompts: (cfg.Submissions + cfg.Clients - 1) / cfg.Clients,
		Contract: traces.Contract{Retention: "all"}, KeyLengthUnit: acp.KeyLengthUnit,
		Command: fmt.Sprintf("bench.Generate(%+v)", cfg),
	}
	// About 13 events per submission; one allocation for a million.
	g.h.Events = make([]traces.Event, 0, 16*cfg.Submissions+64*cfg.Clients)
	g.h.Texts = make([]string, cfg.Submissions)
	g.h.Attempts = make([]Attempt, 0, cfg.Submissions+cfg.Submissions/4)
	for i := range cfg.Duplicates {
		g.h.Planted = append(g.h.Planted, (cfg.Submissions/2+i*7919)%max(cfg.Submissions, 1))
	}
	g.transcripts = map[string][]tmsg{}
	for c := range cfg.Clients {
		cl := &client{g: g, idx: c, name: fmt.Sprintf("c%d", c+1), agent: fmt.Sprintf("a%d", c+1)}
		for s := c; s < cfg.Submissions; s += cfg.Clients {
			cl.subs = append(cl.subs, s)
		}
		g.clients = append(g.clients, cl)
	}
	g.run()
	g.observe()
	return g.h
}

type gen struct {
	cfg         Config
	rng         *rand.Rand
	h           *History
	clients     []*client
	transcripts map[string][]tmsg // per session, in insertion order
}

type tmsg struct {
	id, text string
	sub      int
}

// run interleaves the Clients in virtual time: each writes the events of its
// next submission into its buffer, and the earliest buffered event goes next.
func (g *gen) run() {
	for _, c := range g.clients {
		c.t = int64(c.idx) * 137 // staggered starts
		c.start()
	}
	for {
		var next *client
		for _, c := range g.clients {
			if c.head == len(c.buf) && !c.refill() {
				continue
			}
			if next == nil || c.buf[c.head].T < next.buf[next.head].T {
				next = c
			}
		}
		if next == nil {
			return
		}
		g.emit(next.buf[next.head])
		next.buf[next.head] = traces.Event{}
		next.head++
	}
}

func (g *gen) emit(e traces.Event) {
	e.Seq = int64(len(g.h.Events) + 1)
	g.h.Events = append(g.h.Events, e)
}

func (g *gen) uuid() string {
	const hex = "0123456789abcdef"
	var b [36]byte
	x, y := g.rng.Uint64(), g.rng.Uint64()
	x = x&^(0xf<<12) | 4<<12 // version 4
	y = y&^(3<<62) | 2<<62   // variant
	j := 0
	for i := range 36 {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
			continue
		}
		var n uint64
		if j < 16 {
			n = x >> (60 - 4*j) & 0xf
		} else {
			n = y >> (60 - 4*(j-16)) & 0xf
		}
		b[i] = hex[n]
		j++
	}
	return string(b[:])
}

// client is one Client and its Agent installation.
type client struct {
	g           *gen
	idx         int
	name, agent string
	inc         int    // the Agent process's incarnation
	link, proc  string // "" when the link is down
	nextID      int64
	sessions    []string
	t           int64 // the Client's clock: when it acts next
	subs        []int
	done        int
	buf         []traces.Event
	head        int
	held        []traces.Event // the observer's deliveries, held until its replay is sent
}

func (c *client) add(e traces.Event) {
	if n := len(c.buf); n > c.head && e.T < c.buf[n-1].T {
		panic(fmt.Sprintf("bench: %s's events go back in time: %+v after %+v", c.name, e, c.buf[n-1]))
	}
	c.buf = append(c.buf, e)
}

func (c *client) frame(kind string, t int64, dir string, frame string, sub int, note string) string {
	e := traces.Event{T: t, Kind: kind, Link: c.link, Dir: dir, Frame: frame, Note: note}
	if dir == traces.ClientToAgent {
		e.From, e.To = c.name, c.proc
	} else {
		e.From, e.To = c.proc, c.name
	}
	if sub >= 0 {
		e.Sub = subName(sub)
	}
	c.add(e)
	return e.Frame
}

// exchange sends frames in one direction at t and delivers them a latency
// later; it returns the delivery time.
func (c *client) exchange(t int64, dir string, sub int, frames ...[]byte) int64 {
	start := len(c.buf)
	for _, f := range frames {
		c.frame(traces.KindSend, t, dir, string(f), sub, "")
	}
	for i := range frames {
		c.frame(traces.KindDeliver, t+latency, dir, c.buf[start+i].Frame, sub, "")
	}
	return t + latency
}

func (c *client) id() acp.ID {
	c.nextID++
	return acp.NumID(c.nextID)
}

func subName(i int) string { return fmt.Sprintf("s%d", i+1) }

// start connects the Client and creates its sessions.
func (c *client) start() {
	c.connect()
	var reqs, resps [][]byte
	for range c.g.cfg.Sessions {
		id := c.id()
		s := c.g.uuid()
		c.sessions = append(c.sessions, s)
		reqs = append(reqs, acp.Request(id, acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/work/" + c.name}))
		resps = append(resps, acp.Result(id, acp.NewSessionResult{SessionID: s}))
	}
	t := c.exchange(c.t, traces.ClientToAgent, -1, reqs...)
	c.t = c.exchange(t, traces.AgentToClient, -1, resps...)
}

// connect starts a new Agent process, connects to it and initializes; after
// a reconnect the Client resumes its sessions.
func (c *client) connect() {
	c.inc++
	c.proc = fmt.Sprintf("%s#%d", c.agent, c.inc)
	c.link = c.name + ":" + c.proc
	c.nextID = 0
	c.add(traces.Event{T: c.t, Kind: traces.KindRestart, From: c.proc})
	c.add(traces.Event{T: c.t, Kind: traces.KindConnect, Link: c.link, From: c.name, To: c.proc})
	id := c.id()
	t := c.exchange(c.t, traces.ClientToAgent, -1, acp.Request(id, acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion, Info: acp.Implementation{Name: "acpsim-keyed", Version: "0"}}))
	t = c.exchange(t, traces.AgentToClient, -1, acp.Result(id, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion, Info: acp.Implementation{Name: "acpsim-reference", Version: "0"}}))
	if len(c.sessions) > 0 {
		var reqs, resps [][]byte
		for _, s := range c.sessions {
			id := c.id()
			reqs = append(reqs, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: s, Cwd: "/work/" + c.name}))
			resps = append(resps, acp.UpdateFrame(s, acp.StateUpdate(acp.StateIdle, "")), acp.Result(id, nil))
		}
		t = c.exchange(t, traces.ClientToAgent, -1, reqs...)
		t = c.exchange(t, traces.AgentToClient, -1, resps...)
	}
	c.t = t
}

// cut ends the link at t with the given frames in flight (Agent to Client
// unless c2a), as the simulator's cut does: drops, disconnect, the Agent
// process reads EOF and exits.
func (c *client) cut(t int64, dir string, sub int, frames ...string) {
	for _, f := range frames {
		e := traces.Event{T: t, Kind: traces.KindDrop, Link: c.link, Dir: dir, Frame: f, Note: "cut"}
		if dir == traces.ClientToAgent {
			e.From, e.To = c.name, c.proc
			e.Sub = subName(sub)
		} else {
			e.From, e.To = c.proc, c.name
		}
		c.add(e)
	}
	c.add(traces.Event{T: t, Kind: traces.KindDisconnect, Link: c.link, From: c.name, To: c.proc, Note: "cut"})
	c.add(traces.Event{T: t, Kind: traces.KindKill, From: c.proc, Note: "cut"})
	c.link, c.proc = "", ""
}

// refill writes the Client's next submission into its buffer; false when it
// has none left.
func (c *client) refill() bool {
	c.buf, c.head = c.buf[:0], 0
	if c.done == len(c.subs) {
		return false
	}
	sub := c.subs[c.done]
	c.done++
	c.submission(sub)
	return true
}

// kinds of submission
const (
	kindOK = iota
	kindLostResponse
	kindLostRequest
	kindReject
	kindUnknownInserted
	kindUnknownLost
	kindDuplicate
)

func (g *gen) kind(sub int) int {
	for _, p := range g.h.Planted {
		if p == sub {
			g.rng.Float64() // keep the draws of the others in place
			return kindDuplicate
		}
	}
	u := g.rng.Float64()
	cfg := g.cfg
	switch {
	case u < cfg.Unknown/2:
		return kindUnknownInserted
	case u < cfg.Unknown:
		return kindUnknownLost
	case u < cfg.Unknown+cfg.LostResponse:
		return kindLostResponse
	case u < cfg.Unknown+cfg.LostResponse+cfg.LostRequest:
		return kindLostRequest
	case u < cfg.Unknown+cfg.LostResponse+cfg.LostRequest+cfg.Reject:
		return kindReject
	}
	return kindOK
}

type pending struct {
	sub           int
	session, text string
	key           string
}

func (c *client) submission(sub int) {
	g := c.g
	c.t += 1 + int64(g.rng.IntN(maxGap))
	p := pending{sub: sub, session: c.sessions[g.rng.IntN(len(c.sessions))], key: g.uuid()}
	p.text = fmt.Sprintf("%s #%d", users.Texts[g.rng.IntN(12)], sub+1)
	g.h.Texts[sub] = p.text
	kind := g.kind(sub)
	if c.link == "" {
		c.connect()
	}
	c.add(traces.Event{T: c.t, Kind: traces.KindSubmit, Client: c.name, Sub: subName(sub), Text: p.text})
	switch kind {
	case kindOK:
		c.t = c.insertNew(p, c.t)
	case kindReject:
		c.t = c.reject(p, c.t)
		c.t = c.insertNew(p, c.t)
	case kindLostResponse, kindDuplicate, kindUnknownInserted:
		msg, t := c.insertCut(p, c.t)
		if kind == kindUnknownInserted {
			c.add(traces.Event{T: t, Kind: traces.KindOutcome, Client: c.name, Sub: subName(sub), Outcome: traces.OutcomeUnknown})
			c.t = t
			return
		}
		c.t = t + backoff
		c.connect()
		if kind == kindDuplicate {
			c.t = c.insertNew(p, c.t) // the Agent forgot the key: a second message
		} else {
			c.t = c.fromBinding(p, c.t, msg)
		}
	case kindLostRequest, kindUnknownLost:
		c.lostRequest(p, c.t)
		if kind == kindUnknownLost {
			c.add(traces.Event{T: c.t, Kind: traces.KindOutcome, Client: c.name, Sub: subName(sub), Outcome: traces.OutcomeUnknown})
			return
		}
		c.t += backoff
		c.connect()
		c.t = c.insertNew(p, c.t)
	}
}

func (c *client) promptFrame(id acp.ID, p pending) []byte {
	return acp.Request(id, acp.MethodSessionPrompt, acp.PromptParams{SessionID: p.session, Prompt: []acp.ContentBlock{acp.Text(p.text)}, IdempotencyKey: acp.KeyJSON(p.key)})
}

func (c *client) attempt(a Attempt) {
	a.Client = c.idx
	c.g.h.Attempts = append(c.g.h.Attempts, a)
}

// insertNew: the attempt at t is delivered, inserted and answered, and the
// Agent echoes the user message. (Its turn, the state updates and its own
// output, is left out: it costs the checker what any frame costs, and a
// million submissions' trace must fit in memory.)
func (c *client) insertNew(p pending, t int64) int64 {
	g := c.g
	id := c.id()
	td := c.exchange(t, traces.ClientToAgent, p.sub, c.promptFrame(id, p))
	msg := g.uuid()
	tr := c.exchange(td, traces.AgentToClient, -1,
		acp.Result(id, acp.PromptResult{MessageID: msg}),
		acp.UpdateFrame(p.session, acp.MessageUpdate(acp.UpdateUserMessage, msg, p.text)))
	c.add(traces.Event{T: tr, Kind: traces.KindOutcome, Client: c.name, Sub: subName(p.sub), Outcome: traces.OutcomeInserted, MessageID: msg})
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: tr, Result: Inserted, MessageID: msg})
	g.transcripts[p.session] = append(g.transcripts[p.session], tmsg{msg, p.text, p.sub})
	return tr
}

// reject: the attempt at t is refused before insertion.
func (c *client) reject(p pending, t int64) int64 {
	id := c.id()
	td := c.exchange(t, traces.ClientToAgent, p.sub, c.promptFrame(id, p))
	tr := c.exchange(td, traces.AgentToClient, -1, acp.ErrorResponse(id, acp.Errorf(acp.CodeInternalError, "internal error: transient failure before insertion")))
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: tr, Result: Failed})
	return tr
}

// insertCut: the attempt at t is delivered and inserted; the link is cut as
// the Agent answers, so the response never arrives.
func (c *client) insertCut(p pending, t int64) (msg string, end int64) {
	g := c.g
	id := c.id()
	td := c.exchange(t, traces.ClientToAgent, p.sub, c.promptFrame(id, p))
	msg = g.uuid()
	frames := []string{
		c.frame(traces.KindSend, td, traces.AgentToClient, string(acp.Result(id, acp.PromptResult{MessageID: msg})), -1, ""),
		c.frame(traces.KindSend, td, traces.AgentToClient, string(acp.UpdateFrame(p.session, acp.MessageUpdate(acp.UpdateUserMessage, msg, p.text))), -1, ""),
	}
	c.cut(td, traces.AgentToClient, p.sub, frames...)
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: td, Result: Unknown})
	g.transcripts[p.session] = append(g.transcripts[p.session], tmsg{msg, p.text, p.sub})
	return msg, td
}

// lostRequest: the attempt at t is lost with the link before the Agent
// reads it.
func (c *client) lostRequest(p pending, t int64) {
	id := c.id()
	f := c.frame(traces.KindSend, t, traces.ClientToAgent, string(c.promptFrame(id, p)), p.sub, "")
	c.cut(t, traces.ClientToAgent, p.sub, f)
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: t, Result: Unknown})
}

// fromBinding: the retry at t is answered with the message its key is bound
// to, and nothing is inserted.
func (c *client) fromBinding(p pending, t int64, msg string) int64 {
	id := c.id()
	td := c.exchange(t, traces.ClientToAgent, p.sub, c.promptFrame(id, p))
	tr := c.exchange(td, traces.AgentToClient, -1, acp.Result(id, acp.PromptResult{MessageID: msg}))
	c.add(traces.Event{T: tr, Kind: traces.KindOutcome, Client: c.name, Sub: subName(p.sub), Outcome: traces.OutcomeInserted, MessageID: msg})
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: tr, Result: Inserted, MessageID: msg})
	return tr
}

// observe heals the run and reads every final transcript, as the simulator's
// observer does: a fresh Agent process per installation, initialize,
// session/list, then a replaying session/resume per session.
func (g *gen) observe() {
	var t int64
	for _, c := range g.clients {
		t = max(t, c.t)
	}
	t += 1000
	g.emit(traces.Event{T: t, Kind: traces.KindHeal})
	for _, c := range g.clients {
		if c.link != "" {
			g.emit(traces.Event{T: t, Kind: traces.KindDisconnect, Link: c.link, From: c.name, To: c.proc, Note: "close"})
		}
	}
	g.h.Read.Call = -1
	for _, c := range g.clients {
		o := &client{g: g, name: traces.Observer, agent: c.agent, inc: c.inc, t: t}
		o.connect()
		id := o.id()
		var infos []acp.SessionInfo
		for _, s := range c.sessions {
			infos = append(infos, acp.SessionInfo{SessionID: s, Cwd: "/work/" + c.name})
		}
		tt := o.exchange(o.t, traces.ClientToAgent, -1, acp.Request(id, acp.MethodSessionList, acp.ListSessionsParams{}))
		tt = o.exchange(tt, traces.AgentToClient, -1, acp.Result(id, acp.ListSessionsResult{Sessions: infos}))
		o.flush()
		for _, s := range c.sessions {
			id := o.id()
			if g.h.Read.Call < 0 {
				g.h.Read.Call = tt
			}
			tt = o.exchange(tt, traces.ClientToAgent, -1, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: s, Cwd: "/", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}))
			o.flush()
			msgs := g.transcripts[s]
			for i := 0; i < len(msgs); i += 1024 { // in batches, to keep the buffer small
				batch := make([][]byte, 0, 1024)
				for _, m := range msgs[i:min(i+1024, len(msgs))] {
					batch = append(batch, acp.UpdateFrame(s, acp.MessageUpdate(acp.UpdateUserMessage, m.id, m.text)))
					g.h.Read.Subs = append(g.h.Read.Subs, m.sub)
				}
				o.exchange(tt, traces.AgentToClient, -1, batch...)
				o.flushSends()
			}
			tt = o.exchange(tt, traces.AgentToClient, -1, acp.UpdateFrame(s, acp.StateUpdate(acp.StateIdle, "")), acp.Result(id, nil))
			o.flushSends()
			o.flush()
			g.h.Read.Return = tt
		}
		t = tt
	}
	g.emit(traces.Event{T: t + 1000, Kind: traces.KindEnd, Note: traces.EndQuiet})
}

// flush emits the observer's buffered events.
func (c *client) flush() {
	for _, e := range c.held {
		c.g.emit(e)
	}
	for _, e := range c.buf[c.head:] {
		c.g.emit(e)
	}
	c.buf, c.head = c.buf[:0], 0
	c.held = c.held[:0]
}

// flushSends emits the buffered sends of a replay and holds its deliveries
// back, so that every frame of the replay is sent before the first arrives.
func (c *client) flushSends() {
	for _, e := range c.buf[c.head:] {
		if e.Kind == traces.KindSend {
			c.g.emit(e)
		} else {
			c.held = append(c.held, e)
		}
	}
	c.buf, c.head = c.buf[:0], 0
}
