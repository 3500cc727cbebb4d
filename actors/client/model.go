package client

import (
	"encoding/json"
	"strconv"
	"strings"
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

	sessions []*clientSession
	subs     []*submission
	timers   map[int]timer
	nextTmr  int
	out      []Output

	// justDone are the submissions resolved by the current step: their
	// outcomes are among the step's outputs, which the host has not applied
	// yet, so a Client that dies now has not told the user and must still
	// count them as pending (Persisted).
	justDone []*submission
	// attributed maps session id + "\x00" + messageId to the submission the
	// message belongs to, as far as the Client knows: from responses and
	// from lookups. A lookup never claims a message attributed to another.
	attributed map[string]string
	// keys are every key the Client made, with its session (persisted).
	keys []SavedKey
}

type clientSession struct {
	id    string // "" until session/new answered
	state sessState
	// replaying is set while a session/resume with replay from the start is
	// outstanding; seen collects the user messages it replays, in order.
	replaying bool
	seen      []seenMessage
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
}

type submission struct {
	id       string
	text     string
	sess     int
	key      string
	done     bool
	inflight acp.ID // the newest outstanding attempt, "" when none
	attempts int
	at       time.Duration // when the user submitted it (Env.Now)
	// lookup: an attempt may have been inserted without the Client learning
	// it; a Lookup Client searches the session's replay before resending.
	// asked: a replay was requested since, so it shows whatever the Agent
	// had inserted by the time the attempt was given up (an older replay
	// may predate the insertion).
	lookup, asked bool
	// stray: an attempt went out on a connection the Client abandoned while
	// it stayed open (FreshConnection); it may still be inserted.
	stray bool
}

type timerKind uint8

const (
	timerReconnect timerKind = iota + 1
	timerTimeout
	timerRetry
	timerReopen // session/new or session/resume again after an error
	timerSetup  // a session/new or session/resume that got no answer in time
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
	c := &Client{cfg: cfg, env: env, reqs: map[acp.ID]request{}, timers: map[int]timer{}, attributed: map[string]string{}}
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
	return c.requestAs(request{kind: kind, sess: sess, sub: sub}, method, params)
}

func (c *Client) requestAs(r request, method string, params any) acp.ID {
	c.nextReq++
	id := acp.NumID(c.nextReq)
	c.reqs[id] = r
	sub := r.sub
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
	s.lookup, s.asked = false, false
	c.justDone = append(c.justDone, s)
	c.out = append(c.out, Output{Kind: OutOutcome, Sub: s.id, Outcome: outcome, MessageID: messageID})
}

// attribute notes that message messageID of session number sess belongs to
// submission sub.
func (c *Client) attribute(sess int, messageID, sub string) {
	if id := c.sessions[sess].id; id != "" && messageID != "" {
		c.attributed[id+"\x00"+messageID] = sub
	}
}

// Start implements the Client's first step: connect to the Agent. A
// restored Client's first outputs also carry what Restore decided.
func (c *Client) Start() []Output {
	if c.cfg.Policy.NewKeyAfterRestart {
		// The bug: what Restore brought back is sent again under new keys.
		for _, s := range c.subs {
			if !s.done && s.key != "" && s.attempts > 0 {
				s.key = c.env.NewID()
				c.keys = append(c.keys, SavedKey{Session: s.sess, Key: s.key})
			}
		}
	}
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
	c.step()
	s := &submission{id: sub, text: text, sess: sess % len(c.sessions), at: c.now()}
	if c.cfg.Policy.Keyed {
		newID, intN := c.env.NewID, c.env.IntN
		if c.env.Sub != nil {
			newID, intN = c.env.Sub(sub)
		}
		s.key = c.newKey(s.sess, newID, intN)
		if c.cfg.Policy.ReuseKey {
			if k, ok := c.lastKey(s.sess); ok {
				s.key = k // the bug: the previous submission's key
			}
		}
		c.keys = append(c.keys, SavedKey{Session: s.sess, Key: s.key})
	}
	c.subs = append(c.subs, s)
	if c.sessions[s.sess].state == sessReady {
		c.send(s)
	}
	return c.flush()
}

