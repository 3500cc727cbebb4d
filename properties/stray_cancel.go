package properties

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
)

// A stray cancel: a request answered -32800 that nobody cancelled, where
// the frames show the cancel that landed on it instead. -32800 is a cancel
// at the Client's word: a $/cancel_request naming the request (or, for a
// keyed prompt, another pending attempt of its key: cancel.go marks those),
// or a session/cancel or session/close of its session read while it was
// pending (on any link: an Agent withdraws a held prompt with every attempt
// waiting on it). The schema also lets an Agent abort a request with -32800
// "because of resource constraints or shutdown", so a -32800 with no
// cancel in sight is no anomaly: an Agent may shed load so. The contract
// acpsim judges by: a stray cancel is reported where (a) a $/cancel_request
// naming another request was read on the same link while this one was
// pending, which is what a hop that renumbers ids and forwards the cancel's
// requestId unmapped does (the schema: requestId is "a request that the
// sender of this notification issued. Receivers match it only against
// requests they received from that sender."), or (b) its key was withdrawn
// earlier in the session and no new cancel came: an Agent that keeps a
// withdrawn key cancelled, where the RFD leaves it unused.

// strayRec is a -32800 no cancel explains, with the evidence of the one
// that landed on it, taken when the answer was read: the $/cancel_request
// naming another request read on its link while it was pending, and when
// its key's earlier attempt was withdrawn (0: not).
type strayRec struct {
	rp          *respRec
	misdirected *cancelRec
	withdrawnAt int64
}

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
	sr := strayRec{rp: rp}
	if cr := r.link.lastCancelReq; cr != nil && cr.delSeq > r.delSeq {
		sr.misdirected = cr
	}
	if r.keyState == keyValid {
		sr.withdrawnAt = c.withdrawnKeys[sessKey{r.session, r.key}]
	}
	if sr.misdirected != nil || sr.withdrawnAt != 0 {
		c.strays = append(c.strays, sr)
	}
}

// noteWithdrawn records that a keyed prompt a cancel withdrew was answered
// -32800: its key stays unused (RFD), and a later attempt with it that
// nobody cancels must not be answered -32800 for it.
func (c *checker) noteWithdrawn(r *reqRec, rp *respRec) {
	if r.cancel == nil || rp.ok || rp.code != acp.CodeRequestCancelled || r.keyState != keyValid {
		return
	}
	if c.withdrawnKeys == nil {
		c.withdrawnKeys = map[sessKey]int64{}
	}
	c.withdrawnKeys[sessKey{r.session, r.key}] = rp.seq
}

// judgeStrayCancels reports the -32800s nobody asked for, naming the
// $/cancel_request read on the same link while the request was pending,
// if any: the cancel that most likely landed on it.
func (c *checker) judgeStrayCancels() {
	for _, sr := range c.strays {
		rp := sr.rp
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
		if at := sr.withdrawnAt; at != 0 {
			ev.add(at)
			why += fmt.Sprintf("; an earlier attempt with its key was withdrawn by a cancel (answered -32800 at event %d), which leaves the key unused, yet this new attempt was answered -32800 with no new cancel", at)
		}
		if cr := sr.misdirected; cr != nil {
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
