package client

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Saved is what a Client keeps on disk, so that it survives the Client's
// own restart (docs/design.md#actors-actors): the sessions it learned and every submission
// it has not resolved yet, with its key. The RFD asks for exactly this: the
// key is made at submission, "stored with the pending input" and sent again
// "including after reconnecting or restarting". Requests, timers and
// connections live in memory and are lost.
type Saved struct {
	// Sessions holds each session's id by index, "" for one never created.
	Sessions []string
	// ParentKeys holds, by the same index, the keys a fork's parent had
	// bound when the user forked it (nil for a session that is no fork).
	ParentKeys [][]string
	Subs       []SavedSub
	// Attributed are the messages the Client knows belong to one of its
	// submissions (a Client keeps its transcript with the messageIds), so
	// a Lookup Client never claims them after a restart.
	Attributed []SavedMessage
	// Keys are every key the Client has made, with its session: a key names
	// one submission of its session for as long as the Agent keeps the
	// message, so it is never made again there, even after a restart.
	Keys []SavedKey

	// keySet and attributed are a dead Client's own indexes of Keys and
	// Attributed (Died), which the Client restored from this Saved takes
	// over instead of building them again from the whole history at every
	// restart; nil otherwise.
	keySet     map[SavedKey]struct{}
	attributed map[string]string
}

// SavedKey is a key made for a submission of session number Session.
type SavedKey struct {
	Session int
	Key     string
}

// SavedSub is one pending submission as a Client stores it.
type SavedSub struct {
	ID      string
	Text    string
	Session int
	Key     string // "" for a Client without keys
	// NullKey: its attempts carry "idempotencyKey": null.
	NullKey bool
	// Attempts is how many attempts the Client may have sent: a real Client
	// notes an attempt before writing it, so a crash in between counts it.
	Attempts int
	// At is when the user submitted it, on the host's clock.
	At time.Duration
	// Stray: an attempt went out on a connection left open (the Client
	// writes this down when it abandons the connection).
	Stray bool
}

// SavedMessage is a message of a session the Client attributes to its
// submission Sub.
type SavedMessage struct {
	Session   string
	MessageID string
	Sub       string
}

// Persisted returns what the Client has on disk now. A submission resolved
// by the step whose outputs the host has not applied yet is still pending:
// its user was not told, so a Client that dies here must resolve it again.
func (c *Client) Persisted() Saved {
	var s Saved
	for _, sess := range c.sessions {
		s.Sessions = append(s.Sessions, sess.id)
		s.ParentKeys = append(s.ParentKeys, slices.Clone(sess.parentKeys))
	}
	s.Keys = slices.Clip(c.keys) // only ever appended to: no copy needed
	for _, sub := range c.subs {
		if sub.done && !c.resolvedNow(sub) {
			continue
		}
		s.Subs = append(s.Subs, SavedSub{ID: sub.id, Text: sub.text, Session: sub.sess, Key: sub.key, NullKey: sub.nullKey, Attempts: sub.attempts, At: sub.at, Stray: sub.stray})
	}
	for k, sub := range c.attributed { // sorted below: map order must not show
		sid, mid, _ := strings.Cut(k, "\x00")
		s.Attributed = append(s.Attributed, SavedMessage{Session: sid, MessageID: mid, Sub: sub})
	}
	slices.SortFunc(s.Attributed, func(a, b SavedMessage) int {
		return cmp.Or(cmp.Compare(a.Session, b.Session), cmp.Compare(a.MessageID, b.MessageID))
	})
	return s
}

// Died is Persisted for a Client that dies now: the Client restored from
// what it returns (once) takes over its indexes, and c is not used again.
func (c *Client) Died() Saved {
	s := c.Persisted()
	s.keySet, s.attributed = c.keySet, c.attributed
	c.keySet, c.attributed = nil, nil
	return s
}

func (c *Client) resolvedNow(sub *submission) bool {
	for _, d := range c.justDone {
		if d == sub {
			return true
		}
	}
	return false
}

// Restore returns a Client started again from what a previous one saved;
// call Start to make it connect. Known sessions are resumed, not created
// again, and pending submissions keep their keys, so a keyed Client's
// resends are retries the Agent answers from the binding. Request and timer
// ids start over. A Client without resends (none) does not send again what
// it may have sent: those submissions are dropped without a word (outcome
// abandoned, reported by Start); one never sent is sent now. A Lookup
// Client looks up every submission it may have sent before resending it.
func Restore(cfg Config, env Env, s Saved) *Client {
	c := New(cfg, env)
	for i, id := range s.Sessions {
		if i >= len(c.sessions) { // a fork the user made
			c.sessions = append(c.sessions, &clientSession{})
		}
		c.sessions[i].id = id
		if i < len(s.ParentKeys) {
			c.sessions[i].parentKeys = slices.Clone(s.ParentKeys[i])
		}
	}
	c.keys = slices.Clip(s.Keys) // appended to by this Client only after a copy
	if s.keySet != nil && len(s.keySet) == len(s.Keys) {
		c.keySet = s.keySet
	} else {
		for _, k := range s.Keys {
			c.keySet[k] = struct{}{}
		}
	}
	if s.attributed != nil && len(s.attributed) == len(s.Attributed) {
		c.attributed = s.attributed
	} else {
		for _, m := range s.Attributed {
			c.attributed[m.Session+"\x00"+m.MessageID] = m.Sub
		}
	}
	for _, ss := range s.Subs {
		sub := &submission{id: ss.ID, text: ss.Text, sess: ss.Session % len(c.sessions), key: ss.Key, nullKey: ss.NullKey, attempts: ss.Attempts, at: ss.At, stray: ss.Stray}
		c.subs = append(c.subs, sub)
		c.queued(sub)
		sub.waiting = true // nothing of it is out on a connection yet
		switch {
		case sub.attempts == 0:
		case !c.resends(sub):
			c.outcome(sub, c.noResendOutcome(), "")
		case cfg.Policy.Lookup:
			sub.lookup = true
		}
	}
	return c
}
