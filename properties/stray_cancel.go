package properties

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
)

// A stray cancel: a request answered -32800 that nobody cancelled. -32800
// says the request was withdrawn at the Client's word; its only legal
// causes are a $/cancel_request naming it (or, for a keyed prompt, another
// pending attempt of its key: cancel.go marks those), or a session/cancel
// or session/close of its session read while it was pending (on any link:
// an Agent withdraws a held prompt with every attempt waiting on it).
// Anything else withdrew a request the user still wanted: typically a hop
// that renumbers request ids and forwards $/cancel_request with its
// requestId untouched, so the cancel lands on whichever request the next
// hop numbered so (the schema: requestId is "a request that the sender of
// this notification issued. Receivers match it only against requests they
// received from that sender.").

// StrayCancel is the anomaly kind; see Kinds.

// noteSessionCancel records that a session/cancel or session/close of
// session was read at seq: every request of the session pending then may
// be answered -32800.
func (c *checker) noteSessionCancel(session string, seq int64) {
	if c.sessCancel == nil {
		c.sessCancel = map[string]int64{}
	}
	c.sessCancel[session] = seq
}

// strayCancel notes r's first answer rp if it is a -32800 no cancel
// explains.
func (c *checker) strayCancel(r *reqRec, rp *respRec) {
	if rp.ok || rp.code != acp.CodeRequestCancelled || len(r.resps) != 1 || r.cancel != nil || r.cancelAsked {
		return
	}
	if c.sessCancel[r.session] > r.delSeq && r.session != "" {
		return
	}
	c.strays = append(c.strays, rp)
}

// judgeStrayCancels reports the -32800s nobody asked for, naming the
// $/cancel_request read on the same link while the request was pending,
// if any: the cancel that most likely landed on it.
func (c *checker) judgeStrayCancels() {
	for _, rp := range c.strays {
		r := rp.req
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		why := "no $/cancel_request named it"
		if r.sub != nil && r.keyState == keyValid {
			why += " or another pending attempt of its key"
		}
		if r.session != "" {
			why += fmt.Sprintf(", and no session/cancel or session/close of session %s was read while it was pending", short(r.session))
		}
		if cr := r.link.lastCancelReq; cr != nil && cr.delSeq > r.delSeq && cr.delSeq < rp.seq {
			ev.add(cr.sendSeq, cr.delSeq)
			why += fmt.Sprintf("; the $/cancel_request read on %s at %s named request %s", r.link.name, ms(cr.delT), cr.id)
			if cr.named != nil && cr.named.sub != nil && cr.named.sub != r.sub {
				why += fmt.Sprintf(" (%s's)", cr.named.sub.id)
			}
			why += ", not this one"
		}
		c.add(StrayCancel, r.sub, r.session, ev, "%s, delivered at %s, was answered error %d (request cancelled) at %s, but nobody cancelled it: %s. A cancel withdraws only the request it names (the schema: requestId is \"a request that the sender of this notification issued. Receivers match it only against requests they received from that sender.\"), so the user's input was dropped although the user never withdrew it.",
			c.reqOf(r), ms(r.delT), acp.CodeRequestCancelled, ms(rp.t), why)
	}
}
