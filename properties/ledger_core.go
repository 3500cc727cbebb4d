package properties

// What the core's rules (at most once, never lost) read that must be
// decided in the pass, kept as the pass goes: whether a live user message
// had an owner as of its update (judgeLiveIDs), forks and their parents
// (inherited), and when each message was first named under a "last N"
// retention (namedBetween).

// liveRow is a user message the Agent announced live, not in a replay,
// under an id no response had named yet.
type liveRow struct {
	session, id, text int32
	link              int32
	seq, t            int64
}

// noteLive keeps a live user message (or a chunk of one) x announced on
// its link under an id no response has named so far; m is its message's
// row. Only those can be an insertion no response owns, and an Agent that
// answers before it announces has none, so the rule costs nothing on a
// correct run: keeping every live message's text would be a second copy
// of every prompt. A session's replay (a resume in progress on the link,
// or the observer's) repeats stored messages and announces nothing.
func (lg *ledger) noteLive(x *fact, m *msgRow, replaying bool) {
	if lg.links[x.link].observer || replaying || m.owned {
		return
	}
	mk := msgKey{x.session, x.message}
	if i, ok := lg.liveAt[mk]; ok {
		l := &lg.live[i]
		if x.update == wUserMessageChunk {
			l.text = lg.concat(l.text, x.text)
		} else if x.content {
			l.text = x.text
		}
		return
	}
	if lg.liveAt == nil {
		lg.liveAt = map[msgKey]int32{}
	}
	lg.liveAt[mk] = int32(len(lg.live))
	lg.live = append(lg.live, liveRow{session: x.session, id: x.message, text: x.text, link: x.link, seq: x.seq, t: x.t})
}

// namedRow is a user message of a session, when it was first named, and
// whether its text is live-only: how many newer messages could have
// pushed one out under retention by a time.
type namedRow struct {
	session, id int32
	seq         int64
	liveOnly    bool
}

// noteNamed records a message named for the first time, under a "last N"
// retention only; text is its text handle (0: none known). How many newer
// messages had been named by a retry's arrival says whether retention can
// have pushed the first one out (forgotten).
func (lg *ledger) noteNamed(session, id int32, seq int64, text int32) {
	if lg.retainN == 0 {
		return
	}
	live := len(lg.h.Contract.LiveOnly) > 0 && lg.h.Contract.IsLiveOnly(lg.in.textName(text))
	lg.named = append(lg.named, namedRow{session: session, id: id, seq: seq, liveOnly: live})
}

// forked notes the first success answer (x) to a session/fork request r:
// the session it made starts with copies of its parent's history, which no
// submission of the fork inserted.
func (lg *ledger) forked(r *reqRow, x *fact) {
	if x.hasErr || x.session == noID {
		return
	}
	if lg.forkOf == nil {
		lg.forkOf = map[int32]int32{}
	}
	if _, seen := lg.forkOf[x.session]; !seen {
		lg.forkOf[x.session] = r.session
	}
}
