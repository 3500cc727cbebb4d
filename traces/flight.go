// This file holds the sends in flight of a format-2 trace, what lets a
// deliver or drop name its send ("send":N) instead of repeating the frame,
// and the ends of the links open, what lets a frame event leave out its
// from and to. The writer and the reader keep the same account, so that the
// reader finds every send the writer names, and both forget a send when it
// is delivered, dropped or lost with its link, and a link's ends when it is
// disconnected: memory grows with the frames in flight and the links open,
// not with the trace.

package traces

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// pendingSend is a send event not yet delivered or dropped.
type pendingSend struct {
	seq      int64
	frame    string
	from, to string
}

// sendQueue is one direction of a link: its sends in the order they were
// written. A direction is Dir, or From and To when Dir is empty, as the
// checker tells them apart (properties/frames.go).
type sendQueue struct {
	dir, from, to string // from and to only when dir is ""
	sends         []pendingSend
	head          int
}

// remove takes the send at i out of the queue.
func (q *sendQueue) remove(i int) pendingSend {
	p := q.sends[i]
	if i == q.head {
		q.sends[i] = pendingSend{}
		q.head++
	} else {
		copy(q.sends[i:], q.sends[i+1:])
		q.sends[len(q.sends)-1] = pendingSend{}
		q.sends = q.sends[:len(q.sends)-1]
	}
	if q.head == len(q.sends) {
		q.sends, q.head = q.sends[:0], 0
	}
	return p
}

// linkFlight is a link's sends in flight.
type linkFlight struct {
	name string
	qs   []sendQueue
	n    int // sends in flight over all of qs
}

// queue returns the queue of direction dir (or from→to when dir is ""),
// nil when there is none and create is false.
func (lf *linkFlight) queue(dir, from, to string, create bool) *sendQueue {
	for i := range lf.qs {
		q := &lf.qs[i]
		if q.dir == dir && (dir != "" || q.from == from && q.to == to) {
			return q
		}
	}
	if !create {
		return nil
	}
	if len(lf.qs) < cap(lf.qs) {
		lf.qs = lf.qs[:len(lf.qs)+1] // a released queue: its sends' array is kept
	} else {
		lf.qs = append(lf.qs, sendQueue{})
	}
	q := &lf.qs[len(lf.qs)-1]
	q.dir, q.from, q.to, q.sends, q.head = dir, "", "", q.sends[:0], 0
	if dir == "" {
		q.from, q.to = from, to
	}
	return q
}

// seqAt is where a send in flight is, by its seq: the reader's index for a
// reference that names no link.
type seqAt struct {
	seq int64
	lf  *linkFlight // nil once the send has left
}

// flight is the sends in flight of a trace, per link and direction, and the
// ends of the links open.
type flight struct {
	// ends holds each open link's ends as its connect event named them
	// (Client side, Agent side), until its disconnect.
	ends  map[string][2]string
	links map[string]*linkFlight
	last  *linkFlight
	free  []*linkFlight
	// bySeq (the reader's) lists the sends in flight in seq order, with
	// holes (lf nil) where sends left, compacted as they grow.
	bySeq  []seqAt
	holes  int
	bySeqs bool
}

func newFlight(indexBySeq bool) *flight {
	return &flight{ends: map[string][2]string{}, links: map[string]*linkFlight{}, bySeqs: indexBySeq}
}

// link returns the flight of link name, nil when nothing is in flight on it
// and create is false.
func (f *flight) link(name string, create bool) *linkFlight {
	if f.last != nil && f.last.name == name {
		return f.last
	}
	lf := f.links[name]
	if lf == nil {
		if !create {
			return nil
		}
		if n := len(f.free); n > 0 {
			lf = f.free[n-1]
			f.free = f.free[:n-1]
		} else {
			lf = &linkFlight{}
		}
		lf.name = name
		f.links[name] = lf
	}
	f.last = lf
	return lf
}

