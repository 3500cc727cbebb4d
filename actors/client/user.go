// This file holds what the user does through the model Client: submitting
// text (with the key a keyed policy makes for it), cancelling work, closing
// and forking a session.

package client

import (
	"cmp"
	"strconv"

	"github.com/acpsim/acpsim/actors/acp"
)

// Submit is the user submitting text to session number sess (0-based) as
// submission sub. A keyed Client makes the key now, not when it writes the
// request, and keeps it with the pending input.
func (c *Client) Submit(sub, text string, sess int) []Output {
	c.step()
	s := &submission{id: sub, text: text, sess: sess % len(c.sessions), at: c.now()}
	if parent := c.sessions[s.sess]; parent.continuedIn > 0 {
		s.sess, parent.continuedIn = parent.continuedIn-1, 0
	}
	switch {
	case c.cfg.Policy.Keyed && c.cfg.UnkeyedOneIn > 0 && c.draw(sub+"/unkeyed", c.cfg.UnkeyedOneIn) == 0 && (c.cfg.MayOmitKey == nil || c.cfg.MayOmitKey(text)):
		// Sent without a key, as the RFD allows ("The field is optional"):
		// omitted or null; such a submission is never resent (resends).
		s.nullKey = c.draw(sub+"/unkeyed-null", 2) == 0
	case c.cfg.Policy.Keyed:
		newID, intN := c.env.NewID, c.env.IntN
		if c.env.Sub != nil {
			newID, intN = c.env.Sub(sub)
		}
		s.key = c.mint(c.newKey(s.sess, sub, newID, intN))
		if k, ok := c.parentKey(s.sess, sub); ok {
			s.key = k
		}
		if c.cfg.Policy.ReuseKey {
			if k, ok := c.lastKey(s.sess); ok {
				s.key = k // the bug: the previous submission's key
			}
		}
		c.madeKey(s.sess, s.key)
	default:
		s.nullKey = c.draw(sub+"/key-form", nullKeyOneIn) == 0
	}
	c.subs = append(c.subs, s)
	c.queued(s)
	switch sess := c.sessions[s.sess]; {
	case sess.gaveUp:
		c.giveUpOn(s) // the session cannot be set up: nothing of it is sent
	case sess.state == sessReady && c.inWindow(s):
		c.send(s)
	default:
		s.waiting = true // sessionReady or admit sends it
	}
	return c.flush()
}

// Cancel is the user stopping work in session sess. With viaRequest the
// Client cancels the newest attempt of the session's oldest pending prompt
// with $/cancel_request; otherwise it sends session/cancel. A cancelled
// prompt not inserted yet is answered -32800 and the user is told it failed
// (or sends it again: sendsAgain).
//
// Some users (a seeded draw per cancel) wait instead for a prompt that
// stalls: the next one the Client has to send again while its earlier
// attempt is still unanswered (the Agent holds it behind other work). That
// cancel names the new attempt only, and the RFD has the Agent answer
// every pending request of the key -32800; a user who cancels whatever is
// pending at a random moment rarely meets two attempts of one key.
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
	c.cancels++
	oneIn := cmp.Or(c.cfg.StallWaitOneIn, cancelWhenStalledOneIn)
	if c.draw(c.cfg.Name+"/cancel-when-stalled/"+strconv.Itoa(c.cancels), oneIn) == 0 {
		// Within a few timeouts a prompt pending now is answered or stalls;
		// a user whose wait meets no stall cancels as the others do.
		s.cancelOnStall++
		c.setTimer(timer{kind: timerCancelWait, sess: sess}, Output{After: cancelWaitTimeouts * c.cfg.Timeout})
		return c.flush()
	}
	// Some users withdraw what they typed last rather than what waits
	// longest: with two prompts of a session pending, a cancel that lands
	// on the wrong one (a hop forwarding requestId unmapped) then shows.
	if c.draw(c.cfg.Name+"/cancel-newest/"+strconv.Itoa(c.cancels), 2) == 0 {
		c.cancelNewest(sess)
		return c.flush()
	}
	c.cancelOldest(sess)
	return c.flush()
}

