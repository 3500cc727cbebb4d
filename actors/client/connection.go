// This file holds the model Client's connection handling: a connection
// coming up (initialize, auth/login) or going down, opening each session on
// it (session/new or session/resume), the frames and timers that drive it,
// and abandoning a connection for a fresh one.

package client

import (
	"encoding/json"

	"github.com/acpsim/acpsim/actors/acp"
)

// Connected implements the Client's reaction to a new connection.
func (c *Client) Connected(conn string) []Output {
	c.step()
	c.conn, c.ready, c.nextReq = conn, false, 0
	c.drawIDStyle()
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
	for _, s := range c.live() {
		if s.done || s.inflight == "" {
			continue
		}
		if c.resends(s) {
			c.attemptLost(s)
		} else {
			c.outcome(s, c.noResendOutcome(), "")
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
		if !c.resends(s) {
			c.outcome(s, c.noResendOutcome(), "")
			break
		}
		s.timeouts++
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
	case timerCancelWait:
		c.cancelWaitOver(t.sess)
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
	return c.ReceiveDigest(conn, frame, nil)
}

// ReceiveDigest is Receive of a frame with the digest its sender made (nil
// for none): a message laid out as the encoder writes it is read from the
// digest (acp.Digest.Message), with no copy of the frame and no scan.
func (c *Client) ReceiveDigest(conn string, frame []byte, d *acp.Digest) []Output {
	c.step()
	if conn != c.conn {
		return nil
	}
	if !c.cfg.Policy.Lookup && acp.IsUpdateFrame(frame) {
		return nil // only a lookup Client reads updates; the others reconcile by responses
	}
	if m, ok := d.Message(frame); ok {
		c.entry(acp.Parsed{Msg: m})
		return c.flush()
	}
	for _, e := range acp.ParseLine(frame).Entries {
		c.entry(e)
	}
	return c.flush()
}

// entry handles one message of a frame from the Agent.
func (c *Client) entry(e acp.Parsed) {
	if e.Err == nil && e.Msg.Kind() == acp.KindNotification {
		c.notification(&e.Msg)
		return
	}
	if e.Err != nil || e.Msg.Kind() != acp.KindResponse {
		return
	}
	r, ok := c.reqs[e.Msg.ID]
	if !ok {
		return
	}
	delete(c.reqs, e.Msg.ID)
	c.response(r, &e.Msg)
}

func (c *Client) response(r request, m *acp.Message) {
	switch r.kind {
	case reqInit:
		if m.Error != nil {
			// initialize is not resent on one connection: start over on a new one.
			c.out = append(c.out, Output{Kind: OutHangup, Conn: c.conn})
			return
		}
		if methods := acp.AuthMethodsOf(m.Result); len(methods) > 0 {
			// The Agent wants a login first: its session methods answer
			// -32000 until then.
			c.request(reqLogin, -1, nil, acp.MethodAuthLogin, acp.LoginParams{MethodID: methods[0].MethodID})
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
			c.setupErrorAnswered(r.sess) // the id never reached us, so a new one is no duplicate we could use
			return
		}
		c.sessions[r.sess].id, c.sessions[r.sess].setupErrors, c.sessions[r.sess].createKey = c.canonical(res.SessionID), 0, ""
		c.sessionReady(r.sess)
	case reqResume:
		sess := c.sessions[r.sess]
		sess.replaying = false
		if m.Error != nil {
			sess.seen = nil
			if m.Error.Code == acp.CodeResourceNotFound || c.cfg.Protocol == acp.ProtocolV1 && m.Error.Code == acp.CodeMethodNotFound {
				// The Agent does not know the session: it kept it in the
				// memory of a process that has ended, which the ACP v2
				// notes allow ("session/resume fails (session unknown)
				// and the client must session/new", trace T3b), or lost
				// it. Start a new one; pending input moves there and is
				// sent again with its key, so the user is told its
				// outcome in the session that exists. Its key cannot
				// name an insertion in the new session (keys are scoped
				// per session), and whatever the old one held is gone
				// with it, so this is no duplicate the user could see.
				c.sessions[r.sess].id = ""
				c.openSession(r.sess, c.sessions[r.sess])
				return
			}
			c.setupErrorAnswered(r.sess) // resume is safe to send again as is
			return
		}
		sess.setupErrors = 0
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
			c.sessions = append(c.sessions, &clientSession{id: c.canonical(res.SessionID), state: sessReady, parentKeys: r.forkKeys})
			c.sessions[r.sess].continuedIn = len(c.sessions)
		}
	}
}

// initialized is the connection ready for session methods: resume every
// known session, create the others.
func (c *Client) initialized() {
	c.ready = true
	if c.cfg.Policy.ResendBeforeResume {
		// The bug: the sessions are not active on this connection yet.
		for _, s := range c.live() {
			if !s.done && s.inflight == "" && s.attempts > 0 && c.sessions[s.sess].id != "" {
				c.sendPrompt(s, true)
			}
		}
	}
	for i, s := range c.sessions {
		c.openOrWait(i, s)
	}
}

func (c *Client) reopenLater(i int) {
	c.sessions[i].state = sessDown
	c.setTimer(timer{kind: timerReopen, sess: i}, Output{After: c.cfg.Backoff})
}

func (c *Client) openSession(i int, s *clientSession) {
	if s.gaveUp {
		return
	}
	if s.id == "" {
		// A new session holds none of the pending messages: nothing to look up.
		c.eachLookup(func(sub *submission) {
			if sub.sess == i {
				sub.lookup, sub.asked = false, false
			}
		})
		s.state = sessCreating
		p := acp.NewSessionParams{Cwd: c.cfg.Cwd}
		if c.cfg.Policy.KeyedCreate {
			if s.createKey == "" {
				s.createKey = c.env.NewID()
			}
			p.IdempotencyKey = s.createKey
		}
		id := c.request(reqNew, i, nil, acp.MethodSessionNew, p)
		c.setTimer(timer{kind: timerSetup, sess: i, req: id, conn: c.conn}, Output{After: c.cfg.Timeout})
		return
	}
	s.state = sessResuming
	p := acp.ResumeSessionParams{SessionID: s.id, Cwd: c.cfg.Cwd}
	replay := false
	c.eachLookup(func(sub *submission) {
		if sub.sess == i && sub.lookup && !sub.done {
			replay, sub.asked = true, true
		}
	})
	if replay {
		p.ReplayFrom = &acp.ReplayFrom{Type: acp.ReplayStart}
		s.replaying, s.seen, s.v1Users, s.v1UserOpen = true, nil, 0, false
	}
	id := c.requestAs(request{kind: reqResume, sess: i, replay: replay}, acp.MethodSessionResume, p)
	c.setTimer(timer{kind: timerSetup, sess: i, req: id, conn: c.conn}, Output{After: c.cfg.Timeout})
}

// sessionReady sends the session's pending prompts its window holds, oldest
// first; the others are waiting, for admit.
func (c *Client) sessionReady(i int) {
	c.sessions[i].state = sessReady
	c.sendWindow(i, false)
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
	for _, s := range c.live() {
		if !s.done {
			// An attempt may still be on its way on the old connection,
			// where this Client no longer listens or cancels.
			s.stray = s.stray || s.inflight != ""
			s.inflight = ""
		}
	}
	c.out = append(c.out, Output{Kind: OutConnect})
}