// send records a send event's frame as in flight. A send without a frame or
// a seq cannot be named: it is not recorded.
func (f *flight) send(e *Event) {
	if e.Frame == "" || e.Seq <= 0 {
		return
	}
	lf := f.link(e.Link, true)
	q := lf.queue(e.Dir, e.From, e.To, true)
	q.sends = append(q.sends, pendingSend{seq: e.Seq, frame: e.Frame, from: e.From, to: e.To})
	lf.n++
	if f.bySeqs {
		f.bySeq = append(f.bySeq, seqAt{e.Seq, lf})
	}
}

// take removes the first send in flight on e's link and direction whose
// frame is e's, as the checker pairs a delivery with its send; ok is false
// when there is none.
func (f *flight) take(e *Event) (p pendingSend, ok bool) {
	lf := f.link(e.Link, false)
	if lf == nil {
		return p, false
	}
	q := lf.queue(e.Dir, e.From, e.To, false)
	if q == nil {
		return p, false
	}
	for i := q.head; i < len(q.sends); i++ {
		if q.sends[i].frame == e.Frame {
			p = q.remove(i)
			f.left(lf, p.seq)
			return p, true
		}
	}
	return p, false
}

// takeSeq removes the send numbered seq from flight and returns it with its
// link and direction; ok is false when it is not in flight, and first is
// not 0 (and nothing is removed) when an older send in flight in the same
// direction has the same frame: first is that one, which the checker pairs
// a delivery of the frame with. Only a flight indexed by seq (the reader's)
// has it.
func (f *flight) takeSeq(seq int64) (p pendingSend, link, dir string, first int64, ok bool) {
	i, found := slices.BinarySearchFunc(f.bySeq, seq, func(s seqAt, seq int64) int { return cmp.Compare(s.seq, seq) })
	if !found || f.bySeq[i].lf == nil {
		return p, "", "", 0, false
	}
	lf := f.bySeq[i].lf
	for qi := range lf.qs {
		q := &lf.qs[qi]
		for j := q.head; j < len(q.sends); j++ {
			if q.sends[j].seq != seq {
				continue
			}
			for k := q.head; k < j; k++ {
				if q.sends[k].frame == q.sends[j].frame {
					return p, lf.name, q.dir, q.sends[k].seq, true
				}
			}
			link, dir = lf.name, q.dir
			p = q.remove(j)
			f.left(lf, seq)
			return p, link, dir, 0, true
		}
	}
	return p, "", "", 0, false // not reached: bySeq and the queues agree
}

// left accounts for a send of lf that left flight.
func (f *flight) left(lf *linkFlight, seq int64) {
	f.unindex(seq)
	if lf.n--; lf.n == 0 {
		f.release(lf)
	}
}

// connect records the ends of e's link.
func (f *flight) connect(e *Event) { f.ends[e.Link] = [2]string{e.From, e.To} }

// endsImplied says whether e's from and to are its link's ends in its
// direction, as its connect event named them: format 2 leaves them out.
func (f *flight) endsImplied(e *Event) bool {
	ends, ok := f.ends[e.Link]
	switch {
	case !ok:
		return false
	case e.Dir == ClientToAgent:
		return e.From == ends[0] && e.To == ends[1]
	case e.Dir == AgentToClient:
		return e.From == ends[1] && e.To == ends[0]
	}
	return false
}

// disconnect forgets every send in flight on link (a link that ends loses
// them) and the link's ends.
func (f *flight) disconnect(link string) {
	delete(f.ends, link)
	lf := f.link(link, false)
	if lf == nil {
		return
	}
	if f.bySeqs {
		for qi := range lf.qs {
			q := &lf.qs[qi]
			for j := q.head; j < len(q.sends); j++ {
				f.unindex(q.sends[j].seq)
			}
		}
	}
	f.release(lf)
}

// release takes lf (nothing in flight on it, or its link ended) out of the
// map and keeps it for reuse.
func (f *flight) release(lf *linkFlight) {
	delete(f.links, lf.name)
	if f.last == lf {
		f.last = nil
	}
	for i := range lf.qs {
		clear(lf.qs[i].sends)
	}
	lf.qs, lf.n, lf.name = lf.qs[:0], 0, ""
	f.free = append(f.free, lf)
}