// cancelOldest cancels the newest attempt of session sess's oldest pending
// prompt.
func (c *Client) cancelOldest(sess int) {
	for _, sub := range c.live() {
		if sub.sess == sess && !sub.done && sub.inflight != "" {
			c.cancelAttempt(sub.inflight)
			return
		}
	}
}

// cancelNewest cancels the newest attempt of session sess's newest pending
// prompt.
func (c *Client) cancelNewest(sess int) {
	var last *submission
	for _, sub := range c.live() {
		if sub.sess == sess && !sub.done && sub.inflight != "" {
			last = sub
		}
	}
	if last != nil {
		c.cancelAttempt(last.inflight)
	}
}

// cancelWaitOver is the end of a user's wait for a stalled prompt.
func (c *Client) cancelWaitOver(sess int) {
	s := c.sessions[sess]
	if s.cancelOnStall == 0 {
		return // a stall took it
	}
	s.cancelOnStall--
	if c.conn != "" && s.state == sessReady {
		c.cancelOldest(sess)
	}
}

func (c *Client) cancelAttempt(id acp.ID) {
	c.out = append(c.out, Output{Kind: OutSend, Conn: c.conn,
		Frame: acp.Notification(acp.MethodCancelRequest, acp.CancelRequestParams{RequestID: id})})
}

// stalled is s sent again while an earlier attempt of it is unanswered on
// this connection: a user waiting for a stalled prompt cancels it now.
func (c *Client) stalled(s *submission) {
	sess := c.sessions[s.sess]
	if sess.cancelOnStall == 0 {
		return
	}
	for id, r := range c.reqs { // whether one exists: map order does not show
		if r.sub == s && id != s.inflight {
			sess.cancelOnStall--
			c.cancelAttempt(s.inflight)
			return
		}
	}
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
	if c.conn == "" || s.state != sessReady || c.cfg.Protocol == acp.ProtocolV1 {
		return nil // v1 has no session/fork: the user's fork does nothing
	}
	keys := c.boundKeys(sess)
	if len(keys) == 0 && s.unresolved > 0 {
		s.forksWaiting++
		return nil
	}
	c.fork(sess, keys)
	return c.flush()
}

// fork asks for a fork of session sess, whose bound keys are keys.
func (c *Client) fork(sess int, keys []string) {
	c.requestAs(request{kind: reqFork, sess: sess, forkKeys: keys}, acp.MethodSessionFork, acp.ForkSessionParams{SessionID: c.sessions[sess].id, Cwd: c.cfg.Cwd})
}

// forkWhenAnswered makes the forks of session sess that waited for an
// answered prompt (Fork), now that one is.
func (c *Client) forkWhenAnswered(sess int) {
	s := c.sessions[sess]
	if s.forksWaiting == 0 {
		return
	}
	keys := c.boundKeys(sess)
	for ; s.forksWaiting > 0 && c.conn != "" && s.state == sessReady; s.forksWaiting-- {
		c.fork(sess, keys)
	}
}

// boundKeys are the keys of session sess's submissions the Agent answered
// with a messageId: bound now, so a fork made now starts with their
// messages. Those resolved before a Client restart are gone from memory.
func (c *Client) boundKeys(sess int) []string {
	var keys []string
	for _, s := range c.subs {
		if s.sess == sess && s.inserted && s.key != "" {
			keys = append(keys, s.key)
		}
	}
	return keys
}

// parentKey is, for a submission sub to session sess when sess is a fork,
// sometimes (a draw of its own per submission) a key its parent had bound
// before the fork and the fork has not used yet. The RFD: "The same key
// string in another session, including a fork of this one, names an
// unrelated submission". An Agent that lets the fork inherit its parent's
// bindings answers such a prompt as a retry and never inserts it; a user
// who reuses keys only by chance across sessions would rarely land on one
// the parent bound before the fork.
func (c *Client) parentKey(sess int, sub string) (string, bool) {
	var free []string
	for _, k := range c.sessions[sess].parentKeys {
		if !c.keyUsed(sess, k) {
			free = append(free, k)
		}
	}
	if len(free) == 0 || c.draw(sub+"/fork-key", forkKeyOneIn) != 0 {
		return "", false
	}
	return free[c.draw(sub+"/fork-key-which", len(free))], true
}
