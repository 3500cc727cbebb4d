package properties

import (
	"strconv"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The final transcripts are the evidence of what was inserted: what the
// observer read replaying each session, made final by its session/resume answer.

type transcript struct {
	// sealed: messages before this index were followed by another update
	// in the replay; a whole user_message naming one of them again is a
	// second history entry, not a patch.
	sealed   int
	session  string
	sessionH int32 // session's handle (Interner.ID)
	link     string
	lk       *linkState
	seq, t   int64 // the observer's successful session/resume answer
	msgs     []tmsg
	// index finds a message by its id's handle; in gave the handles.
	index map[int32]int32
	in    *Interner
}

type tmsg struct {
	id, text string
	idH      int32    // id's handle (Interner.ID)
	seq      int64    // first delivery of an update carrying it
	bound    int64    // it was inserted before this seq (set by attribute)
	owner    *respRec // the first success response that named it (set by bound)
	// unnamed: the replay gave it no messageId (ACP v1): its id is the
	// checker's, and only its text can attribute it.
	unnamed bool
}

// apply adds an update of the replay; own copies what t keeps (checker.own).
// u has its handles (checker.updIDs).
func (t *transcript) apply(u *updView, seq int64, own func(string) string) {
	if u.msgID == "" {
		t.applyUnnamed(u, seq, own)
		return
	}
	j, ok := t.index[u.msgH]
	i := int(j)
	if ok && u.kind == acp.UpdateUserMessage && i < t.sealed {
		// The replay came back to a message it had moved past: the
		// history holds this id twice, two messages under one name (an
		// adapter whose runtime appended a repeated id).
		ok = false
	}
	if !ok {
		if t.index == nil {
			t.index = map[int32]int32{}
		}
		i = len(t.msgs)
		id := own(u.msgID) // not the frame's
		t.index[u.msgH] = int32(i)
		t.msgs = append(t.msgs, tmsg{id: id, idH: u.msgH, seq: seq})
	}
	m := &t.msgs[i]
	switch u.kind {
	case acp.UpdateUserMessage:
		// A whole update without content patches other fields only; with
		// content (even null or []) it replaces what chunks built.
		if u.hasContent() {
			m.text = own(u.text())
		}
	case acp.UpdateUserMessageChunk:
		if t := u.text(); m.text == "" {
			m.text = own(t) // "" + t would be t itself, the frame's
		} else {
			m.text += t
		}
	}
}

// applyUnnamed adds a user message update that carries no messageId, as
// ACP v1's replay sends them: consecutive chunks (nothing else replayed
// between them) are one message, and each message gets a name of its own,
// by its place in the replay, that no Agent's messageId can take.
func (t *transcript) applyUnnamed(u *updView, seq int64, own func(string) string) {
	n := len(t.msgs)
	if n == 0 || n <= t.sealed || !t.msgs[n-1].unnamed || u.kind != acp.UpdateUserMessageChunk {
		if t.index == nil {
			t.index = map[int32]int32{}
		}
		id := "unnamed#" + strconv.Itoa(n+1)
		h := t.in.ID(id)
		t.index[h] = int32(n)
		t.msgs = append(t.msgs, tmsg{id: id, idH: h, seq: seq, unnamed: true, text: own(u.text())})
		return
	}
	t.msgs[n-1].text += u.text()
}

// has reports whether the transcript holds a message with this id.
func (t *transcript) has(id string) bool {
	_, ok := t.find(id)
	return ok
}

// find is the index of the message with this id.
func (t *transcript) find(id string) (int, bool) {
	h, ok := t.in.lookup(id)
	if !ok {
		return 0, false // an id never read names nothing
	}
	return t.at(h)
}

// hasH reports whether the transcript holds the message whose id has handle h.
func (t *transcript) hasH(h int32) bool {
	_, ok := t.at(h)
	return ok
}

// at is the index of the message whose id has handle h; none when t is nil
// (a session whose transcript was never read).
func (t *transcript) at(h int32) (int, bool) {
	if t == nil {
		return 0, false
	}
	i, ok := t.index[h]
	return int(i), ok
}

func (c *checker) observe(l *linkState, u *updView, e *traces.Event) {
	if u.kind != acp.UpdateUserMessage && u.kind != acp.UpdateUserMessageChunk {
		if t := l.cand[u.session]; t != nil {
			t.sealed = len(t.msgs)
		}
		return
	}
	t := l.cand[u.session]
	if t == nil {
		if l.cand == nil {
			l.cand = map[string]*transcript{}
		}
		t = &transcript{session: u.session, sessionH: u.sessionH, in: c.in}
		l.cand[u.session] = t
	}
	t.apply(u, e.Seq, c.own)
}

// finalize makes what the observer read on l for session the final transcript;
// a later successful resume of the same session replaces it.
func (c *checker) finalize(l *linkState, session string, e *traces.Event) {
	t := l.cand[session]
	if t == nil {
		if l.cand == nil {
			l.cand = map[string]*transcript{}
		}
		t = &transcript{session: session, sessionH: c.in.ID(session), in: c.in}
		l.cand[session] = t
	}
	t.link, t.lk, t.seq, t.t = l.name, l, e.Seq, e.T
	if c.final[session] == nil {
		c.sessOrder = append(c.sessOrder, session)
	}
	c.final[session] = t
	// Live updates after the resume answer (the observer's probes, work
	// that goes on) are not history: they start a new candidate that only
	// a later resume would make final.
	delete(l.cand, session)
}
