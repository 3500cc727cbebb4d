package properties

import (
	"strings"
	"testing"
)

// The schema lets an Agent abort a request with -32800 "because of resource
// constraints or shutdown": a -32800 with no cancel in sight is no anomaly.
func TestShedPromptIsNoStrayCancel(t *testing.T) {
	if r := strayCancel("none").check(); !r.OK() {
		t.Fatalf("a prompt shed with -32800 and no cancel: got %v, want no anomaly\n%s", kindsOf(r), dump(r))
	}
}

// A misdirected cancel that names another attempt of the same submission
// is told without naming an owner: the request it named is the user's own.
func TestACancelNamingARetryLeavesTheFirstAttemptStray(t *testing.T) {
	r := strayRetry().check()
	var found bool
	for _, a := range r.Anomalies {
		if a.Kind != StrayCancel {
			continue
		}
		found = true
		if !strings.Contains(a.Explanation, "named request 3, not this one") || strings.Contains(a.Explanation, "(s1's)") {
			t.Errorf("stray cancel told %q; want the cancel naming request 3, with no owner", a.Explanation)
		}
	}
	if !found {
		t.Fatalf("no stray cancel reported\n%s", dump(r))
	}
}

// Under ACP v1 a cancel answers a turn, not an insertion: no stray cancel.
func TestAV1TraceHasNoStrayCancel(t *testing.T) {
	r := strayCancel("misdirected-v1").check()
	if r.Protocol != 1 {
		t.Fatalf("protocol %d, want 1 (a Client asked in v1)", r.Protocol)
	}
	for _, a := range r.Anomalies {
		if a.Kind == StrayCancel {
			t.Fatalf("a v1 trace reported a stray cancel: %s", a.Explanation)
		}
	}
}
