package world

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/traces"
)

// An Agent that records a key although it answered an error
// (bind-on-arrival) is caught through the user who sends a cancelled prompt
// again with its key ("Errors leave the key unused ... the Client can send
// the same prompt with the same key again"): with no transient rejections,
// the only other error path, a lost submission's key was answered -32800
// and then sent again, and that retry was answered from the bogus binding.
func TestBindOnArrivalCaughtThroughASendAfterCancel(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		cfg := DefaultConfig()
		cfg.Seed = seed
		cfg.UseAgent("bind-on-arrival")
		cfg.Cancels = 4
		cfg.Rates[netfault.Reject] = 0
		v, err := Judge(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range v.Report.Anomalies {
			if a.Kind == "lost" && a.Sub != "" && cancelledThenSentAgain(v.Result.Log.Events, a.Sub) {
				t.Logf("seed %d: %s", seed, a.Explanation)
				return
			}
		}
	}
	t.Fatal("no seed of 200 lost a submission sent again after its -32800")
}

// cancelledThenSentAgain reports whether sub had an attempt answered -32800
// and a later attempt, sent on the same link after that answer arrived.
func cancelledThenSentAgain(evs []traces.Event, sub string) bool {
	ids := map[string]bool{} // link + id of sub's attempts
	cancelled := map[string]bool{}
	for _, e := range evs {
		if e.Dir == "" || e.Frame == "" {
			continue
		}
		line := acp.ParseLine([]byte(e.Frame))
		if line.Batch || line.Entries[0].Err != nil {
			continue
		}
		m := line.Entries[0].Msg
		switch {
		case e.Kind == traces.KindSend && e.Sub == sub && m.Method == acp.MethodSessionPrompt:
			if cancelled[e.Link] {
				return true
			}
			ids[e.Link+"\x00"+string(m.ID)] = true
		case e.Kind == traces.KindDeliver && e.Dir == traces.AgentToClient && m.Error != nil &&
			m.Error.Code == acp.CodeRequestCancelled && ids[e.Link+"\x00"+string(m.ID)]:
			cancelled[e.Link] = true
		}
	}
	return false
}