// unindex marks seq as gone from bySeq, and compacts bySeq when it is
// mostly holes.
func (f *flight) unindex(seq int64) {
	if !f.bySeqs {
		return
	}
	// The send leaving is almost always among the oldest in flight.
	i, found := slices.BinarySearchFunc(f.bySeq, seq, func(s seqAt, seq int64) int { return cmp.Compare(s.seq, seq) })
	if !found || f.bySeq[i].lf == nil {
		return
	}
	f.bySeq[i].lf = nil
	f.holes++
	if f.holes == len(f.bySeq) {
		clear(f.bySeq)
		f.bySeq, f.holes = f.bySeq[:0], 0
		return
	}
	if f.holes >= 32 && 2*f.holes >= len(f.bySeq) {
		f.bySeq = slices.DeleteFunc(f.bySeq, func(s seqAt) bool { return s.lf == nil })
		f.holes = 0
	}
}

// resolve keeps the reader's account of the sends in flight with e, an
// event of a format-2 trace: a deliver or drop that names its send gets
// that send's frame, link, direction and (where e leaves them out) from
// and to.
func (f *flight) resolve(e *Event) error {
	if e.Send != 0 && e.Kind != KindDeliver && e.Kind != KindDrop {
		return fmt.Errorf(`field "send": set on a %s event, expected it only on deliver and drop events`, e.Kind)
	}
	if e.Kind == KindConnect {
		f.connect(e)
	}
	if e.Send == 0 && (e.Kind == KindSend || e.Kind == KindDeliver || e.Kind == KindDrop) && e.From == "" && e.To == "" {
		f.fillEnds(e)
	}
	switch e.Kind {
	case KindSend:
		f.send(e)
	case KindDeliver, KindDrop:
		if e.Send != 0 {
			return f.resolveSend(e)
		}
		if e.Frame != "" {
			// The writer found no send in flight to name; a trace written
			// otherwise may have one: it is paired as the writer pairs.
			if p, ok := f.take(e); ok {
				e.Send = p.seq
			}
		}
	case KindDisconnect:
		f.disconnect(e.Link)
	}
	return nil
}

// fillEnds gives a frame event that left out from and to its link's ends in
// its direction. Without a direction or an open link they are not left out
// but missing, which the kind's check reports.
func (f *flight) fillEnds(e *Event) {
	ends, ok := f.ends[e.Link]
	if e.Dir != ClientToAgent && e.Dir != AgentToClient || !ok {
		return
	}
	e.From, e.To = ends[0], ends[1]
	if e.Dir == AgentToClient {
		e.From, e.To = ends[1], ends[0]
	}
}

func (f *flight) resolveSend(e *Event) error {
	if e.Frame != "" {
		return errors.New(`field "send" and a frame both set, expected one of them (a deliver or drop names its send or holds its frame)`)
	}
	if e.Send < 0 {
		return fmt.Errorf(`field "send": got %d, expected the seq of a send event still in flight`, e.Send)
	}
	p, link, dir, first, ok := f.takeSeq(e.Send)
	switch {
	case !ok:
		return fmt.Errorf(`field "send": got %d, expected the seq of a send event still in flight (written before, not yet delivered or dropped, its link not disconnected)`, e.Send)
	case first != 0:
		return fmt.Errorf(`field "send": got %d, expected %d, the first send in flight on its link and direction with the same frame (a delivery is paired with it, as the checker pairs them)`, e.Send, first)
	case e.Link != "" && e.Link != link:
		return fmt.Errorf(`field "link": got %s, expected %s, the link of send %d (or the field left out)`, quoted(e.Link), quoted(link), e.Send)
	case e.Dir != "" && e.Dir != dir:
		return fmt.Errorf(`field "dir": got %s, expected %s, the direction of send %d (or the field left out)`, quoted(e.Dir), quoted(dir), e.Send)
	}
	e.Link, e.Dir, e.Frame = link, dir, p.frame
	if e.From == "" {
		e.From = p.from
	}
	if e.To == "" {
		e.To = p.to
	}
	if dir == "" && (e.From != p.from || e.To != p.to) {
		return fmt.Errorf(`fields "from" and "to": got %s and %s, expected %s and %s, the ends of send %d (which names no direction), or the fields left out`,
			quoted(e.From), quoted(e.To), quoted(p.from), quoted(p.to), e.Send)
	}
	return nil
}
