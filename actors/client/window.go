// This file holds the Client's window of prompts per session: it sends a
// session's oldest Window pending submissions and keeps the rest as pending
// input until one of those is resolved, as a chat window queues what the
// user types while the Agent works. It also keeps the pending submissions
// apart from every submission ever made, so that what a connection, a
// resume or an outcome does costs the pending input, not the whole run.

package client

// DefaultWindow is Config.Window's default: a session's four oldest pending
// prompts are out at once, so the Agent still holds one behind running
// work (busy hold, a retry of a held prompt, a cancel of it), while what
// the user typed beyond them waits in the Client.
//
// Without a window every pending prompt is written, and written again after
// each reconnect; at the default pace of acpsim run a long run's backlog
// made every restart resend hundreds of prompts, each frame another chance
// of a fault, and the run never caught up (issue 18).
const DefaultWindow = 4

// live returns the pending submissions in submission order; some may have
// been resolved since, which callers skip. It drops the resolved ones at
// the front, and once most of the rest are resolved it starts a new slice
// without them: never rewriting the one a caller may be ranging over (an
// outcome during a loop comes back here through admit).
func (c *Client) live() []*submission {
	front := 0
	for front < len(c.pending) && c.pending[front].done {
		front++
	}
	c.pending = c.pending[front:]
	c.resolvedPending -= front
	if c.resolvedPending > 16 && 2*c.resolvedPending >= len(c.pending) {
		kept := make([]*submission, 0, len(c.pending)-c.resolvedPending+16)
		for _, s := range c.pending {
			if !s.done {
				kept = append(kept, s)
			}
		}
		c.pending, c.resolvedPending = kept, 0
	}
	return c.pending
}

// queued adds s to the pending submissions.
func (c *Client) queued(s *submission) {
	c.pending = append(c.pending, s)
	c.sessions[s.sess].unresolved++
}

// resolved notes that s, pending until now, has its outcome.
func (c *Client) resolved(s *submission) {
	c.resolvedPending++
	c.sessions[s.sess].unresolved--
}

// inWindow reports whether s, the newest submission of its session, is
// among the Window oldest unresolved ones, the ones the Client may send.
func (c *Client) inWindow(s *submission) bool {
	return c.sessions[s.sess].unresolved <= c.cfg.Window
}

// admit sends the prompts of session i the window now holds that it held
// back, once an outcome made room: the next pending input goes out.
func (c *Client) admit(i int) {
	if !c.ready || c.conn == "" || c.sessions[i].state != sessReady {
		return
	}
	c.sendWindow(i, true)
}

// sendWindow sends, oldest first, the prompts of session i its window
// holds that are not in flight: only those held back (waiting) for admit,
// all of them for a session just ready.
func (c *Client) sendWindow(i int, heldBackOnly bool) {
	n := 0
	for _, s := range c.live() {
		if s.sess != i || s.done {
			continue
		}
		if s.inflight == "" && (s.waiting || !heldBackOnly) {
			s.waiting = false
			c.send(s)
			if s.done {
				continue // the policy gave up on it: the next one moves up
			}
		}
		if n++; n >= c.cfg.Window {
			return
		}
	}
}
