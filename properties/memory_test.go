package properties

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// A link that ended keeps no queue of frames in flight, in the checker's
// facts or its ledger: a trace may have a link per submission or two, and
// the queues (about 400 bytes a link) were a tenth of what judge held at the
// end of the bench history.
func TestAnEndedLinkKeepsNoQueue(t *testing.T) {
	client, agent := ends(L1)
	frame := string(promptFrame(acp.NumID(1), S1, "fix the tests", K1))
	c := NewChecker(traces.Header{})
	seq := int64(0)
	add := func(e traces.Event) {
		seq++
		e.Seq = seq
		c.Add(&e)
	}
	add(traces.Event{Kind: traces.KindConnect, Link: L1, From: client, To: agent})
	add(traces.Event{Kind: traces.KindSend, Link: L1, Dir: traces.ClientToAgent, From: client, To: agent, Frame: frame})
	add(traces.Event{Kind: traces.KindSend, Link: L1, Dir: traces.ClientToAgent, From: client, To: agent, Frame: frame})
	add(traces.Event{Kind: traces.KindDeliver, Link: L1, Dir: traces.ClientToAgent, From: client, To: agent, Frame: frame})
	h := c.own.links[L1]
	if len(c.own.form.links[h].flight[dirC2A].all()) != 1 || len(c.lg.links[h].flight[dirC2A].all()) != 1 {
		t.Fatalf("before the link ends: the second send is not in flight (facts %d, ledger %d)",
			len(c.own.form.links[h].flight[dirC2A].all()), len(c.lg.links[h].flight[dirC2A].all()))
	}
	add(traces.Event{Kind: traces.KindDisconnect, Link: L1, From: client, To: agent, Note: "kill"})
	for d := range 2 {
		if q := c.own.form.links[h].flight[d].q; q != nil {
			t.Errorf("the facts of ended link %s keep a queue of capacity %d in direction %d", L1, cap(q), d)
		}
		if q := c.lg.links[h].flight[d].q; q != nil {
			t.Errorf("the ledger of ended link %s keeps a queue of capacity %d in direction %d", L1, cap(q), d)
		}
	}
	if r := c.Finish(); r.Stats.Prompts != 2 {
		t.Errorf("the checker read %d prompts, expected the 2 sent", r.Stats.Prompts)
	}
}
