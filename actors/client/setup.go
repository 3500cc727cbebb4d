// This file holds how the model Client copes with an Agent that answers its
// session set-up (session/new, session/resume) with errors: it waits longer
// after each answered error (exponential, capped, with jitter from the
// host's seeded stream) and, after a bounded number of them in a row, stops
// trying the session and tells the user what became of its submissions.
// Set-up requests lost with their connection or unanswered in time do not
// count: those keep the ordinary reconnect and resend path.

package client

import (
	"time"

	"github.com/acpsim/acpsim/traces"
)

// Defaults of the set-up backoff (Config.SetupAttempts, Config.BackoffCap).
// Eight answered errors in a row take at most about 2.3 s with a 20 ms
// Backoff (20 ms doubling up to the 1 s cap), far longer than any transient
// failure of a healthy Agent, which answers the next attempt.
const (
	DefaultSetupAttempts = 8
	DefaultBackoffCap    = time.Second
)

// setupBackoff is the wait before the next set-up attempt of a session
// whose last n attempts (n >= 1) were answered with errors: Backoff doubled
// per error up to BackoffCap, then drawn uniformly from its upper half, so
// that Clients sharing a failing Agent do not retry in step.
func (c *Client) setupBackoff(n int) time.Duration {
	d := c.cfg.Backoff
	for i := 1; i < n && d < c.cfg.BackoffCap; i++ {
		d *= 2
	}
	d = min(d, c.cfg.BackoffCap)
	if c.env.IntN == nil || d < 2 {
		return d
	}
	half := d / 2
	return d - half + time.Duration(c.env.IntN(int(half)+1))
}

// setupErrorAnswered is session number i's set-up request answered with an
// error (or an answer without a session id). The session is tried again
// after the backoff, or, once SetupAttempts answers in a row were errors,
// given up: its pending submissions are resolved (setupGiveUp).
func (c *Client) setupErrorAnswered(i int) {
	s := c.sessions[i]
	s.state = sessDown
	s.setupErrors++
	if s.setupErrors >= c.cfg.SetupAttempts {
		c.setupGiveUp(i)
		return
	}
	c.setTimer(timer{kind: timerReopen, sess: i}, Output{After: c.setupBackoff(s.setupErrors)})
}

// setupGiveUp stops trying session number i. The user learns the outcome of
// every submission waiting on it now: unknown for one an attempt of which
// may have gone out (the Agent may have inserted it), failed for one never
// sent (nothing of it reached the Agent). Later submissions to the session
// fail at once.
func (c *Client) setupGiveUp(i int) {
	c.sessions[i].gaveUp = true
	for _, sub := range c.live() {
		if sub.sess == i && !sub.done {
			c.giveUpOn(sub)
		}
	}
}

func (c *Client) giveUpOn(sub *submission) {
	if sub.attempts == 0 && !sub.stray {
		c.outcome(sub, traces.OutcomeFailed, "")
		return
	}
	c.outcome(sub, traces.OutcomeUnknown, "")
}

// openOrWait opens session number i on a connection just made ready, unless
// its last set-up attempts were answered with errors: then it waits out the
// backoff first, as it would have on the old connection.
func (c *Client) openOrWait(i int, s *clientSession) {
	switch {
	case s.gaveUp:
	case s.setupErrors > 0:
		s.state = sessDown
		c.setTimer(timer{kind: timerReopen, sess: i}, Output{After: c.setupBackoff(s.setupErrors)})
	default:
		c.openSession(i, s)
	}
}
