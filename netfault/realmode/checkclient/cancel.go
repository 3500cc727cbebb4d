// The user's cancels in acpsim check-client: a submission pending at the
// Client is cancelled ({"cancel":ID} on the adapter's stdin) by an adapter
// that said it can ({"capabilities":{"cancel":true}} on its stdout). The
// RFD: "$/cancel_request for any pending request with the key withdraws a
// prompt that is not inserted yet. The Agent then answers every pending
// request for that key with -32800." A cancel that comes too late leaves the
// message inserted: the user must then be told inserted, not failed.

package checkclient

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/acpsim/acpsim/properties/clientcheck"
	"github.com/acpsim/acpsim/sim"
)

// maxCancelDelay bounds how long after submitting the user cancels: the
// reference Agent holds a prompt for about a round of work (3 chunks, 20 ms
// apart) when its session is busy, so a cancel before the prompt is sent,
// one that withdraws it and one that comes too late all happen.
const maxCancelDelay = 60

// cancelPlan draws, for each submission not already chosen for a restart,
// whether the user cancels it and how long after submitting it: -1 for no
// cancel. Each submission draws from a stream of its own
// (sim.NewNamedIDs), so the draws of the repeats and restarts do not move.
func cancelPlan(rate float64, seed uint64, subs []clientcheck.Submission, restartAfter []time.Duration) []time.Duration {
	out := make([]time.Duration, len(subs))
	for i, s := range subs {
		out[i] = -1
		if rate <= 0 || restartAfter[i] >= 0 {
			continue
		}
		ids := sim.NewNamedIDs(seed, "cancel\x00"+s.ID)
		if ids.Float64() < rate {
			out[i] = time.Duration(ids.IntN(maxCancelDelay)) * time.Millisecond
		}
	}
	return out
}

// cancel plays the user who cancels s a while after submitting it: told is
// set when the outcome came first, ok is false once the seed cannot go on.
// An adapter that has not said it takes cancels (its capabilities line
// comes before its first outcome, if at all) is sent none.
func (d *clientDriver) cancel(s clientcheck.Submission, after time.Duration) (told, ok bool) {
	if told, ok = d.await(s.ID, after); told || !ok || !d.res.CanCancel {
		return told, ok
	}
	d.res.Cancels++
	d.h.Cancelled = append(d.h.Cancelled, s.ID)
	return false, d.send(`{"cancel":` + strconv.Quote(s.ID) + `}`)
}

// capabilities reads the adapter's optional capabilities line; ok is false
// for any other line.
func capabilities(line string) (cancel, ok bool) {
	var l struct {
		ID           *string `json:"id"`
		Capabilities *struct {
			Cancel bool `json:"cancel"`
		} `json:"capabilities"`
	}
	if json.Unmarshal([]byte(line), &l) != nil || l.Capabilities == nil || l.ID != nil {
		return false, false
	}
	return l.Capabilities.Cancel, true
}