// newKey is a random UUID, except that now and then it deliberately repeats a
// key of another session, exactly or in another case: both are legal, and
// they catch Agents that scope keys per Agent or fold their case.
func (c *Client) newKey(sess int, newID func() string, intN func(int) int) string {
	if intN(4) == 0 {
		for i := len(c.subs) - 1; i >= 0; i-- {
			o := c.subs[i]
			if o.sess != sess && o.key != "" && !c.keyUsed(sess, o.key) {
				if intN(2) == 0 {
					return o.key
				}
				if up := strings.ToUpper(o.key); !c.keyUsed(sess, up) {
					return up
				}
			}
		}
	}
	return newID()
}

// lastKey is the newest key made for a submission of session sess.
func (c *Client) lastKey(sess int) (string, bool) {
	for i := len(c.keys) - 1; i >= 0; i-- {
		if c.keys[i].Session == sess {
			return c.keys[i].Key, true
		}
	}
	return "", false
}

// keyUsed reports whether key was made for a submission of session sess.
// It reads every key ever made, not only the pending submissions': after a
// restart the resolved ones are gone from memory, but their keys stay bound.
func (c *Client) keyUsed(sess int, key string) bool {
	for _, k := range c.keys {
		if k.Session == sess && k.Key == key {
			return true
		}
	}
	return false
}

// stop reports whether the policy gives up on s instead of sending it
// again, and if so tells the user the outcome is unknown. It is asked when
// an attempt is known lost and again before a resend, since a submission
// may turn stale while it waits for its session.
func (c *Client) stop(s *submission) bool {
	if s.done || s.attempts == 0 {
		return s.done
	}
	p := c.cfg.Policy
	if p.Bounded && s.attempts >= c.cfg.MaxAttempts || p.ShowStale && c.now()-s.at >= c.cfg.StaleAfter {
		if p.GiveUpSilently {
			c.outcome(s, traces.OutcomeAbandoned, "") // the bug: the user is told nothing
			return true
		}
		c.outcome(s, traces.OutcomeUnknown, "")
		return true
	}
	return false
}

// send sends s's next attempt unless the policy stops here.
func (c *Client) send(s *submission) {
	if !c.stop(s) {
		c.sendPrompt(s, false)
	}
}

func (c *Client) sendPrompt(s *submission, early bool) {
	sess := c.sessions[s.sess]
	p := acp.PromptParams{SessionID: sess.id, Prompt: []acp.ContentBlock{acp.Text(s.text)}}
	if s.key != "" && s.attempts > 0 && c.cfg.Policy.NewKeyPerAttempt {
		s.key = c.env.NewID() // the bug: a resend is a new submission to the Agent
		c.keys = append(c.keys, SavedKey{Session: s.sess, Key: s.key})
	}
	if s.key != "" {
		p.IdempotencyKey = acp.KeyJSON(s.key)
	}
	s.inflight = c.requestAs(request{kind: reqPrompt, sess: s.sess, sub: s, early: early}, acp.MethodSessionPrompt, p)
	s.attempts++
	c.setTimer(timer{kind: timerTimeout, sub: s, attempt: s.attempts}, Output{After: c.cfg.Timeout})
}

// attemptLost is a resending Client learning that s's newest attempt will
// not be answered (timeout or a lost connection). It gives up if its policy
// says so; a Lookup Client marks s to be looked up before any resend.
func (c *Client) attemptLost(s *submission) bool {
	s.inflight = ""
	if c.stop(s) {
		return false
	}
	if c.cfg.Policy.Lookup {
		s.lookup, s.asked = true, false
	}
	return true
}

