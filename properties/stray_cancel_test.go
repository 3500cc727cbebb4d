package properties

import "testing"

// The schema lets an Agent abort a request with -32800 "because of resource
// constraints or shutdown": a -32800 with no cancel in sight is no anomaly.
func TestShedPromptIsNoStrayCancel(t *testing.T) {
	if r := strayCancel("none").check(); !r.OK() {
		t.Fatalf("a prompt shed with -32800 and no cancel: got %v, want no anomaly\n%s", kindsOf(r), dump(r))
	}
}
