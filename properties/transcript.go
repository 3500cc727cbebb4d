package properties

import (
	"strconv"
)

// The final transcripts are the evidence of what was inserted: what the
// observer read replaying each session, made final by its session/resume
// answer. The Agent's own updates are read here too: what they name (the
// messages table), and what rework and live ids need of them.

// transRow is a transcript: a candidate the observer is reading on a link,
// or, once its resume answer arrived (seq), a session's final one.
type transRow struct {
	session, link int32
	seq, t        int64 // the observer's successful session/resume answer
	// sealed: messages before this place were followed by another update
	// in the replay; a whole user_message naming one of them again is a
	// second history entry, not a patch.
	sealed int32
	// msgs threads its messages (tmsgRow.next) in order; n counts them.
	first, last, n int32
}

// tmsgRow is a message of a transcript.
type tmsgRow struct {
	id   int32 // id handle
	text int32 // text handle
	seq  int64 // first delivery of an update carrying it
	pos  int32 // its place in the transcript
	next int32
	// unnamed: the replay gave it no messageId (ACP v1): its id is the
	// checker's, and only its text can attribute it.
	unnamed bool
}

// updRow is an update to the observer in flight.
type updRow struct {
	session, message, text int32
	kind                   word
	content                bool
}

// transKey is a message of a transcript, by the transcript's index and
// the message id's handle; candKey a candidate, by link and session.
type (
	transKey struct{ trans, msg int32 }
	candKey  struct{ link, session int32 }
)

// agentUpdate reads an update the Agent sent (x): a user message names
// its message (the messages table) and is new on its link or not (for
// rework); a state is read for rework.
func (lg *ledger) agentUpdate(x *fact) {
	switch x.update {
	case wStateUpdate:
		lg.agentState(x)
		return
	case wUserMessage, wUserMessageChunk:
	default:
		return
	}
	m, known := lg.msgFor(msgKey{x.session, x.message})
	if !known {
		m.first, m.firstT = x.seq, x.t
		lg.noteNamed(x.session, x.message, x.seq, x.text)
	}
	ls := lg.ls(x.link, x.session)
	lg.noteLive(x, m, ls.resumes > 0)
	// New on this link: first announced as a user message after the
	// link's last idle (so a broadcast to several links counts on each),
	// and never handed out from a binding.
	if (m.firstUser == 0 || m.firstUser > ls.idleSeq) && !m.bound {
		ls.newSinceIdle = true
	}
	if m.firstUser == 0 {
		m.firstUser = x.seq
	}
}

// observe applies an update delivered to the observer on link (x its
// delivery).
func (lg *ledger) observe(link int32, u *updRow, seq int64) {
	ck := candKey{link, u.session}
	ti, ok := lg.cand[ck]
	if u.kind != wUserMessage && u.kind != wUserMessageChunk {
		if ok {
			lg.trans[ti].sealed = lg.trans[ti].n
		}
		return
	}
	if !ok {
		ti = lg.newTrans(u.session, link)
		if lg.cand == nil {
			lg.cand = map[candKey]int32{}
		}
		lg.cand[ck] = ti
	}
	lg.apply(ti, u, seq)
}

func (lg *ledger) newTrans(session, link int32) int32 {
	lg.trans = append(lg.trans, transRow{session: session, link: link, first: none, last: none})
	return int32(len(lg.trans) - 1)
}

// apply adds an update of the replay to transcript ti.
func (lg *ledger) apply(ti int32, u *updRow, seq int64) {
	if u.message == noID {
		lg.applyUnnamed(ti, u, seq)
		return
	}
	t := &lg.trans[ti]
	j, ok := lg.tmsgAt[transKey{ti, u.message}]
	if ok && u.kind == wUserMessage && lg.tmsgs[j].pos < t.sealed {
		// The replay came back to a message it had moved past: the
		// history holds this id twice, two messages under one name (an
		// adapter whose runtime appended a repeated id).
		ok = false
	}
	if !ok {
		j = lg.addTmsg(ti, tmsgRow{id: u.message, seq: seq})
	}
	m := &lg.tmsgs[j]
	switch u.kind {
	case wUserMessage:
		// A whole update without content patches other fields only; with
		// content (even null or []) it replaces what chunks built.
		if u.content {
			m.text = u.text
		}
	case wUserMessageChunk:
		m.text = lg.concat(m.text, u.text)
	}
}

// applyUnnamed adds a user message update that carries no messageId, as
// ACP v1's replay sends them: consecutive chunks (nothing else replayed
// between them) are one message, and each message gets a name of its own,
// by its place in the replay, that no Agent's messageId can take.
func (lg *ledger) applyUnnamed(ti int32, u *updRow, seq int64) {
	t := &lg.trans[ti]
	if n := t.n; n == 0 || n <= t.sealed || !lg.tmsgs[t.last].unnamed || u.kind != wUserMessageChunk {
		id := lg.in.ID("unnamed#" + strconv.Itoa(int(n)+1))
		lg.addTmsg(ti, tmsgRow{id: id, seq: seq, unnamed: true, text: u.text})
		return
	}
	m := &lg.tmsgs[t.last]
	m.text = lg.concat(m.text, u.text)
}

// addTmsg appends m to transcript ti, where its id finds it.
func (lg *ledger) addTmsg(ti int32, m tmsgRow) int32 {
	t := &lg.trans[ti]
	m.pos, m.next = t.n, none
	j := int32(len(lg.tmsgs))
	lg.tmsgs = append(lg.tmsgs, m)
	if t.last == none {
		t.first = j
	} else {
		lg.tmsgs[t.last].next = j
	}
	t.last = j
	t.n++
	if lg.tmsgAt == nil {
		lg.tmsgAt = map[transKey]int32{}
	}
	lg.tmsgAt[transKey{ti, m.id}] = j
	return j
}

// concat is the text handle of text a followed by text b.
func (lg *ledger) concat(a, b int32) int32 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return lg.in.text(lg.in.textName(a) + lg.in.textName(b))
}

// finalize makes what the observer read on link for session the final
// transcript (seq, t: the resume answer's delivery); a later successful
// resume of the same session replaces it.
func (lg *ledger) finalize(link, session int32, seq, t int64) {
	ck := candKey{link, session}
	ti, ok := lg.cand[ck]
	if !ok {
		ti = lg.newTrans(session, link)
	}
	lg.trans[ti].seq, lg.trans[ti].t = seq, t
	at := byIndex(&lg.final, session)
	if *at == 0 {
		lg.sessOrder = append(lg.sessOrder, session)
	}
	*at = ti + 1
	// Live updates after the resume answer (the observer's probes, work
	// that goes on) are not history: they start a new candidate that only
	// a later resume would make final.
	delete(lg.cand, ck)
}