// Connected implements the Client's reaction to a new connection.
func (c *Client) Connected(conn string) []Output {
	c.step()
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
	c.step()
	if conn != c.conn {
		return nil
	}
	c.conn, c.ready = "", false
	clear(c.reqs)
	for _, s := range c.sessions {
		s.state, s.replaying, s.seen = sessDown, false, nil
	}
	for _, s := range c.subs {
		if s.done || s.inflight == "" {
			continue
		}
		if c.cfg.Policy.Resend {
			c.attemptLost(s)
		} else {
			c.outcome(s, traces.OutcomeAbandoned, "")
		}
	}
	c.setTimer(timer{kind: timerReconnect}, Output{After: c.cfg.Backoff})
	return c.flush()
}

// Timer implements the Client's timers.
func (c *Client) Timer(id int) []Output {
	c.step()
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
		if !c.attemptLost(s) {
			break
		}
		sess := c.sessions[s.sess]
		switch {
		case c.cfg.FreshConnection && c.conn != "":
			c.abandonConnection()
		case sess.state != sessReady:
			// a resume is on its way; the session sends or looks up when ready
		case s.lookup:
			c.openSession(s.sess, sess) // resume with replay on this connection
		default:
			c.send(s)
		}
	case timerSetup:
		// On a link that loses single messages (HTTP) a session/new or
		// session/resume can go unanswered on a live connection: ask again
		// (an orphan session from a lost session/new answer costs nothing).
		if _, out := c.reqs[t.req]; out && c.ready && t.conn == c.conn {
			delete(c.reqs, t.req)
			c.openSession(t.sess, c.sessions[t.sess])
		}
	case timerReopen:
		if s := c.sessions[t.sess]; c.ready && s.state == sessDown {
			c.openSession(t.sess, s)
		}
	case timerRetry:
		s := t.sub
		if !s.done && s.inflight == "" && c.sessions[s.sess].state == sessReady {
			c.send(s)
		}
	}
	return c.flush()
}

