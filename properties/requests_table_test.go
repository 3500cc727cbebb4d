package properties

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
)

// A link files each delivered request under its id, whichever table holds
// it: small plain numbers in byNum, a huge one or any other id in byID, and
// an id's later requests beside its first.
func TestRequestsAreFoundByTheirIDWhereverFiled(t *testing.T) {
	l := &linkState{}
	ids := []acp.ID{"1", "2", "999999", `"1"`, "0", "01", "1.0", "-1", "2", "70", "300", "1", "999999"}
	var reqs []*reqRec
	for _, id := range ids {
		r := &reqRec{id: id}
		reqs = append(reqs, r)
		l.fileReq(r)
	}
	if len(l.byNum) > 64 {
		t.Errorf("one huge id grew the table of small ones to %d entries", len(l.byNum))
	}
	for _, id := range ids {
		var want []*reqRec
		for _, r := range reqs {
			if r.id == id {
				want = append(want, r)
			}
		}
		var got []*reqRec
		l.reqsOf(id).each(func(r *reqRec) bool { got = append(got, r); return false })
		if len(got) != len(want) {
			t.Fatalf("id %s: found %d requests, filed %d", id, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("id %s: request %d is not the one filed %d-th", id, i, i)
			}
		}
	}
	n := 0
	for list := range l.allReqs() {
		list.each(func(*reqRec) bool { n++; return false })
	}
	if n != len(ids) {
		t.Errorf("allReqs walks %d requests, %d were filed", n, len(ids))
	}
}
