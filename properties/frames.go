package properties

import "fmt"

// Frames in the ledger: a send's messages become rows (requests,
// responses) at once, and wait in flight on their link and direction until
// a delivery or a drop names the send, or the link ends.

// item is what one message of a frame became.
type item struct {
	kind itemKind
	at   int32 // the row: a request's index, or a response's (respRef)
}

type itemKind uint8

const (
	itemReq     itemKind = iota + 1
	itemResp             // at is a respRef
	itemNullErr          // an entry whose id was unreadable: the Agent owes it a null-id error
	itemUpdate           // an update to the observer: at is its index in upds
	itemCancel           // session/cancel or $/cancel_request: at is its index in cancels
)

// flightRow is a send in flight: its items, the first in the row, the
// rest (a batch's) in the ledger's overflow.
type flightRow struct {
	seq        int64
	first      item
	more, many int32 // overflow[more:more+many]
}

// frame reads the facts of one frame event, in order of their entries.
func (lg *ledger) frame(facts []fact) {
	x := &facts[0]
	l := lg.link(x.link)
	if x.ev == wSend {
		lg.stats.Frames++
		if x.note == wObserve {
			// The observer took over a Client's live connection: what
			// follows on it is its reading (traces.NoteObserve).
			l.observer = true
		}
		lg.readVersion(l, facts) // before the messages: v1 changes how they read
		f := flightRow{seq: x.seq, more: int32(len(lg.overflow))}
		for i := range facts {
			if it, ok := lg.message(l, &facts[i], true); ok {
				if f.first.kind == 0 {
					f.first = it
				} else {
					lg.overflow = append(lg.overflow, it)
					f.many++
				}
			}
		}
		l.flight[x.dir].push(f)
		return
	}
	if x.send == 0 {
		// A delivery of a frame never sent: read as it arrives.
		for i := range facts {
			if it, ok := lg.message(l, &facts[i], false); ok {
				lg.arrive(l, x, it)
			}
		}
		return
	}
	f, ok := l.take(x.dir, x.send)
	if !ok {
		// The form pairs a delivery only with a send it saw in flight, and
		// both forget what is in flight at the same disconnects.
		panic(fmt.Sprintf("properties: the ledger holds no send %d in flight on link %s for the delivery at %d", x.send, lg.in.Link(x.link), x.seq))
	}
	if f.first.kind != 0 {
		lg.arrive(l, x, f.first)
	}
	for _, it := range lg.overflow[f.more : f.more+f.many] {
		lg.arrive(l, x, it)
	}
	lg.release(f)
}

// take is the send in flight in direction d with number seq, taken out.
func (l *linkRow) take(d uint8, seq int64) (flightRow, bool) {
	return l.flight[d].take(func(f *flightRow) bool { return f.seq == seq })
}

// release gives back the overflow of the last batch in flight, once it
// is delivered: batches are rare, and the overflow stays as long as the
// longest run of them in flight.
func (lg *ledger) release(f flightRow) {
	if f.many > 0 && int(f.more+f.many) == len(lg.overflow) {
		lg.overflow = lg.overflow[:f.more]
	}
}

// arrive applies item it of a frame delivered (x a delivery or drop).
func (lg *ledger) arrive(l *linkRow, x *fact, it item) {
	if x.ev == wDrop {
		lg.lose(it, lostDropped, x.note, x.seq)
		return
	}
	switch it.kind {
	case itemNullErr:
		l.nullErrs++
	case itemReq:
		lg.reqDelivered(l, it.at, x)
	case itemResp:
		rp := lg.resp(respRef(it.at))
		rp.delivered, rp.delSeq = true, x.seq
		if l.observer && rp.ok && rp.req != none && lg.reqs[rp.req].method == wSessionResume {
			lg.finalize(x.link, lg.reqs[rp.req].session, x.seq, x.t)
		}
	case itemUpdate:
		lg.observe(x.link, &lg.upds[it.at], x.seq)
	case itemCancel:
		lg.cancelDelivered(x.link, it.at, x)
	}
}

// How a frame was lost.
const (
	lostDropped uint8 = iota + 1 // "was dropped (note)"
	lostLinkEnd                  // "was lost when the link ended (note)"
)

// lostText says how a frame was lost, as an explanation tells it.
func (lg *ledger) lostText(how uint8, note word) string {
	switch how {
	case lostDropped:
		return "was dropped (" + lg.in.wordName(note) + ")"
	case lostLinkEnd:
		return "was lost when the link ended (" + lg.in.wordName(note) + ")"
	}
	return ""
}

// lose marks what item it became as lost, unless it arrived already.
func (lg *ledger) lose(it item, how uint8, note word, seq int64) {
	switch it.kind {
	case itemReq:
		if r := &lg.reqs[it.at]; r.lost == 0 && !r.delivered {
			r.lost, r.lostNote, r.lostSeq = how, note, seq
		}
	case itemResp:
		if rp := lg.resp(respRef(it.at)); rp.lost == 0 && !rp.delivered {
			rp.lost, rp.lostNote, rp.lostSeq = how, note, seq
		}
	}
}

// disconnect ends a link: what is in flight on it is lost.
func (lg *ledger) disconnect(x *fact) {
	l := lg.link(x.link)
	l.ended, l.note, l.endSeq, l.endT = true, x.note, x.seq, x.t
	for d := range l.flight {
		for _, f := range l.flight[d].all() {
			if f.first.kind != 0 {
				lg.lose(f.first, lostLinkEnd, x.note, x.seq)
			}
			for _, it := range lg.overflow[f.more : f.more+f.many] {
				lg.lose(it, lostLinkEnd, x.note, x.seq)
			}
		}
		l.flight[d].release()
	}
}
