package store

import (
	"fmt"
	"slices"
)

// Disk is the simulator's Store: committed batches are visible at once but
// durable only after Sync; Crash decides whether the unsynced ones survive.
// It is shared by every incarnation of an Agent process (and by several Agent
// nodes that share one store).
type Disk struct {
	log    []Batch // every committed batch, in order
	synced int     // log[:synced] is durable

	sessions []Session
	sessIdx  map[string]int
	messages map[string][]Message
	bindings map[[2]string]Binding
}

// NewDisk returns an empty disk.
func NewDisk() *Disk {
	d := &Disk{}
	d.reset()
	return d
}

func (d *Disk) reset() {
	d.sessions = nil
	d.sessIdx = map[string]int{}
	d.messages = map[string][]Message{}
	d.bindings = map[[2]string]Binding{}
}

// Commit implements Store.
func (d *Disk) Commit(b Batch) error {
	for _, k := range b.Bindings {
		if old, ok := d.bindings[[2]string{k.Session, k.Key}]; ok {
			return &BoundError{Existing: old}
		}
	}
	if b.UniqueIDs {
		for _, m := range b.Messages {
			for _, old := range d.messages[m.Session] {
				if old.ID == m.ID {
					return fmt.Errorf("%w: session %s message %s", ErrMessageExists, m.Session, m.ID)
				}
			}
		}
	}
	// The log keeps its own copy: a caller that goes on appending to the
	// slices it passed must not rewrite what a crash would replay.
	b.Sessions = slices.Clone(b.Sessions)
	b.Messages = slices.Clone(b.Messages)
	b.Bindings = slices.Clone(b.Bindings)
	b.Delete = slices.Clone(b.Delete)
	b.Forget = slices.Clone(b.Forget)
	d.log = append(d.log, b)
	d.apply(b)
	return nil
}

func (d *Disk) apply(b Batch) {
	for _, s := range b.Sessions {
		if i, ok := d.sessIdx[s.ID]; ok {
			d.sessions[i] = s
			continue
		}
		d.sessIdx[s.ID] = len(d.sessions)
		d.sessions = append(d.sessions, s)
	}
	for _, m := range b.Messages {
		d.messages[m.Session] = append(d.messages[m.Session], m)
	}
	for _, k := range b.Bindings {
		d.bindings[[2]string{k.Session, k.Key}] = k
	}
	for _, id := range b.Delete {
		d.deleteSession(id)
	}
	for _, m := range b.Forget {
		msgs := d.messages[m.Session]
		for i := range msgs {
			if msgs[i].ID == m.ID {
				if msgs[i].Key != "" {
					delete(d.bindings, [2]string{m.Session, msgs[i].Key})
				}
				d.messages[m.Session] = append(msgs[:i:i], msgs[i+1:]...)
				break
			}
		}
	}
}

func (d *Disk) deleteSession(id string) {
	i, ok := d.sessIdx[id]
	if !ok {
		return
	}
	d.sessions = append(d.sessions[:i], d.sessions[i+1:]...)
	delete(d.sessIdx, id)
	for j := i; j < len(d.sessions); j++ {
		d.sessIdx[d.sessions[j].ID] = j
	}
	delete(d.messages, id)
	for k := range d.bindings { // deleting only: the order cannot show
		if k[0] == id {
			delete(d.bindings, k)
		}
	}
}

// Sync implements Store.
func (d *Disk) Sync() { d.synced = len(d.log) }

// Unsynced is the number of committed batches a crash could lose.
func (d *Disk) Unsynced() int { return len(d.log) - d.synced }

// Crash models the death of the process writing to d: when lose is true the
// unsynced batches are gone, otherwise the OS had flushed them.
func (d *Disk) Crash(lose bool) {
	if !lose || d.synced == len(d.log) {
		d.synced = len(d.log)
		return
	}
	d.log = d.log[:d.synced]
	d.reset()
	for _, b := range d.log {
		d.apply(b)
	}
}

// Sessions implements Store.
func (d *Disk) Sessions() []Session { return append([]Session(nil), d.sessions...) }

// Messages implements Store. The slice is the disk's own, clipped: an
// Agent process starting or resuming a session reads its history without
// copying all of it, which made a long run quadratic in its prompts.
func (d *Disk) Messages(session string) []Message {
	return slices.Clip(d.messages[session])
}

// Binding implements Store.
func (d *Disk) Binding(session, key string) (Binding, bool) {
	b, ok := d.bindings[[2]string{session, key}]
	return b, ok
}
