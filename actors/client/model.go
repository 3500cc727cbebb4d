package client

import (
	"encoding/json"
	"strings"

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

	sessions []*clientSession
	subs     []*submission
	timers   map[int]timer
	nextTmr  int
	out      []Output
}

type clientSession struct {
	id    string // "" until session/new answered
	state sessState
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
)

type request struct {
	kind reqKind
	sess int
	sub  *submission
}

type submission struct {
	id       string
	text     string
	sess     int
	key      string
	done     bool
	inflight acp.ID // the newest outstanding attempt, "" when none
	attempts int
}

type timerKind uint8

const (
	timerReconnect timerKind = iota + 1
	timerTimeout
	timerRetry
	timerReopen // session/new or session/resume again after an error
)

type timer struct {
	kind    timerKind
	sub     *submission
	attempt int
	sess    int
}

// New returns a Client; call Start to make it connect.
func New(cfg Config, env Env) *Client {
	c := &Client{cfg: cfg, env: env, reqs: map[acp.ID]request{}, timers: map[int]timer{}}
	for range cfg.Sessions {
		c.sessions = append(c.sessions, &clientSession{})
	}
	return c
}

func (c *Client) flush() []Output {
	out := c.out
	c.out = nil
	return out
}

func (c *Client) setTimer(t timer, after Output) {
	c.nextTmr++
	c.timers[c.nextTmr] = t
	after.Kind, after.ID = OutTimer, c.nextTmr
	c.out = append(c.out, after)
}

func (c *Client) request(kind reqKind, sess int, sub *submission, method string, params any) acp.ID {
	c.nextReq++
	id := acp.NumID(c.nextReq)
	c.reqs[id] = request{kind: kind, sess: sess, sub: sub}
	o := Output{Kind: OutSend, Conn: c.conn, Frame: acp.Request(id, method, params)}
	if sub != nil {
		o.Sub = sub.id
	}
	c.out = append(c.out, o)
	return id
}

func (c *Client) outcome(s *submission, outcome, messageID string) {
	s.done = true
	s.inflight = ""
	c.out = append(c.out, Output{Kind: OutOutcome, Sub: s.id, Outcome: outcome, MessageID: messageID})
}

// Start implements the Client's first step: connect to the Agent.
func (c *Client) Start() []Output {
	c.out = append(c.out, Output{Kind: OutConnect})
	return c.flush()
}

// Pending reports whether some submission has no outcome yet.
func (c *Client) Pending() bool {
	for _, s := range c.subs {
		if !s.done {
			return true
		}
	}
	return false
}

// Submit is the user submitting text to session number sess (0-based) as
// submission sub. A keyed Client makes the key now, not when it writes the
// request, and keeps it with the pending input.
func (c *Client) Submit(sub, text string, sess int) []Output {
	s := &submission{id: sub, text: text, sess: sess % len(c.sessions)}
	if c.cfg.Policy.Keyed {
		s.key = c.newKey(s.sess)
	}
	c.subs = append(c.subs, s)
	if c.sessions[s.sess].state == sessReady {
		c.sendPrompt(s)
	}
	return c.flush()
}

// newKey is a random UUID, except that now and then it deliberately repeats a
// key of another session, exactly or in another case: both are legal, and
// they catch Agents that scope keys per Agent or fold their case.
func (c *Client) newKey(sess int) string {
	if c.env.IntN(4) == 0 {
		for i := len(c.subs) - 1; i >= 0; i-- {
			o := c.subs[i]
			if o.sess != sess && o.key != "" && !c.keyUsed(sess, o.key) {
				if c.env.IntN(2) == 0 {
					return o.key
				}
				if up := strings.ToUpper(o.key); !c.keyUsed(sess, up) {
					return up
				}
			}
		}
	}
	return c.env.NewID()
}

func (c *Client) keyUsed(sess int, key string) bool {
	for _, s := range c.subs {
		if s.sess == sess && s.key == key {
			return true
		}
	}
	return false
}

func (c *Client) sendPrompt(s *submission) {
	sess := c.sessions[s.sess]
	p := acp.PromptParams{SessionID: sess.id, Prompt: []acp.ContentBlock{acp.Text(s.text)}}
	if s.key != "" {
		p.IdempotencyKey = acp.KeyJSON(s.key)
	}
	s.inflight = c.request(reqPrompt, s.sess, s, acp.MethodSessionPrompt, p)
	s.attempts++
	c.setTimer(timer{kind: timerTimeout, sub: s, attempt: s.attempts}, Output{After: c.cfg.Timeout})
}

// Connected implements the Client's reaction to a new connection.
func (c *Client) Connected(conn string) []Output {
	c.conn, c.ready, c.nextReq = conn, false, 0
	clear(c.reqs)
	c.request(reqInit, -1, nil, acp.MethodInitialize, acp.InitializeParams{
		ProtocolVersion: acp.ProtocolVersion,
		Info:            acp.Implementation{Name: "acpsim-" + c.cfg.Policy.Name, Version: "0"},
		Capabilities:    json.RawMessage(`{}`),
	})
	return c.flush()
}

