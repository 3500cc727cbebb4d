// This file holds the model Client's state (its sessions, requests,
// submissions and timers), New and Start, and the helpers a step uses to
// send requests, set timers and report outcomes.

package client

import (
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Client is a model Client with one of the Policies.
type Client struct {
	cfg Config
	env Env

	conn    string
	ready   bool // initialize answered on conn
	nextReq int64
	reqs    map[acp.ID]request
	// idStyle (an index of idStyles) and idStart are how the connection
	// numbers its requests; conns counts connections, naming each draw.
	idStyle int
	idStart int64
	conns   int

	sessions []*clientSession
	subs     []*submission
	// pending are the unresolved submissions among subs, in order (live
	// drops the resolved; resolvedPending counts those it still holds):
	// what the hot paths read.
	pending         []*submission
	resolvedPending int
	timers          map[int]timer
	nextTmr         int
	out             []Output
	digs            acp.Digests // the digests of out's frames

	// justDone are the submissions resolved by the current step: their
	// outcomes are among the step's outputs, which the host has not applied
	// yet, so a Client that dies now has not told the user and must still
	// count them as pending (Persisted).
	justDone []*submission
	// attributed maps session id + "\x00" + messageId to the submission the
	// message belongs to, as far as the Client knows: from responses and
	// from lookups. A lookup never claims a message attributed to another.
	attributed map[string]string
	// keys are every key the Client made, with its session (persisted);
	// keySet holds the same keys, to look one up.
	keys   []SavedKey
	keySet map[SavedKey]struct{}
	// cancels counts the user's cancels by $/cancel_request, naming each
	// one's draw.
	cancels int
}

type clientSession struct {
	id string // "" until session/new answered
	// createKey is the key of the session/new attempts while id is ""
	// (Policy.KeyedCreate).
	createKey string
	// v1Users counts the user messages of the replay under way, and
	// v1UserOpen says whether the last update was one of them (v1.go).
	v1Users    int
	v1UserOpen bool
	state      sessState
	// replaying is set while a session/resume with replay from the start is
	// outstanding; seen collects the user messages it replays, in order.
	replaying bool
	seen      []seenMessage
	// setupErrors counts the set-up requests of the session answered with
	// an error since it was last set up; gaveUp: they reached
	// Config.SetupAttempts and the Client stopped trying (setup.go).
	setupErrors int
	gaveUp      bool
	// cancelOnStall counts the user's cancels waiting for a prompt of the
	// session to stall (Cancel).
	cancelOnStall int
	// unresolved counts the session's submissions without an outcome.
	unresolved int
	// parentKeys, for a fork the user made, are the keys its parent had
	// bound when the fork was asked for (forkKeys): a submission in the
	// fork sometimes reuses one (Submit).
	parentKeys []string
	// forksWaiting counts the forks the user asked for while the session
	// had no answered prompt but one pending: a user forks a conversation
	// once it has an exchange to branch from, so they are made when one is
	// answered (forkWhenAnswered). continuedIn (index+1, 0: none) is the
	// fork the user made of it last: the user's next submission to it goes
	// there instead, as one forks a conversation to go on in the fork.
	// A Client restart forgets both.
	forksWaiting, continuedIn int
}

// seenMessage is a user message read from a replay; chunks of one message
// are joined.
type seenMessage struct {
	id   string
	text string
}

type sessState uint8

const (
	sessDown     sessState = iota // needs session/new or session/resume on the next connection
	sessCreating                  // session/new sent
	sessResuming                  // session/resume sent
	sessReady
)

type reqKind uint8

const (
	reqInit reqKind = iota + 1
	reqNew
	reqResume
	reqPrompt
	reqClose
	reqFork
	reqLogin
)

type request struct {
	kind reqKind
	sess int
	sub  *submission
	// replay: a session/resume that asked for replay from the start.
	replay bool
	// early: a prompt resent before its session was resumed on this
	// connection (ResendBeforeResume).
	early bool
	// forkKeys: for a session/fork, the keys the parent had bound when it
	// was sent, which the fork's session inherits as parentKeys.
	forkKeys []string
}

type submission struct {
	id   string
	text string
	sess int
	key  string
	// nullKey: an unkeyed submission whose attempts say "idempotencyKey":
	// null instead of leaving the field out.
	nullKey  bool
	done     bool
	inserted bool   // done with a messageId: its key is bound
	inflight acp.ID // the newest outstanding attempt, "" when none
	attempts int
	// timeouts counts its attempts that went unanswered on a live
	// connection: each one doubles the wait for the next (promptWait), and
	// PromptTimeouts of them end the Client's patience (stop).
	timeouts int
	at       time.Duration // when the user submitted it (Env.Now)
	// lookup: an attempt may have been inserted without the Client learning
	// it; a Lookup Client searches the session's replay before resending.
	// asked: a replay was requested since, so it shows whatever the Agent
	// had inserted by the time the attempt was given up (an older replay
	// may predate the insertion).
	lookup, asked bool
	// waiting: the window held it back (it is not among its session's
	// oldest pending); admit sends it once it is.
	waiting bool
	// stray: an attempt went out on a connection the Client abandoned while
	// it stayed open (FreshConnection); it may still be inserted.
	stray bool
	// sentAgain: the user sent it again after it was cancelled; a user
	// does that once, not after every cancel that follows.
	sentAgain bool
}

type timerKind uint8

const (
	timerReconnect timerKind = iota + 1
	timerTimeout
	timerRetry
	timerReopen     // session/new or session/resume again after an error
	timerSetup      // a session/new or session/resume that got no answer in time
	timerCancelWait // a user's wait for a stalled prompt to cancel is over
)

type timer struct {
	kind    timerKind
	sub     *submission
	attempt int
	sess    int
	req     acp.ID
	conn    string // the connection req was sent on: ids restart on each
}

// New returns a Client; call Start to make it connect.
func New(cfg Config, env Env) *Client {
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = DefaultStaleAfter
	}
	if cfg.SetupAttempts <= 0 {
		cfg.SetupAttempts = DefaultSetupAttempts
	}
	if cfg.BackoffCap <= 0 {
		cfg.BackoffCap = DefaultBackoffCap
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.PromptTimeouts <= 0 {
		cfg.PromptTimeouts = DefaultPromptTimeouts
	}
	c := &Client{cfg: cfg, env: env, reqs: map[acp.ID]request{}, timers: map[int]timer{}, attributed: map[string]string{}, keySet: map[SavedKey]struct{}{}}
	for range cfg.Sessions {
		c.sessions = append(c.sessions, &clientSession{})
	}
	return c
}

// step starts a step: the host applied every output of the previous one,
// so the outcomes it carried have reached the user.
func (c *Client) step() { c.justDone = c.justDone[:0] }

func (c *Client) now() time.Duration {
	if c.env.Now == nil {
		return 0
	}
	return c.env.Now()
}

// flush hands out a step's outputs. Steps fill one block of outputs in
// turn, each handed its part capped at its length (an append by the caller
// cannot reach the next step's), so that a step does not allocate and grow
// a slice of its own.
func (c *Client) flush() []Output {
	out := c.out[:len(c.out):len(c.out)]
	c.out = c.out[len(c.out):]
	if cap(c.out) < 4 {
		c.out = make([]Output, 0, 32)
	}
	return out
}

func (c *Client) setTimer(t timer, after Output) {
	c.nextTmr++
	c.timers[c.nextTmr] = t
	after.Kind, after.ID = OutTimer, c.nextTmr
	c.out = append(c.out, after)
}

func (c *Client) request(kind reqKind, sess int, sub *submission, method string, params any) acp.ID {
	return c.requestAs(request{kind: kind, sess: sess, sub: sub}, method, params)
}

func (c *Client) requestAs(r request, method string, params any) acp.ID {
	id := c.nextID()
	c.reqs[id] = r
	sub := r.sub
	if c.cfg.Protocol == acp.ProtocolV1 {
		method, params = v1Params(method, params)
	}
	o := Output{Kind: OutSend, Conn: c.conn}
	if c.cfg.Protocol == acp.ProtocolV1 {
		o.Frame = acp.Request(id, method, params)
	} else {
		var d acp.Digest
		o.Frame, d = acp.RequestDigest(id, method, params)
		o.Digest = c.digs.Keep(o.Frame, d)
	}
	if sub != nil {
		o.Sub = sub.id
	}
	c.out = append(c.out, o)
	return id
}

func (c *Client) outcome(s *submission, outcome, messageID string) {
	if !s.done {
		c.resolved(s)
	}
	s.done = true
	s.inserted = outcome == traces.OutcomeInserted
	s.inflight = ""
	s.lookup, s.asked = false, false
	c.justDone = append(c.justDone, s)
	if s.inserted {
		c.forkWhenAnswered(s.sess)
	}
	c.out = append(c.out, Output{Kind: OutOutcome, Sub: s.id, Outcome: outcome, MessageID: messageID})
	c.admit(s.sess)
}

// attribute notes that message messageID of session number sess belongs to
// submission sub.
//
// Only a Lookup Client reads these (claim); the others keep none, since
// saving them at every Client restart grew with every message of the run.
func (c *Client) attribute(sess int, messageID, sub string) {
	if !c.cfg.Policy.Lookup {
		return
	}
	if id := c.sessions[sess].id; id != "" && messageID != "" {
		c.attributed[id+"\x00"+messageID] = sub
	}
}

// Start implements the Client's first step: connect to the Agent. A
// restored Client's first outputs also carry what Restore decided.
func (c *Client) Start() []Output {
	if c.cfg.Policy.NewKeyAfterRestart {
		// The bug: what Restore brought back is sent again under new keys.
		for _, s := range c.live() {
			if !s.done && s.key != "" && s.attempts > 0 {
				s.key = c.env.NewID()
				c.madeKey(s.sess, s.key)
			}
		}
	}
	c.out = append(c.out, Output{Kind: OutConnect})
	return c.flush()
}

// Pending reports whether some submission has no outcome yet.
func (c *Client) Pending() bool {
	for _, s := range c.live() {
		if !s.done {
			return true
		}
	}
	return false
}
