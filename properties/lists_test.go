package properties

import (
	"fmt"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// A link keeps what it shows of each session it serves, the same record
// for the same session before and after its list turns into a map (more
// than lsScan sessions: the observer's link reads every session).
func TestALinkFindsEachOfItsSessionsAsItServesMore(t *testing.T) {
	l := &linkState{}
	var recs []*lsState
	for i := range 3 * lsScan {
		recs = append(recs, l.ls(fmt.Sprint("session-", i)))
		for j, want := range recs {
			if got := l.ls(fmt.Sprint("session-", j)); got != want {
				t.Fatalf("with %d sessions: session-%d has a second record", i+1, j)
			}
		}
	}
	if len(l.sess) != 3*lsScan {
		t.Errorf("%d sessions, %d records", 3*lsScan, len(l.sess))
	}
}

// A session lists each process that had it once, in the order they showed,
// before and after its list is indexed by a map (more than hadScan).
func TestASessionListsEachProcessThatHadItOnce(t *testing.T) {
	s := &sessRec{}
	e := &traces.Event{}
	for i := range 3 * hadScan {
		e.Seq = int64(i + 1)
		s.sawHad(fmt.Sprint("a1#", i), e, "answered a prompt in it")
		for j := 0; j <= i; j++ { // each seen again changes nothing
			s.sawHad(fmt.Sprint("a1#", j), e, "answered a prompt in it")
		}
		if len(s.had) != i+1 || s.had[i].seq != int64(i+1) {
			t.Fatalf("after %d processes the list holds %d, the last from event %d", i+1, len(s.had), s.had[len(s.had)-1].seq)
		}
	}
	if s.hadProc("a1#999") {
		t.Error("a process that never had the session is said to have had it")
	}
}

// One messageId in two sessions names two messages (a fork's copies, an
// Agent that reuses ids): each session's is found as its own.
func TestAMessageIDTwoSessionsShareNamesTwoMessages(t *testing.T) {
	c := newChecker(traces.Header{}, NewInterner(true), 0)
	const id, s1, s2, s3 = 5, 1, 2, 3
	m, known := c.msgFor(msgKey{s1, id})
	m.first = 10
	if known {
		t.Fatal("a new message was known")
	}
	m, known = c.msgFor(msgKey{s2, id})
	m.first = 20
	if known {
		t.Fatal("the id's message in a second session was taken for the first session's")
	}
	for _, tc := range []struct {
		mk    msgKey
		first int64
	}{{msgKey{s1, id}, 10}, {msgKey{s2, id}, 20}, {msgKey{s3, id}, 0}, {msgKey{s1, id + 1}, 0}} {
		got := int64(0)
		if m := c.msgOf(tc.mk); m != nil {
			got = m.first
		}
		if got != tc.first {
			t.Errorf("message %v: first named at %d, want %d (0: none)", tc.mk, got, tc.first)
		}
	}
}
