package properties

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// A trace with no submission is never a pass: whether it ended quiet, hit
// its cap or has no end at all, the report is inconclusive and says why.
func TestNothingSubmittedIsInconclusive(t *testing.T) {
	h := traces.Header{Format: traces.FormatVersion, Seed: 1, Policy: "keyed", Agent: "reference",
		Contract: traces.Contract{Retention: "all"}}
	for _, c := range []struct {
		end, why string
	}{
		{traces.EndQuiet, "the trace holds no submission"},
		{traces.EndCap, "the trace holds no submission (the run hit its cap)"},
		{"", "the trace holds no submission (the trace has no end event)"},
	} {
		var evs []traces.Event
		if c.end != "" {
			evs = append(evs, traces.Event{Seq: 1, Kind: traces.KindEnd, Note: c.end})
		}
		r := Check(h, evs)
		if !r.OK() || !r.Inconclusive || r.NothingJudged != c.why {
			t.Errorf("end %q: ok %v, inconclusive %v, nothing judged %q; want inconclusive with %q", c.end, r.OK(), r.Inconclusive, r.NothingJudged, c.why)
		}
		var b strings.Builder
		r.WriteText(&b)
		if !strings.Contains(b.String(), "nothing judged, inconclusive: "+c.why) {
			t.Errorf("end %q: the text does not say nothing was judged:\n%s", c.end, b.String())
		}
	}
}