// Disconnected implements the Client's reaction to a broken connection: its
// outstanding requests will never be answered. A Client without resends
// drops the prompts that were in flight without a word; the others resend
// them after resuming on the next connection.
func (c *Client) Disconnected(conn string) []Output {
	if conn != c.conn {
		return nil
	}
	c.conn, c.ready = "", false
	clear(c.reqs)
	for _, s := range c.sessions {
		s.state = sessDown
	}
	for _, s := range c.subs {
		if s.done || s.inflight == "" {
			continue
		}
		if c.cfg.Policy.Resend {
			s.inflight = ""
		} else {
			c.outcome(s, traces.OutcomeAbandoned, "")
		}
	}
	c.setTimer(timer{kind: timerReconnect}, Output{After: c.cfg.Backoff})
	return c.flush()
}

// Timer implements the Client's timers.
func (c *Client) Timer(id int) []Output {
	t, ok := c.timers[id]
	delete(c.timers, id)
	if !ok {
		return nil
	}
	switch t.kind {
	case timerReconnect:
		c.out = append(c.out, Output{Kind: OutConnect})
	case timerTimeout:
		s := t.sub
		if s.done || s.inflight == "" || s.attempts != t.attempt {
			break
		}
		if !c.cfg.Policy.Resend {
			c.outcome(s, traces.OutcomeAbandoned, "")
			break
		}
		s.inflight = ""
		if c.sessions[s.sess].state == sessReady {
			c.sendPrompt(s)
		}
	case timerReopen:
		if s := c.sessions[t.sess]; c.ready && s.state == sessDown {
			c.openSession(t.sess, s)
		}
	case timerRetry:
		s := t.sub
		if !s.done && s.inflight == "" && c.sessions[s.sess].state == sessReady {
			c.sendPrompt(s)
		}
	}
	return c.flush()
}

// Receive implements the Client's handling of a frame from the Agent.
func (c *Client) Receive(conn string, frame []byte) []Output {
	if conn != c.conn {
		return nil
	}
	line := acp.ParseLine(frame)
	for _, e := range line.Entries {
		if e.Err != nil || e.Msg.Kind() != acp.KindResponse {
			continue // updates are for display; the model Client reconciles by responses
		}
		r, ok := c.reqs[e.Msg.ID]
		if !ok {
			continue
		}
		delete(c.reqs, e.Msg.ID)
		c.response(r, &e.Msg)
	}
	return c.flush()
}

func (c *Client) response(r request, m *acp.Message) {
	switch r.kind {
	case reqInit:
		if m.Error != nil {
			// initialize is not resent on one connection: start over on a new one.
			c.out = append(c.out, Output{Kind: OutHangup, Conn: c.conn})
			return
		}
		c.ready = true
		for i, s := range c.sessions {
			c.openSession(i, s)
		}
	case reqNew:
		var res acp.NewSessionResult
		if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || res.SessionID == "" {
			c.reopenLater(r.sess) // the id never reached us, so a new one is no duplicate we could use
			return
		}
		c.sessions[r.sess].id = res.SessionID
		c.sessionReady(r.sess)
	case reqResume:
		if m.Error != nil {
			if m.Error.Code == acp.CodeResourceNotFound {
				// The Agent lost the session: start a new one; pending input moves there.
				c.sessions[r.sess].id = ""
				c.openSession(r.sess, c.sessions[r.sess])
				return
			}
			c.reopenLater(r.sess) // resume is safe to send again as is
			return
		}
		c.sessionReady(r.sess)
	case reqPrompt:
		c.promptResponse(r.sub, m)
	}
}

func (c *Client) reopenLater(i int) {
	c.sessions[i].state = sessDown
	c.setTimer(timer{kind: timerReopen, sess: i}, Output{After: c.cfg.Backoff})
}

func (c *Client) openSession(i int, s *clientSession) {
	if s.id == "" {
		s.state = sessCreating
		c.request(reqNew, i, nil, acp.MethodSessionNew, acp.NewSessionParams{Cwd: c.cfg.Cwd})
		return
	}
	s.state = sessResuming
	c.request(reqResume, i, nil, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: s.id, Cwd: c.cfg.Cwd})
}

// sessionReady sends the session's pending prompts, oldest first.
func (c *Client) sessionReady(i int) {
	c.sessions[i].state = sessReady
	for _, s := range c.subs {
		if s.sess == i && !s.done && s.inflight == "" {
			c.sendPrompt(s)
		}
	}
}

func (c *Client) promptResponse(s *submission, m *acp.Message) {
	if s.done {
		return
	}
	if m.Error == nil {
		var res acp.PromptResult
		if json.Unmarshal(m.Result, &res) != nil || res.MessageID == "" {
			c.outcome(s, traces.OutcomeUnknown, "")
			return
		}
		c.outcome(s, traces.OutcomeInserted, res.MessageID)
		return
	}
	if m.ID != s.inflight {
		return // an older attempt failed; the newest one is still out
	}
	s.inflight = ""
	switch {
	case m.Error.Code == acp.CodeInternalError && c.cfg.Policy.Resend:
		c.setTimer(timer{kind: timerRetry, sub: s}, Output{After: c.cfg.Backoff})
	case m.Error.Code == acp.CodeResourceNotFound && c.cfg.Policy.Resend:
		sess := c.sessions[s.sess]
		if sess.state == sessReady {
			c.openSession(s.sess, sess)
		}
	default:
		c.outcome(s, traces.OutcomeFailed, "")
	}
}
