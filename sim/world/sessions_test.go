package world

import (
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// memorySessions is a run of the correct Agent that keeps its sessions in
// process memory (ACP v2 notes, trace T3b), with users who do everything.
func memorySessions(link, contract string, seed uint64) Config {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Link, cfg.SessionContract = seed, link, contract
	cfg.Knobs.SessionsIn = agent.SessionsMemory
	cfg.EnableLinkFaults()
	cfg.Cancels, cfg.Closes, cfg.Forks = 2, 1, 1
	return cfg
}

// Under the default contract an Agent whose sessions die with their process
// passes: the checker sees no session survive a restart and judges by the
// process contract. The T3b path is taken: a Client whose session is
// unknown after a restart starts a new one and its pending submissions are
// inserted there and told to the user.
func TestSessionsInMemoryPassUnderAuto(t *testing.T) {
	for _, link := range []string{LinkStdio, LinkHTTP, LinkWS} {
		t.Run(link, func(t *testing.T) {
			vanished, moved := 0, 0
			for seed := uint64(1); seed <= 150; seed++ {
				v := judge(t, memorySessions(link, "", seed))
				r := v.Report
				if !r.OK() || r.Inconclusive {
					t.Fatalf("seed %d: %v\n%s", seed, kinds(r), describe(r))
				}
				if r.Sessions.Chosen != traces.SessionsProcess || r.Sessions.Survived != 0 {
					t.Fatalf("seed %d: contract %+v, want process with no session surviving", seed, r.Sessions)
				}
				vanished += r.Sessions.Vanished
				for _, s := range r.Submissions {
					if len(s.Sessions) > 1 && s.Outcome == traces.OutcomeInserted {
						moved++
					}
				}
			}
			if vanished == 0 || moved == 0 {
				t.Fatalf("%d sessions vanished, %d submissions moved to a new session and were inserted: the restarts never met a session", vanished, moved)
			}
		})
	}
}

// Under an explicit durable contract the same Agent fails, once per
// session the Agent answered prompts in and a later process did not know,
// and none of those sessions' messages is reported lost one by one.
func TestSessionsInMemoryFailUnderDurable(t *testing.T) {
	failed := 0
	for seed := uint64(1); seed <= 100; seed++ {
		r := judge(t, memorySessions(LinkStdio, traces.SessionsDurable, seed)).Report
		seen := map[string]bool{}
		for _, a := range r.Anomalies {
			if a.Kind != properties.SessionLost {
				t.Fatalf("seed %d: %s under durable, want only session-lost\n%s", seed, a.Kind, describe(r))
			}
			if seen[a.Session] {
				t.Fatalf("seed %d: session %s reported twice\n%s", seed, a.Session, describe(r))
			}
			seen[a.Session] = true
		}
		if len(r.Anomalies) > 0 {
			failed++
		}
	}
	// Every seed has at least the observer's restart, after which every
	// session the Agent answered a prompt in is unknown.
	if failed != 100 {
		t.Fatalf("%d of 100 seeds failed under durable, want all", failed)
	}
}

// The reference Agent stores its sessions: the checker sees them survive
// the observer's restart and chooses durable.
func TestStoredSessionsAreJudgedDurable(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		cfg := DefaultConfig()
		cfg.Seed = seed
		r := judge(t, cfg).Report
		if !r.OK() || r.Sessions.Chosen != traces.SessionsDurable || r.Sessions.Survived == 0 || r.Sessions.Vanished != 0 {
			t.Fatalf("seed %d: %v, contract %+v: want a pass judged durable", seed, kinds(r), r.Sessions)
		}
	}
}

// An Agent whose processes clobber each other's session lists fails under
// the default contract: other sessions survive, so the one that vanished is
// session-lost.
func TestLostWritesFailUnderAuto(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		cfg := DefaultConfig()
		cfg.Seed = seed
		cfg.UseAgent("lost-writes") // nodes on a ws link, 4 sessions per Client
		r := judge(t, cfg).Report
		for _, k := range kinds(r) {
			if k == properties.SessionLost {
				if r.Sessions.Chosen != traces.SessionsDurable || r.Sessions.Requested != traces.SessionsAuto {
					t.Fatalf("seed %d: session-lost under %+v", seed, r.Sessions)
				}
				return
			}
		}
	}
	t.Fatal("lost-writes: no session-lost in 100 seeds")
}

// The knob is refused where it means nothing checkable.
func TestSessionsInMemoryConfigErrors(t *testing.T) {
	cfg := memorySessions(LinkWS, "", 1)
	cfg.Nodes = 2
	if err := cfg.Validate(); err == nil {
		t.Error("sessions-in memory with 2 nodes: no error")
	}
	cfg = memorySessions(LinkStdio, "", 1)
	cfg.Agent = agent.Adapter
	if err := cfg.Validate(); err == nil {
		t.Error("sessions-in memory on the adapter: no error")
	}
	cfg = DefaultConfig()
	cfg.SessionContract = "forever"
	if err := cfg.Validate(); err == nil {
		t.Error("session contract forever: no error")
	}
}

func kinds(r *properties.Report) []string {
	var out []string
	for _, a := range r.Anomalies {
		out = append(out, a.Kind)
	}
	return out
}
