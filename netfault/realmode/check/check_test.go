package check

import (
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault/realmode/internal/realtest"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// checkConfig is a small run: it must finish in about a second.
func checkConfig(seed uint64) Config {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Prompts = seed, 4
	cfg.StartTimeout = time.Second
	return cfg
}

func TestCheckJudgesARemoteAgentAndLeavesNothingRunning(t *testing.T) {
	realtest.NoLeaks(t)
	st := store.NewDisk()
	u := realtest.ServeAgent(t, st, realtest.Knobs())
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := checkConfig(seed)
		cfg.URLs = []string{u, realtest.WSEndpoint(u)}
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Broken != nil {
			t.Fatalf("seed %d: broken: %s", seed, res.Broken.Detail)
		}
		rep := properties.Check(res.Log.Header, res.Log.Events)
		if !rep.OK() || rep.Inconclusive || rep.End != traces.EndQuiet {
			var b strings.Builder
			rep.WriteText(&b)
			t.Fatalf("seed %d: end %q, want a quiet pass:\n%s", seed, rep.End, b.String())
		}
		if rep.Stats.Submissions != cfg.Clients*cfg.Prompts {
			t.Fatalf("seed %d: %d submissions, want %d", seed, rep.Stats.Submissions, cfg.Clients*cfg.Prompts)
		}
	}
}

func TestCheckStopsAtABrokenAgentAndLeavesNothingRunning(t *testing.T) {
	realtest.NoLeaks(t)
	cases := []struct {
		argv []string
		kind string
	}{
		{[]string{"false"}, BrokenExitedAtStart},
		{[]string{"sh", "-c", "echo '{oops'; sleep 10"}, BrokenNotJSON},
		{[]string{"sh", "-c", `echo '{"jsonrpc":"2.0"}'; sleep 10`}, BrokenNotJSONRPC},
		{[]string{"sh", "-c", answerSh + `read l; answer "$l" '"error":{"code":-32600,"message":"x"}'; sleep 10`}, BrokenInitError},
		{[]string{"sh", "-c", `read l; echo '{"jsonrpc":"2.0","id":"1","result":{}}'; sleep 10`}, BrokenUnknownID},
		{[]string{"sleep", "10"}, BrokenNoAnswer},
		{[]string{"sh", "-c", answerSh + `read l; answer "$l" '"result":{"protocolVersion":1,"agentCapabilities":{}}'; sleep 10`}, BrokenSpeaksV1},
		{[]string{"sh", "-c", v2Init + `read l; answer "$l" '"result":{"cwd":"/"}'; sleep 10`}, BrokenNoSessionID},
		{[]string{"sh", "-c", v2Init + `read l; answer "$l" '"result":{"sessionId":""}'; sleep 10`}, BrokenNoSessionID},
		{[]string{"sh", "-c", v2Init + `sleep 10`}, BrokenSessionNoReply},
	}
	for _, c := range cases {
		cfg := checkConfig(1)
		cfg.Agent = c.argv
		start := time.Now()
		res, err := Run(cfg)
		if err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		if res.Broken == nil || res.Broken.Kind != c.kind {
			t.Errorf("%q: broken %+v, want kind %s", c.argv, res.Broken, c.kind)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%q: took %v; a broken Agent must end the run within the start timeout", c.argv, d)
		}
		if last := res.Log.Events[len(res.Log.Events)-1]; last.Kind != traces.KindEnd {
			t.Errorf("%q: the trace ends with %s, want an end event", c.argv, last.Kind)
		}
	}
}

// v2Init is a shell Agent's answer to the first request, initialize, in ACP
// v2: what it does next is the case.
const v2Init = answerSh + `read l; answer "$l" '"result":{"protocolVersion":2,"capabilities":{},"info":{"name":"sh","version":"1"}}'; `

// answerSh defines answer LINE MEMBERS, which writes a response to the
// request LINE under its id: check's Clients number their requests in
// drawn ways (from 0, strings, …), so a scripted Agent echoes the id.
const answerSh = `answer() { id=$(printf '%s' "$1" | sed -E 's/.*"id":("[^"]*"|[0-9-]+).*/\1/'); printf '{"jsonrpc":"2.0","id":%s,%s}\n' "$id" "$2"; }; `
