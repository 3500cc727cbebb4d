// This file holds the retry policy at work: sending a submission's attempts,
// deciding when to give up, and reading the answers to prompt requests.

package client

import (
	"strconv"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// stop reports whether the policy gives up on s instead of sending it
// again, and if so tells the user the outcome is unknown. It is asked when
// an attempt is known lost and again before a resend, since a submission
// may turn stale while it waits for its session.
func (c *Client) stop(s *submission) bool {
	if s.done || s.attempts == 0 {
		return s.done
	}
	p := c.cfg.Policy
	if s.timeouts >= c.cfg.PromptTimeouts {
		// Patience is over whatever the policy: the user is told the truth,
		// that the Agent may or may not have taken it.
		c.outcome(s, traces.OutcomeUnknown, "")
		return true
	}
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

// promptWait is how long the Client waits for the answer to s's next
// attempt: Timeout, doubled for each attempt of s that went unanswered on a
// live connection, up to promptWaitDoublings doublings. An Agent holding
// the prompt behind other work answers every attempt when it inserts it,
// so resending at a fixed pace only piles attempts onto a busy Agent, and
// the more prompts wait the more it piles (the retry storm of issue 18).
func (c *Client) promptWait(s *submission) time.Duration {
	return c.cfg.Timeout << min(s.timeouts, promptWaitDoublings)
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
		c.madeKey(s.sess, s.key)
	}
	switch {
	case s.key != "":
		p.IdempotencyKey, p.KeyText = acp.KeyJSON(s.key), s.key
	case s.nullKey:
		p.IdempotencyKey = nullKey
	}
	s.inflight = c.requestAs(request{kind: reqPrompt, sess: s.sess, sub: s, early: early}, acp.MethodSessionPrompt, p)
	s.attempts++
	c.setTimer(timer{kind: timerTimeout, sub: s, attempt: s.attempts}, Output{After: c.promptWait(s)})
	c.stalled(s)
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

func (c *Client) promptResponse(r request, m *acp.Message) {
	s := r.sub
	if m.Error == nil && c.cfg.Protocol == acp.ProtocolV1 {
		c.v1PromptResponse(s, m)
		return
	}
	if m.Error == nil {
		res, ok := acp.DecodePromptResult(m.Result)
		ok = ok && res.MessageID != ""
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
		// An older attempt is still unanswered: its answer decides. The
		// RFD has the Agent answer every pending request of the key -32800
		// when one is cancelled, so a user may rely on that (an Agent that
		// withdraws only the named request then inserts the other). Or the
		// Client cancels it too: on a link that reorders (HTTP) it may still
		// be on its way, to arrive after the cancel freed the key.
		if older, ok := c.olderAttempt(s, m.ID); ok {
			s.inflight = older
			if c.draw(s.id+"/cancel-each-attempt", 2) != 0 {
				c.cancelAttempt(older)
			}
			return
		}
	}
	s.inflight = ""
	switch {
	case r.early && m.Error.Code == acp.CodeResourceNotFound:
		// The bug of ResendBeforeResume: the session was not resumed yet, so
		// -32002 says nothing about the original attempt.
		c.outcome(s, traces.OutcomeFailed, "")
	case m.Error.Code == acp.CodeInternalError && c.resends(s):
		// An error leaves the prompt uninserted: resend, no lookup needed.
		if !c.stop(s) {
			c.setTimer(timer{kind: timerRetry, sub: s}, Output{After: c.cfg.Backoff})
		}
	case m.Error.Code == acp.CodeResourceNotFound && c.resends(s):
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
	case m.Error.Code == acp.CodeRequestCancelled && c.sendsAgain(s):
		// The user sends the cancelled input again. "Errors leave the key
		// unused ... the Client can send the same prompt with the same key
		// again": the same submission, its same key, one more attempt.
		c.setTimer(timer{kind: timerRetry, sub: s}, Output{After: c.cfg.Backoff})
	default:
		c.outcome(s, traces.OutcomeFailed, "")
	}
}

// resends reports whether s is sent again when an attempt of it is lost:
// the policy resends, and s has a key if the policy keys. A keyed Client's
// submission sent without a key is no safer to resend than a naive one's.
func (c *Client) resends(s *submission) bool {
	p := c.cfg.Policy
	return p.Resend && !(p.Keyed && s.key == "")
}

// noResendOutcome is what the user is told of a submission whose attempt
// was lost and that is not resent: a Client without resends drops it
// without a word (abandoned); a keyed Client, which sent this one without
// a key, tells the user it does not know.
func (c *Client) noResendOutcome() string {
	if c.cfg.Policy.Keyed || c.cfg.Policy.TellsUnknown {
		return traces.OutcomeUnknown
	}
	return traces.OutcomeAbandoned
}

// sendsAgain reports whether the user of a keyed, resending Client sends
// a cancelled submission again (a seeded draw of its own per submission).
func (c *Client) sendsAgain(s *submission) bool {
	p := c.cfg.Policy
	if !p.Keyed || !p.Resend || s.key == "" || s.sentAgain || c.draw(s.id+"/send-again", sendAgainOneIn) != 0 || c.stop(s) {
		return false
	}
	s.sentAgain = true
	return true
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
