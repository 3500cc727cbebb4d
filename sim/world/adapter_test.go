package world

import (
	"encoding/json"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/traces"
)

func adapterConfig(t *testing.T, name, dedupe string) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Agent = name
	if err := cfg.Knobs.Set("runtime-dedupe", dedupe); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The adapter model with the keyed Client, 300 seeds: no anomaly with
// either runtime. The window the RFD's "the adapter does the lookup itself"
// leaves open after a restart (a retry arriving before the runtime stored
// what the dead process submitted) is closed by the adapter waiting
// runtime-delay after its start before its first lookup.
func TestSwarmAdapterKeyed(t *testing.T) {
	for _, dedupe := range []string{agent.DedupeAppend, agent.DedupeRefuse} {
		t.Run(dedupe, func(t *testing.T) {
			sum := swarm(t, adapterConfig(t, agent.Adapter, dedupe), 300)
			if sum.Failed != 0 || sum.Inconclusive != 0 {
				t.Fatalf("failed %d, inconclusive %d, anomalies %+v, first %+v", sum.Failed, sum.Inconclusive, sum.Anomalies, sum.Failures[0])
			}
			if sum.Stats.RetriesAfterRestart == 0 || sum.Stats.RetriesWhilePending == 0 {
				t.Errorf("the swarm reached neither retries after restarts nor pending retries: %+v", sum.Stats)
			}
		})
	}
}

// adapter-no-rebuild is caught under both runtimes: a duplicate under
// append, a second round of work (rework) under refuse.
func TestSwarmCatchesAdapterNoRebuild(t *testing.T) {
	for _, dedupe := range []string{agent.DedupeAppend, agent.DedupeRefuse} {
		t.Run(dedupe, func(t *testing.T) {
			sum := swarm(t, adapterConfig(t, "adapter-no-rebuild", dedupe), 300)
			t.Logf("failed %d, anomalies %+v", sum.Failed, sum.Anomalies)
			if sum.Failed < 10 {
				t.Fatalf("only %d failed seeds; anomalies %+v", sum.Failed, sum.Anomalies)
			}
		})
	}
}

// With runtime-dedupe=append the no-rebuild adapter's runtime stores one
// id twice: the observer's replay names it twice, and the checker reports
// the duplicate although the two messages share their messageId.
func TestRepeatedMessageIDsAreDuplicates(t *testing.T) {
	repeated, dups := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		cfg := adapterConfig(t, "adapter-no-rebuild", agent.DedupeAppend)
		cfg.Seed = seed
		v := judge(t, cfg)
		n := repeatedReplayIDs(v.Result.Log)
		repeated += n
		for _, a := range v.Report.Anomalies {
			if a.Kind == "duplicate" && n > 0 {
				dups++
			}
		}
	}
	if repeated == 0 || dups == 0 {
		t.Fatalf("%d repeated ids in replays, %d duplicates reported", repeated, dups)
	}
}

// repeatedReplayIDs counts user_message updates delivered to the observer
// whose messageId an earlier one on the same link and session carried.
func repeatedReplayIDs(log *traces.Log) int {
	seen := map[[3]string]bool{}
	n := 0
	for _, e := range log.Events {
		if e.Kind != traces.KindDeliver || e.To != traces.Observer {
			continue
		}
		l := acp.ParseLine([]byte(e.Frame))
		if l.Batch || l.Entries[0].Err != nil || l.Entries[0].Msg.Method != acp.MethodSessionUpdate {
			continue
		}
		var p acp.SessionUpdateParams
		if json.Unmarshal(l.Entries[0].Msg.Params, &p) != nil || p.Update.Kind != acp.UpdateUserMessage {
			continue
		}
		k := [3]string{e.Link, p.SessionID, p.Update.MessageID}
		if seen[k] {
			n++
		}
		seen[k] = true
	}
	return n
}
