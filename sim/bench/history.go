// Package bench builds the large histories behind the speed figures of
// docs/design.md#performance-targets that no single simulated seed reaches: a fleet of keyed
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
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim"
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
	// Names is the register its ids (sessions, messages, keys) were minted
	// into, as the simulator's are (sim.Names): the digests name the
	// minted strings.
	Names *sim.Names
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
	g := &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x62656e6368)), h: &History{Names: sim.NewNames()}}
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
	typed
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
	id, _ := g.h.Names.Mint(unsafe.String(&b[0], len(b))) // Mint keeps its own copy
	return id
}
