package properties

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Unit tests of the ledger's lists that turn into indexes as they grow:
// what each finds must not change when it does.

// A link keeps what it shows of each session it serves, the same row for
// the same session before and after its list is indexed by a map (more
// than lsListed sessions: the observer's link reads every session).
func TestALinkFindsEachOfItsSessionsAsItServesMore(t *testing.T) {
	lg := newLedger(traces.Header{}, NewInterner(true), 0)
	link := lg.in.handle(lg.in.links, &lg.in.linkNames, "c1>a1#1")
	lg.link(link)
	const n = 3 * lsListed
	for i := range int32(n) {
		lg.ls(link, i+1).resumes = i + 1 // a mark: the row's own
		for j := range i + 1 {
			if got := lg.ls(link, j+1).resumes; got != j+1 {
				t.Fatalf("with %d sessions: session %d has a second row (mark %d)", i+1, j+1, got)
			}
		}
	}
	if len(lg.lss) != n || lg.links[link].lsN != n {
		t.Errorf("%d sessions, %d rows, the link counts %d", n, len(lg.lss), lg.links[link].lsN)
	}
}

// One messageId in two sessions names two messages (a fork's copies, an
// Agent that reuses ids): each session's is found as its own.
func TestAMessageIDTwoSessionsShareNamesTwoMessages(t *testing.T) {
	lg := newLedger(traces.Header{}, NewInterner(true), 0)
	const id, s1, s2, s3 = 5, 1, 2, 3
	m, known := lg.msgFor(msgKey{s1, id})
	m.first = 10
	if known {
		t.Fatal("a new message was known")
	}
	m, known = lg.msgFor(msgKey{s2, id})
	m.first = 20
	if known {
		t.Fatal("the id's message in a second session was taken for the first session's")
	}
	for _, tc := range []struct {
		mk    msgKey
		first int64
	}{{msgKey{s1, id}, 10}, {msgKey{s2, id}, 20}, {msgKey{s3, id}, 0}, {msgKey{s1, id + 1}, 0}} {
		got := int64(0)
		if i, ok := lg.msgIndex(tc.mk); ok {
			got = lg.msgs[i].first
		}
		if got != tc.first {
			t.Errorf("message %v: first named at %d, want %d (0: none)", tc.mk, got, tc.first)
		}
	}
}

// A link files each delivered request under its id, whichever table holds
// it: small plain numbers in byNum, a huge one or any other id in byID, and
// an id's later requests beside its first.
func TestRequestsAreFoundByTheirIDWhereverFiled(t *testing.T) {
	lg := newLedger(traces.Header{}, NewInterner(true), 0)
	l := lg.link(lg.in.handle(lg.in.links, &lg.in.linkNames, "c1>a1#1"))
	ids := []acp.ID{"1", "2", "999999", `"1"`, "0", "01", "1.0", "-1", "2", "70", "300", "1", "999999"}
	for i, id := range ids {
		lg.reqs = append(lg.reqs, reqRow{id: lg.in.rpcIDOf(id), nextSameID: none})
		l.file(lg, int32(i))
	}
	if len(l.byNum) > 64 {
		t.Errorf("one huge id grew the table of small ones to %d entries", len(l.byNum))
	}
	for _, id := range ids {
		var want, got []int32
		for i, x := range ids {
			if x == id {
				want = append(want, int32(i))
			}
		}
		for i := l.reqsOf(lg.in.rpcIDOf(id)); i != none; i = lg.reqs[i].nextSameID {
			got = append(got, i)
		}
		if len(got) != len(want) {
			t.Fatalf("id %s: found %d requests, filed %d", id, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("id %s: request %d is not the one filed %d-th", id, got[i], want[i])
			}
		}
	}
}
