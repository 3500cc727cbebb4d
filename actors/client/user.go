// This file holds what the user does through the model Client: submitting
// text (with the key a keyed policy makes for it), cancelling work, closing
// and forking a session.

package client

import (
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

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
	switch sess := c.sessions[s.sess]; {
	case sess.gaveUp:
		c.giveUpOn(s) // the session cannot be set up: nothing of it is sent
	case sess.state == sessReady:
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