// Receive implements the Client's handling of a frame from the Agent.
func (c *Client) Receive(conn string, frame []byte) []Output {
	c.step()
	if conn != c.conn {
		return nil
	}
	if !c.cfg.Policy.Lookup && acp.IsUpdateFrame(frame) {
		return nil // only a lookup Client reads updates; the others reconcile by responses
	}
	line := acp.ParseLine(frame)
	for _, e := range line.Entries {
		if e.Err == nil && e.Msg.Kind() == acp.KindNotification {
			c.notification(&e.Msg)
			continue
		}
		if e.Err != nil || e.Msg.Kind() != acp.KindResponse {
			continue
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
		var res acp.InitializeResult
		if json.Unmarshal(m.Result, &res) == nil && len(res.AuthMethods) > 0 {
			// The Agent wants a login first: its session methods answer
			// -32000 until then.
			c.request(reqLogin, -1, nil, acp.MethodAuthLogin, acp.LoginParams{MethodID: res.AuthMethods[0].MethodID})
			return
		}
		c.initialized()
	case reqLogin:
		if m.Error != nil {
			c.out = append(c.out, Output{Kind: OutHangup, Conn: c.conn})
			return
		}
		c.initialized()
	case reqNew:
		var res acp.NewSessionResult
		if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || res.SessionID == "" {
			c.reopenLater(r.sess) // the id never reached us, so a new one is no duplicate we could use
			return
		}
		c.sessions[r.sess].id = res.SessionID
		c.sessionReady(r.sess)
	case reqResume:
		sess := c.sessions[r.sess]
		sess.replaying = false
		if m.Error != nil {
			sess.seen = nil
			if m.Error.Code == acp.CodeResourceNotFound {
				// The Agent lost the session: start a new one; pending input moves there.
				c.sessions[r.sess].id = ""
				c.openSession(r.sess, c.sessions[r.sess])
				return
			}
			c.reopenLater(r.sess) // resume is safe to send again as is
			return
		}
		if r.replay {
			c.resolveLookups(r.sess)
		}
		if c.needsLookup(r.sess) {
			c.openSession(r.sess, sess) // a lookup became due while this resume was out
			return
		}
		c.sessionReady(r.sess)
	case reqPrompt:
		c.promptResponse(r, m)
	case reqClose:
		// Closed or not, the session is not active here any more: the user
		// comes back to it after a while.
		c.reopenLater(r.sess)
	case reqFork:
		var res acp.NewSessionResult
		if m.Error == nil && json.Unmarshal(m.Result, &res) == nil && res.SessionID != "" {
			c.sessions = append(c.sessions, &clientSession{id: res.SessionID, state: sessReady})
		}
	}
}

// Cancel is the user stopping work in session sess. With viaRequest the
// Client cancels the newest attempt of the session's oldest pending prompt
// with $/cancel_request; otherwise it sends session/cancel. A cancelled
// prompt not inserted yet is answered -32800 and the user is told it failed.
func (c *Client) Cancel(sess int, viaRequest bool) []Output {
	c.step()
	sess %= len(c.sessions)
	s := c.sessions[sess]
	if c.conn == "" || s.state != sessReady {
		return nil // nothing of it is active: nothing to stop
	}
	if !viaRequest {
		c.out = append(c.out, Output{Kind: OutSend, Conn: c.conn, Frame: acp.Notification(acp.MethodSessionCancel, acp.SessionParams{SessionID: s.id})})
		return c.flush()
	}
	for _, sub := range c.subs {
		if sub.sess == sess && !sub.done && sub.inflight != "" {
			c.out = append(c.out, Output{Kind: OutSend, Conn: c.conn,
				Frame: acp.Notification(acp.MethodCancelRequest, acp.CancelRequestParams{RequestID: sub.inflight})})
			break
		}
	}
	return c.flush()
}

// Close is the user closing session sess (session/close); the Client comes
// back to it with session/resume after its backoff, and the session's
// prompts wait until then.
func (c *Client) Close(sess int) []Output {
	c.step()
	sess %= len(c.sessions)
	s := c.sessions[sess]
	if c.conn == "" || s.state != sessReady {
		return nil
	}
	s.state = sessDown
	id := c.request(reqClose, sess, nil, acp.MethodSessionClose, acp.SessionParams{SessionID: s.id})
	c.setTimer(timer{kind: timerSetup, sess: sess, req: id, conn: c.conn}, Output{After: c.cfg.Timeout}) // its answer may be lost
	return c.flush()
}

// Fork is the user forking session sess (session/fork): the new session
// joins the Client's sessions, and later submissions may go to it.
func (c *Client) Fork(sess int) []Output {
	c.step()
	sess %= len(c.sessions)
	s := c.sessions[sess]
	if c.conn == "" || s.state != sessReady {
		return nil
	}
	c.request(reqFork, sess, nil, acp.MethodSessionFork, acp.ForkSessionParams{SessionID: s.id, Cwd: c.cfg.Cwd})
	return c.flush()
}

// initialized is the connection ready for session methods: resume every
// known session, create the others.
func (c *Client) initialized() {
	c.ready = true
	if c.cfg.Policy.ResendBeforeResume {
		// The bug: the sessions are not active on this connection yet.
		for _, s := range c.subs {
			if !s.done && s.inflight == "" && s.attempts > 0 && c.sessions[s.sess].id != "" {
				c.sendPrompt(s, true)
			}
		}
	}
	for i, s := range c.sessions {
		c.openSession(i, s)
	}
}

func (c *Client) reopenLater(i int) {
	c.sessions[i].state = sessDown
	c.setTimer(timer{kind: timerReopen, sess: i}, Output{After: c.cfg.Backoff})
}

func (c *Client) openSession(i int, s *clientSession) {
	if s.id == "" {
		// A new session holds none of the pending messages: nothing to look up.
		for _, sub := range c.subs {
			if sub.sess == i {
				sub.lookup, sub.asked = false, false
			}
		}
		s.state = sessCreating
		id := c.request(reqNew, i, nil, acp.MethodSessionNew, acp.NewSessionParams{Cwd: c.cfg.Cwd})
		c.setTimer(timer{kind: timerSetup, sess: i, req: id, conn: c.conn}, Output{After: c.cfg.Timeout})
		return
	}
	s.state = sessResuming
	p := acp.ResumeSessionParams{SessionID: s.id, Cwd: c.cfg.Cwd}
	replay := false
	for _, sub := range c.subs {
		if sub.sess == i && sub.lookup && !sub.done {
			replay, sub.asked = true, true
		}
	}
	if replay {
		p.ReplayFrom = &acp.ReplayFrom{Type: acp.ReplayStart}
		s.replaying, s.seen = true, nil
	}
	id := c.requestAs(request{kind: reqResume, sess: i, replay: replay}, acp.MethodSessionResume, p)
	c.setTimer(timer{kind: timerSetup, sess: i, req: id, conn: c.conn}, Output{After: c.cfg.Timeout})
}

// sessionReady sends the session's pending prompts, oldest first.
func (c *Client) sessionReady(i int) {
	c.sessions[i].state = sessReady
	for _, s := range c.subs {
		if s.sess == i && !s.done && s.inflight == "" {
			c.send(s)
		}
	}
}

// needsLookup reports whether a submission of session i waits for a lookup
// that no replay requested so far can answer.
func (c *Client) needsLookup(i int) bool {
	for _, s := range c.subs {
		if s.sess == i && s.lookup && !s.asked && !s.done {
			return true
		}
	}
	return false
}

// notification reads the user messages a replay brings; everything else
// (live updates, agent output) is for display only.
func (c *Client) notification(m *acp.Message) {
	if !c.cfg.Policy.Lookup || m.Method != acp.MethodSessionUpdate {
		return
	}
	var p acp.SessionUpdateParams
	if acp.DecodeParams(m.Params, &p) != nil {
		return
	}
	u := &p.Update
	if u.Kind != acp.UpdateUserMessage && u.Kind != acp.UpdateUserMessageChunk {
		return
	}
	for _, s := range c.sessions {
		if !s.replaying || s.id != p.SessionID {
			continue
		}
		text, ok := u.ContentText()
		if !ok || u.MessageID == "" {
			return // a message without an id cannot be claimed
		}
		if u.Kind == acp.UpdateUserMessageChunk {
			for j := range s.seen {
				if s.seen[j].id == u.MessageID {
					s.seen[j].text += text
					return
				}
			}
		}
		s.seen = append(s.seen, seenMessage{id: u.MessageID, text: text})
		return
	}
}

// resolveLookups decides, after a replay of session i, every submission
// waiting for a lookup, oldest first: a replayed user message with its text
// that the Client has not attributed to another submission is taken as its
// insertion; without one the prompt is resent (by sessionReady). Nothing
// here can tell a message not inserted yet from one that never arrived, nor
// two submissions of the same text apart: that is what the RFD holds
// against this approach.
func (c *Client) resolveLookups(i int) {
	sess := c.sessions[i]
	for _, s := range c.subs {
		if s.sess != i || !s.asked || s.done {
			continue
		}
		s.lookup, s.asked = false, false
		if m := c.claim(sess, s); m != "" {
			c.attribute(i, m, s.id)
			c.outcome(s, traces.OutcomeInserted, m)
		}
	}
	sess.seen = nil
}

// claim picks the replayed message of s: one already known to be its own
// (a response that reached the Client just before it died), else the first
// with its text that belongs to no other submission.
func (c *Client) claim(sess *clientSession, s *submission) string {
	first := ""
	for _, m := range sess.seen {
		if m.text != s.text {
			continue
		}
		owner, taken := c.attributed[sess.id+"\x00"+m.id]
		if taken && owner == s.id {
			return m.id
		}
		if !taken && first == "" {
			first = m.id
		}
	}
	return first
}

func (c *Client) promptResponse(r request, m *acp.Message) {
	s := r.sub
	if m.Error == nil {
		var res acp.PromptResult
		ok := json.Unmarshal(m.Result, &res) == nil && res.MessageID != ""
		if ok {
			// Even a late answer for a resolved submission names a message
			// that no other submission may claim.
			c.attribute(s.sess, res.MessageID, s.id)
		}
		switch {
		case s.done:
		case !ok:
			c.outcome(s, traces.OutcomeUnknown, "")
		default:
			c.outcome(s, traces.OutcomeInserted, res.MessageID)
		}
		return
	}
	if s.done {
		return
	}
	if m.ID != s.inflight {
		return // an older attempt failed; the newest one is still out
	}
	if m.Error.Code == acp.CodeRequestCancelled {
		// On a link that reorders (HTTP) an older attempt may still be on
		// its way: it would arrive after the cancel freed the key and be
		// inserted. Cancel it too and let its answer decide.
		if older, ok := c.olderAttempt(s, m.ID); ok {
			s.inflight = older
			c.out = append(c.out, Output{Kind: OutSend, Conn: c.conn,
				Frame: acp.Notification(acp.MethodCancelRequest, acp.CancelRequestParams{RequestID: older})})
			return
		}
	}
	s.inflight = ""
	switch {
	case r.early && m.Error.Code == acp.CodeResourceNotFound:
		// The bug of ResendBeforeResume: the session was not resumed yet, so
		// -32002 says nothing about the original attempt.
		c.outcome(s, traces.OutcomeFailed, "")
	case m.Error.Code == acp.CodeInternalError && c.cfg.Policy.Resend:
		// An error leaves the prompt uninserted: resend, no lookup needed.
		if !c.stop(s) {
			c.setTimer(timer{kind: timerRetry, sub: s}, Output{After: c.cfg.Backoff})
		}
	case m.Error.Code == acp.CodeResourceNotFound && c.cfg.Policy.Resend:
		if c.stop(s) {
			return
		}
		sess := c.sessions[s.sess]
		if sess.state == sessReady {
			c.openSession(s.sess, sess)
		}
	case m.Error.Code == acp.CodeRequestCancelled && s.stray:
		// Cancelled here, but an attempt on the abandoned connection may
		// still arrive and be inserted: the user is told the truth.
		c.outcome(s, traces.OutcomeUnknown, "")
	default:
		c.outcome(s, traces.OutcomeFailed, "")
	}
}

// olderAttempt is another request of s still unanswered on this connection
// (the earliest, so the choice never depends on map order).
func (c *Client) olderAttempt(s *submission, not acp.ID) (acp.ID, bool) {
	var best acp.ID
	var bestN int64 = -1
	for id, r := range c.reqs {
		if r.sub != s || id == not {
			continue
		}
		n, err := strconv.ParseInt(string(id), 10, 64)
		if err != nil {
			continue
		}
		if bestN < 0 || n < bestN {
			best, bestN = id, n
		}
	}
	return best, bestN >= 0
}

// abandonConnection leaves the current connection open but unused and asks
// for a new one: what was in flight on the old one is resent after resuming
// on the new one, and the old one's late answers are ignored.
func (c *Client) abandonConnection() {
	c.conn, c.ready = "", false
	clear(c.reqs)
	for _, s := range c.sessions {
		s.state = sessDown
	}
	for _, s := range c.subs {
		if !s.done {
			// An attempt may still be on its way on the old connection,
			// where this Client no longer listens or cancels.
			s.stray = s.stray || s.inflight != ""
			s.inflight = ""
		}
	}
	c.out = append(c.out, Output{Kind: OutConnect})
}
