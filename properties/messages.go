package properties

// What the Agent has named of each session's user messages, and when: a
// message exists before it is named, and the first success response that
// names it owns it.

// msgRow is what the Agent has said about one message of a session so far.
type msgRow struct {
	session   int32 // its session's handle: its id may name others in other sessions
	first     int64 // seq of the first response or user message naming it
	firstT    int64
	firstUser int64 // seq of the first user message update naming it, 0 if none
	bound     bool  // a retry was answered with it from the binding
	owned     bool  // owner is the first success response that named it
	owner     respRef
}

// msgIndex finds a message's row: by its id's handle, the first session
// to name that id in msgByID, any other in msgAt (an id two sessions
// share: a fork's copies, an Agent reusing ids).
func (lg *ledger) msgIndex(mk msgKey) (int32, bool) {
	if mk.id < 0 || int(mk.id) >= len(lg.msgByID) || lg.msgByID[mk.id] == 0 {
		return 0, false
	}
	if i := lg.msgByID[mk.id] - 1; lg.msgs[i].session == mk.session {
		return i, true
	}
	i, ok := lg.msgAt[mk]
	return i, ok
}

// msgFor is the row of a message, made if it is new (known false).
func (lg *ledger) msgFor(mk msgKey) (m *msgRow, known bool) {
	if i, ok := lg.msgIndex(mk); ok {
		return &lg.msgs[i], true
	}
	i := int32(len(lg.msgs))
	if at := byIndex(&lg.msgByID, mk.id); *at == 0 {
		*at = i + 1
	} else {
		if lg.msgAt == nil {
			lg.msgAt = map[msgKey]int32{}
		}
		lg.msgAt[mk] = i
	}
	lg.msgs = append(lg.msgs, msgRow{session: mk.session})
	return &lg.msgs[i], false
}

// promptAnswered reads a success response (ref) to prompt request ri that
// names a message.
func (lg *ledger) promptAnswered(l *linkRow, ri int32, ref respRef) {
	r := &lg.reqs[ri]
	rp := lg.resp(ref)
	m, known := lg.msgFor(msgKey{r.session, rp.msg})
	if !known {
		m.first, m.firstT = rp.seq, rp.t
		text := int32(0)
		if r.sub != none {
			text = lg.subs[r.sub].text
		}
		lg.noteNamed(r.session, rp.msg, rp.seq, text)
	}
	// Answered from a binding: the message existed before this request
	// arrived. A request held and answered with the insertion it waited
	// for is not a retry served from a binding, whatever order the Agent
	// writes the response and the user message in.
	if known && r.delivered && m.first < r.delSeq {
		rp.binding, rp.firstSeen, rp.firstT = true, m.first, m.firstT
		m.bound = true
		if ls := lg.ls(r.link, r.session); !ls.hasRetry {
			ls.hasRetry, ls.retry = true, ref
		}
	}
	owned, own := m.owned, m.owner
	if !m.owned {
		m.owned, m.owner = true, ref
	}
	if r.sub == none {
		return
	}
	s := &lg.subs[r.sub]
	has := lg.hasAnswer(s, r.session, rp.msg)
	if owned && !has {
		if o := lg.reqs[lg.resp(own).req].sub; o != none && o != r.sub {
			lg.shared = append(lg.shared, ref)
		}
	}
	if r.attempt >= 2 && s.keyed && r.keyState == keyValid && r.key == s.key && has {
		lg.stats.RetriesFromBinding++
	}
	if !has {
		lg.answers = append(lg.answers, answerRow{session: r.session, msg: rp.msg, resp: ref, next: none})
		if s.lastAnswer == none {
			s.answers = int32(len(lg.answers) - 1)
		} else {
			lg.answers[s.lastAnswer].next = int32(len(lg.answers) - 1)
		}
		s.lastAnswer = int32(len(lg.answers) - 1)
	}
}

// hasAnswer reports whether s was answered message msg in session.
func (lg *ledger) hasAnswer(s *subRow, session, msg int32) bool {
	for j := s.answers; j != none; j = lg.answers[j].next {
		if a := &lg.answers[j]; a.session == session && a.msg == msg {
			return true
		}
	}
	return false
}

// msgKey is a message by the handles (Interner.ID) of its session and id:
// one id names different messages in different sessions.
type msgKey struct{ session, id int32 }
