// This file holds the reference Agent's state: the Agent and its sessions,
// the prompts it holds and who waits for them, the strategy hook a model
// built on it (the adapter) plugs in, and the helpers that look sessions up
// and queue outputs.

package agent

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent/store"
)

// Reference is the name of the reference Agent.
const Reference = "reference"

func init() {
	Register(Reference, "the reference Agent: every rule of the RFD", func(k Knobs, open StoreOpener, env Env) Machine {
		st := open()
		if k.Keys == KeysMemory {
			st = InMemoryBindings(st)
		}
		return New(k, st, env)
	})
}

// Agent is the reference Agent: sessions, one user message inserted per
// prompt, idempotency keys honoured per the RFD, and the session, the message
// and the key binding written to the store in one batch before the response.
type Agent struct {
	knobs Knobs
	st    store.Store
	env   Env
	// digest describes the frame of the request being handled, when it came
	// with one (acp.Parsed.Digest): a prompt's params are read from it (the
	// Client's own strings), not decoded from the bytes again.
	digest *acp.Digest

	conns    map[string]*connState
	sessions map[string]*session
	timers   map[int]string // timer id → session id
	// windows are, under key-window, the bindings whose window a timer
	// (by id) ends.
	windows map[int]store.Binding
	// createKeys are, under create-keys=memory, the session/new keys this
	// process answered, with the session each made.
	createKeys map[string]string
	batches    map[waiter][]*batchReply
	nextTmr    int
	out        []Output
	digs       acp.Digests // the digests of out's frames
	// strat stores user messages and recognizes keys for a model that
	// reuses this protocol handling (the adapter); nil is the reference's
	// own store batch with a key binding.
	strat strategy
	begun bool // the process has had its first input
}

// strategy is how a model built on the reference Agent's protocol handling
// stores a user message and recognizes a key it was inserted with.
type strategy interface {
	// recognized returns the messageId the key of session s was inserted
	// with and the step that answers it, if the strategy knows it.
	recognized(s *session, key string) (messageID, step string, ok bool)
	// submit stores the user message of h (appending its outputs to a.out)
	// and returns it.
	submit(s *session, h *heldPrompt) store.Message
	// history is what a resume replays and a fork copies.
	history(s *session) []store.Message
	// started is the first input of the process: the strategy may set a
	// timer (it has the next timer id).
	started(timerID int) []Output
	// defer queues a request the strategy is not ready to serve yet; ready
	// returns the queued ones when timer id fires (ok: it was its timer).
	defer_(conn string, m *acp.Message) bool
	ready(id int) (queued []queuedPrompt, ok bool)
}

// queuedPrompt is a prompt request a strategy put aside.
type queuedPrompt struct {
	conn string
	m    acp.Message
}

// historyOf is the stored history of s: the reference's own, or the
// strategy's.
func (a *Agent) historyOf(s *session) []store.Message {
	if a.strat != nil {
		return a.strat.history(s)
	}
	return s.history
}

type session struct {
	rec     store.Session
	conn    string // the connection it is active on, "" if none
	history []store.Message
	// stamp is the store's Version of the session's messages when history
	// was last known to equal them (stamped: the store has versions).
	stamp   uint64
	stamped bool
	state   string
	// work in progress
	chunksLeft int
	agentMsg   string
	agentText  string
	timer      int
	held       []*heldPrompt
	pending    map[string]*heldPrompt // key → held prompt carrying it
	// liveKeys binds the keys of live-only messages while the session stays
	// active on conn; deactivating the session forgets them.
	liveKeys map[string]string
	// unbound are, under binding=after-turn, the bindings of the messages
	// this process inserted whose turn has not ended: in its memory only.
	unbound []store.Binding
}

// activate makes the session active on conn. Moving it to another
// connection (or to none) ends the life of its live-only keys.
func (s *session) activate(conn string) {
	if s.conn != conn {
		s.liveKeys = nil
	}
	s.conn = conn
}

// heldPrompt is a prompt not inserted yet; reqs are every request waiting
// for its outcome (the original and the keyed retries).
type heldPrompt struct {
	key     string
	hasKey  bool
	text    string
	prompt  []acp.ContentBlock
	waiters []waiter
}

type waiter struct {
	conn string
	id   acp.ID
}

// New starts a reference Agent process over st; sessions, messages and
// bindings that st kept are loaded, every session inactive and idle.
func New(k Knobs, st store.Store, env Env) *Agent {
	a := &Agent{knobs: k, st: st, env: env, conns: map[string]*connState{}, sessions: map[string]*session{}, timers: map[int]string{}, batches: map[waiter][]*batchReply{}}
	for _, rec := range st.Sessions() {
		s := &session{rec: rec, state: acp.StateIdle, pending: map[string]*heldPrompt{}}
		a.loadHistory(s)
		a.sessions[rec.ID] = s
	}
	return a
}

// flush hands out a step's outputs. Steps fill one block of outputs in
// turn, each handed its part capped at its length (an append by the caller
// cannot reach the next step's), so that a step does not allocate and grow
// a slice of its own.
func (a *Agent) flush() []Output {
	out := a.out[:len(a.out):len(a.out)]
	a.out = a.out[len(a.out):]
	if cap(a.out) < 4 {
		a.out = make([]Output, 0, 32)
	}
	return out
}

func (a *Agent) send(conn, step string, frame []byte) { a.sendDigest(conn, step, frame, acp.Digest{}) }

// sendDigest is send with what the frame says (acp.Digest).
func (a *Agent) sendDigest(conn, step string, frame []byte, d acp.Digest) {
	a.out = append(a.out, Output{Kind: OutSend, Step: step, Conn: conn, Frame: frame, Digest: a.digs.Keep(frame, d)})
}

func (a *Agent) update(s *session, step string, u acp.Update) {
	if s.conn == "" {
		return // no connection to tell: live updates are lost, replay recovers them
	}
	frame, d := acp.UpdateFrameDigest(s.rec.ID, u)
	a.sendDigest(s.conn, step, frame, d)
}

// sortedSessions lists sessions in creation order, never in map order.
func (a *Agent) sortedSessions() []*session {
	out := make([]*session, 0, len(a.sessions))
	for _, rec := range a.st.Sessions() {
		if s, ok := a.sessions[rec.ID]; ok {
			out = append(out, s)
		}
	}
	return out
}

// session returns the session, reading it from the store when this process
// has not seen it: another node sharing the store may have created it.
func (a *Agent) session(id string) *session {
	if s := a.sessions[id]; s != nil {
		return s
	}
	for _, rec := range a.st.Sessions() {
		if rec.ID == id {
			s := &session{rec: rec, state: acp.StateIdle, pending: map[string]*heldPrompt{}}
			a.loadHistory(s)
			a.sessions[id] = s
			return s
		}
	}
	return nil
}

// active returns the session if it is active on conn.
func (a *Agent) active(conn, id string) *session {
	s := a.sessions[id]
	if s == nil || s.conn != conn {
		return nil
	}
	return s
}
