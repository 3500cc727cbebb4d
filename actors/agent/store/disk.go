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

	// versions stamps each session's messages with the clock at their
	// last change (Version); the clock never goes back, not even when a
	// crash rebuilds the disk.
	versions map[string]uint64
	clock    uint64
	// undo holds, for each unsynced batch, how to take it back without
	// replaying the whole log (nil: a batch only a replay can undo).
	undo []*undoRec
}

// undoRec is what one batch changed, as far as Crash needs to take it back:
// the sessions it wrote (with their records before, or none), how many
// messages each session had, the bindings it added.
type undoRec struct {
	sessions []prevSession
	msgLens  []msgLen // per session the batch adds messages to, in batch order
	bindings [][2]string
}

// msgLen is how many messages a session held before a batch.
type msgLen struct {
	session string
	n       int
}

type prevSession struct {
	id      string
	rec     Session
	existed bool
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
	d.versions = map[string]uint64{}
}

// Version is a stamp of session's messages: equal stamps, equal messages.
// An Agent process that knows its copy matches one stamp need not compare
// the messages again to know they are unchanged (a resume of a long
// session read all of them each time).
func (d *Disk) Version(session string) uint64 { return d.versions[session] }

func (d *Disk) touch(session string) {
	d.clock++
	d.versions[session] = d.clock
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
	b.Unbind = slices.Clone(b.Unbind)
	d.log = append(d.log, b)
	d.undo = append(d.undo, d.undoOf(b))
	d.apply(b)
	return nil
}

// undoOf records what b will change, before it is applied; nil when b
// deletes or forgets (Crash then replays the log).
func (d *Disk) undoOf(b Batch) *undoRec {
	if len(b.Delete) > 0 || len(b.Forget) > 0 || len(b.Unbind) > 0 {
		return nil
	}
	u := &undoRec{}
	for _, s := range b.Sessions {
		p := prevSession{id: s.ID}
		if i, ok := d.sessIdx[s.ID]; ok {
			p.rec, p.existed = d.sessions[i], true
		}
		u.sessions = append(u.sessions, p)
	}
	for _, m := range b.Messages {
		// A batch adds to one session or two: a scan beats a map.
		if !slices.ContainsFunc(u.msgLens, func(l msgLen) bool { return l.session == m.Session }) {
			u.msgLens = append(u.msgLens, msgLen{m.Session, len(d.messages[m.Session])})
		}
	}
	for _, k := range b.Bindings {
		u.bindings = append(u.bindings, [2]string{k.Session, k.Key})
	}
	return u
}

// revert takes back a batch recorded by undoOf, the newest applied.
func (d *Disk) revert(u *undoRec) {
	for _, l := range u.msgLens {
		// Clipped: a process holding the longer slice keeps its elements.
		d.messages[l.session] = slices.Clip(d.messages[l.session][:l.n])
		d.touch(l.session)
	}
	for _, k := range u.bindings {
		delete(d.bindings, k)
	}
	for i := len(u.sessions) - 1; i >= 0; i-- {
		p := u.sessions[i]
		switch {
		case p.existed:
			d.sessions[d.sessIdx[p.id]] = p.rec
		default: // added by the batch, so the newest of them
			d.sessions = d.sessions[:len(d.sessions)-1]
			delete(d.sessIdx, p.id)
		}
	}
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
		d.touch(m.Session)
	}
	for _, k := range b.Bindings {
		d.bindings[[2]string{k.Session, k.Key}] = k
	}
	for _, id := range b.Delete {
		d.deleteSession(id)
	}
	for _, k := range b.Unbind {
		delete(d.bindings, [2]string{k.Session, k.Key})
	}
	for _, m := range b.Forget {
		msgs := d.messages[m.Session]
		for i := range msgs {
			if msgs[i].ID == m.ID {
				if msgs[i].Key != "" {
					delete(d.bindings, [2]string{m.Session, msgs[i].Key})
				}
				d.messages[m.Session] = append(msgs[:i:i], msgs[i+1:]...)
				d.touch(m.Session)
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
	d.touch(id)
	for k := range d.bindings { // deleting only: the order cannot show
		if k[0] == id {
			delete(d.bindings, k)
		}
	}
}

// Sync implements Store.
func (d *Disk) Sync() {
	d.synced = len(d.log)
	clear(d.undo)
	d.undo = d.undo[:0]
}

// Unsynced is the number of committed batches a crash could lose.
func (d *Disk) Unsynced() int { return len(d.log) - d.synced }

// Crash models the death of the process writing to d: when lose is true the
// unsynced batches are gone, otherwise the OS had flushed them.
func (d *Disk) Crash(lose bool) {
	if !lose || d.synced == len(d.log) {
		d.Sync()
		return
	}
	if !slices.Contains(d.undo, nil) {
		// Taking back the few unsynced batches, not replaying every
		// synced one: a long run crashes often, and its log is long.
		for i := len(d.undo) - 1; i >= 0; i-- {
			d.revert(d.undo[i])
		}
	} else {
		d.reset()
		for _, b := range d.log[:d.synced] {
			d.apply(b)
		}
		for id := range d.messages { // deleting only: the order cannot show
			d.touch(id)
		}
	}
	d.log = d.log[:d.synced]
	d.Sync()
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
