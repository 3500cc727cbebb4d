package world

import (
	"bytes"
	"testing"
)

func httpConfig() Config {
	cfg := DefaultConfig()
	cfg.Link = LinkHTTP
	cfg.EnableLinkFaults()
	return cfg
}

// Over Streamable HTTP a response is lost by a lost POST answer or a broken
// SSE stream alone, without any crash: the keyed Client still gets every
// submission inserted exactly once, with users who cancel, close and fork
// and Clients that restart, while the naive Client duplicates.
func TestHTTPKeyedHoldsNaiveDuplicates(t *testing.T) {
	cfg := httpConfig()
	cfg.Cancels, cfg.Closes, cfg.Forks = 2, 1, 1
	cfg.Rates["client-restart"] = 0.01
	sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 300})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Inconclusive != 0 {
		t.Fatalf("keyed over HTTP: %d failed, %d inconclusive: %+v", sum.Failed, sum.Inconclusive, sum.Failures[0])
	}
	if sum.Stats.RespLostAfterInsert == 0 || sum.Stats.RetriesFromBinding == 0 {
		t.Fatalf("the HTTP faults never lost a response after insertion: %+v", sum.Stats)
	}
	cfg = httpConfig()
	cfg.Policy = "naive"
	sum, err = Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 100})
	if err != nil {
		t.Fatal(err)
	}
	dups := 0
	for _, k := range sum.Anomalies {
		if k.Kind == "duplicate" {
			dups = k.Count
		}
	}
	if dups == 0 {
		t.Fatal("naive over HTTP never duplicated")
	}
}

func TestHTTPRunsAreDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := httpConfig()
		cfg.Seed = seed
		a, b := traceBytes(t, cfg), traceBytes(t, cfg)
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: two HTTP runs differ", seed)
		}
	}
}

// WebSocket: the connection is not the process. A cut ends one connection
// (what was in flight is lost) and the server lives on; the keyed Client
// resumes on a new connection and every submission is inserted once.
func TestWebSocketKeyedHoldsNaiveDuplicates(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Link = LinkWS
	cfg.Cancels, cfg.Closes, cfg.Forks = 2, 1, 1
	cfg.Rates["client-restart"] = 0.01
	sum, err := Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 300})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Inconclusive != 0 {
		t.Fatalf("keyed over WebSocket: %d failed, %d inconclusive: %+v", sum.Failed, sum.Inconclusive, sum.Failures[0])
	}
	cfg = DefaultConfig()
	cfg.Link, cfg.Policy = LinkWS, "naive"
	sum, err = Swarm(SwarmConfig{Base: cfg, FirstSeed: 1, Seeds: 100})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed == 0 {
		t.Fatal("naive over WebSocket never failed")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		c := DefaultConfig()
		c.Link, c.Seed = LinkWS, seed
		if a, b := traceBytes(t, c), traceBytes(t, c); !bytes.Equal(a, b) {
			t.Fatalf("seed %d: two WebSocket runs differ", seed)
		}
	}
}
