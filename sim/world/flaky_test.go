package world

import (
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
)

// flakySetup is a legal Agent whose every process fails its first
// session/new and session/resume with a transient -32603, and whose odd
// incarnations (a1#1, a1#3, …) also fail their first initialize.
type flakySetup struct {
	agent.Machine
	failed map[string]bool
}

func oddIncarnation(name string) bool {
	return (name[len(name)-1]-'0')%2 == 1
}

func (f *flakySetup) Receive(conn string, frame []byte) []agent.Output {
	l := acp.ParseLine(frame)
	if m := l.Entries[0].Msg; !l.Batch && l.Entries[0].Err == nil && m.Kind() == acp.KindRequest {
		switch m.Method {
		case acp.MethodInitialize, acp.MethodSessionNew, acp.MethodSessionResume:
			if !f.failed[m.Method] {
				f.failed[m.Method] = true
				return []agent.Output{{Kind: agent.OutSend, Step: "respond-error", Conn: conn,
					Frame: acp.ErrorResponse(m.ID, acp.Errorf(acp.CodeInternalError, "busy, try again"))}}
			}
		}
	}
	return f.Machine.Receive(conn, frame)
}

func init() {
	agent.Register("test-flaky-setup", "fails first session/new and session/resume of each process, and initialize on odd incarnations, with -32603",
		func(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
			f := &flakySetup{Machine: agent.New(k, open(), env), failed: map[string]bool{}}
			f.failed[acp.MethodInitialize] = !oddIncarnation(env.Name)
			return f
		})
}

// Transient errors on the setup requests are legal; the Clients must get
// past them (hang up and reconnect, or send the request again) instead of
// hanging with their submissions unresolved.
func TestClientsGetPastTransientSetupErrors(t *testing.T) {
	for _, policy := range []string{"none", "naive", "keyed"} {
		cfg := DefaultConfig()
		cfg.Agent, cfg.Policy = "test-flaky-setup", policy
		sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range sum.Anomalies {
			if k.Kind == "unresolved" {
				t.Fatalf("policy %s: %d unresolved submissions in %d seeds (first failing: %+v)", policy, k.Count, k.Seeds, sum.Failures[0])
			}
		}
		if policy == "keyed" && sum.Failed != 0 {
			t.Fatalf("keyed: %d seeds failed: %+v", sum.Failed, sum.Failures[0])
		}
	}
}
