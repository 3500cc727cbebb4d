// This file holds the Lookup policy's reconciliation: reading the user
// messages a replay brings and claiming one, by its text, for a submission
// whose answer never came.

package client

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// needsLookup reports whether a submission of session i waits for a lookup
// that no replay requested so far can answer.
func (c *Client) needsLookup(i int) bool {
	if !c.cfg.Policy.Lookup {
		return false
	}
	for _, s := range c.live() {
		if s.sess == i && s.lookup && !s.asked && !s.done {
			return true
		}
	}
	return false
}

// eachLookup calls fn with every pending submission a Lookup Client may
// have marked for a lookup. Only that policy marks any (attemptLost, a
// restart's recovery), and the pending list holds a long run's whole
// backlog: walking it at every session opened made a run of held prompts
// quadratic in its length.
func (c *Client) eachLookup(fn func(*submission)) {
	if !c.cfg.Policy.Lookup {
		return
	}
	for _, s := range c.live() {
		fn(s)
	}
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
	if c.cfg.Protocol == acp.ProtocolV1 {
		for _, s := range c.sessions {
			if s.replaying && s.id == p.SessionID {
				s.v1Replayed(u)
			}
		}
	}
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
	c.eachLookup(func(s *submission) {
		if s.sess != i || !s.asked || s.done {
			return
		}
		s.lookup, s.asked = false, false
		if m := c.claim(sess, s); m != "" {
			c.attribute(i, m, s.id)
			c.outcome(s, traces.OutcomeInserted, m)
		}
	})
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
