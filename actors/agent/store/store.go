// Package store is the Agent's durable state: sessions, messages and
// idempotency-key bindings, behind one small interface with an atomic
// insert-if-absent on (session, key). The simulator's implementation (Disk)
// can lose writes that were not synced when its process crashes.
package store

import (
	"errors"
	"fmt"
)

// Session is a stored session.
type Session struct {
	ID    string
	Cwd   string
	Title string
}

// Roles of stored messages.
const (
	RoleUser  = "user"
	RoleAgent = "agent"
)

// Message is a stored message of a session's history. Content is the
// message's content blocks as JSON, kept as the Client sent them; Text is
// their text, for comparisons and reports.
type Message struct {
	Session string
	ID      string
	Role    string
	Text    string
	Content []byte
	// Key is the idempotency key the message was inserted with, if any: a
	// message discarded under history retention takes its binding along.
	Key string
}

// Binding records that idempotency key Key of Session inserted MessageID.
// Prompt is the prompt it was bound with, for Agents that compare a reused
// key's prompt.
type Binding struct {
	Session   string
	Key       string
	MessageID string
	Prompt    string
}

// Batch is one atomic write: sessions to create or update, messages to
// append, bindings to insert if absent, sessions to delete with their
// messages and bindings, messages to forget with their bindings. Either all of it is applied or none.
type Batch struct {
	Sessions []Session
	Messages []Message
	Bindings []Binding
	Delete   []string
	// Forget discards messages (by Session and ID) with their key bindings.
	Forget []Message
	// Unbind drops key bindings (by Session and Key) and keeps their
	// messages: a key whose window ran out (the key-window knob).
	Unbind []Binding
	// UniqueIDs makes Commit refuse the batch (ErrMessageExists, nothing
	// written) when one of its Messages has an ID its session already holds:
	// a runtime that refuses a repeated message id.
	UniqueIDs bool
}

// ErrMessageExists is returned by Commit for a batch with UniqueIDs whose
// message id is already in its session; nothing of the batch is written.
var ErrMessageExists = errors.New("message id already in the session")

// ErrKeyBound is returned (wrapped in *BoundError) when a batch would bind a
// key that is already bound; nothing of the batch is written.
var ErrKeyBound = errors.New("idempotency key already bound")

// BoundError names the binding that made a Commit fail.
type BoundError struct{ Existing Binding }

func (e *BoundError) Error() string {
	return fmt.Sprintf("%v: session %s key bound to message %s", ErrKeyBound, e.Existing.Session, e.Existing.MessageID)
}

// Unwrap lets errors.Is(err, ErrKeyBound) work.
func (e *BoundError) Unwrap() error { return ErrKeyBound }

// Store is what an Agent process sees of its durable state.
type Store interface {
	// Commit applies b atomically. If any binding of b exists already it
	// returns a *BoundError and writes nothing.
	Commit(b Batch) error
	// Sync makes every committed batch durable.
	Sync()
	// Sessions lists stored sessions in creation order.
	Sessions() []Session
	// Messages lists a session's messages in insertion order. The slice
	// may be the store's own: a caller may append to it (its capacity ends
	// at its length) but must not write its elements.
	Messages(session string) []Message
	// Binding returns the binding of a key of a session.
	Binding(session, key string) (Binding, bool)
}
