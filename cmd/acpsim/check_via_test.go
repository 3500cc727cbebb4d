package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/properties/hop"
)

func TestThroughProxyPutsTheAgentWhereTheProxyAsks(t *testing.T) {
	agent := []string{"acpsim", "agent", "--keys", "memory"}
	cases := []struct {
		via  string
		argv []string
	}{
		{"acpsim proxy", []string{"acpsim", "proxy"}},
		{"conductor --agent {agent} --log 'a b'", []string{"conductor", "--agent", "acpsim", "agent", "--keys", "memory", "--log", "a b"}},
		{"env {agent}", []string{"env", "acpsim", "agent", "--keys", "memory"}},
	}
	for _, c := range cases {
		argv, env, err := throughProxy(c.via, agent)
		if err != nil || !slices.Equal(argv, c.argv) || env != "ACPSIM_AGENT_COMMAND=acpsim agent --keys memory" {
			t.Errorf("throughProxy(%q) = %q, %q, %v; want %q and the Agent's command in the environment", c.via, argv, env, err, c.argv)
		}
	}
	for via, want := range map[string]string{
		"  ":              "expected the proxy's command",
		"p --a={agent}":   "{agent} must be a word of its own",
		"p 'unterminated": "--via",
	} {
		if _, _, err := throughProxy(via, agent); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("throughProxy(%q): error %v, want one saying %q", via, err, want)
		}
	}
}

// A proxy that forwards frames unchanged keeps an honest Agent honest, both
// when it takes the Agent's command as words ({agent}) and from the
// environment.
func TestCheckThroughAnHonestProxyPasses(t *testing.T) {
	for _, via := range []string{"env {agent}", "sh -c 'exec $ACPSIM_AGENT_COMMAND'"} {
		out, code := checkRun(t, "--seeds", "3", "--fault-rates", "kill=0.1", "--via", via, "--", "self", "agent")
		if code != 0 || !strings.Contains(out, "PASS") || !strings.Contains(out, " via "+via) {
			t.Fatalf("--via %q: exit %d, want 0 and PASS, naming the proxy:\n%s", via, code, out)
		}
	}
}

// A proxy that drops idempotencyKey turns every retry into a second
// insertion, and the malformed-key probes into prompts the Agent accepts.
func TestCheckThroughAProxyThatStripsKeysFails(t *testing.T) {
	proxy, err := filepath.Abs("testdata/strip-key-proxy.sh")
	if err != nil {
		t.Fatal(err)
	}
	via := "sh " + proxy
	out, code := checkRun(t, "--seeds", "10", "--fault-rates", "kill=0.15,drop=0.15", "--via", via, "--", "self", "agent")
	if code != 1 || !strings.Contains(out, "duplicate") || !strings.Contains(out, "bad-reply") {
		t.Fatalf("exit %d, want 1 with duplicates and bad replies:\n%s", code, out)
	}
	if !strings.Contains(out, "rerun: acpsim check --first-seed") || !strings.Contains(out, "--via=") {
		t.Fatalf("the rerun command must keep --via:\n%s", out)
	}
}

// A proxy that turns an omitted or null idempotencyKey into "" makes the
// Agent refuse a legal, unkeyed prompt (-32602): check's Clients send some
// submissions without a key, so default flags catch it.
func TestCheckThroughAProxyThatEmptiesKeysFails(t *testing.T) {
	proxy, err := filepath.Abs("testdata/empty-key-proxy.py")
	if err != nil {
		t.Fatal(err)
	}
	out, code := checkRun(t, "--seeds", "10", "--via", "python3 "+proxy, "--", "self", "agent")
	refused := strings.Contains(out, "carried no idempotencyKey") || strings.Contains(out, `carried "idempotencyKey": null`)
	if code != 1 || !refused || !strings.Contains(out, "(the proxy: key-changed)") {
		t.Fatalf("exit %d, want 1 with an unkeyed prompt refused -32602 and the proxy's key change named:\n%s", code, out)
	}
}

func TestCheckViaBadUsageIsExit2(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--via", "p --a={agent}", "--", "cat"}, "must be a word of its own"},
		{[]string{"--via", "acpsim proxy", "--url", "http://127.0.0.1:1/acp"}, "--via puts a proxy in front of an Agent acpsim starts"},
	} {
		out, code := checkRun(t, c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("check %q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, out)
		}
	}
}

// With the proxy→Agent hop recorded (the default under --via), each
// known-bad proxy is named for what it did, from both hops, before the
// anomalies the Clients saw; the hop's trace is saved beside the seed's and
// reads as a tap's trace. An honest proxy is found clean.
func TestCheckViaNamesWhatTheProxyDid(t *testing.T) {
	renumbering, err := filepath.Abs("../../interop/renumbering-proxy.py")
	if err != nil {
		t.Fatal(err)
	}
	self := os.Args[0]
	for _, c := range []struct {
		via, seeds, finding string
		code                int
	}{
		{self + " proxy --mode honest", "3", "", 0},
		{self + " proxy --mode strip-key", "2", hop.KeyChanged, 1},
		{self + " proxy --mode wrong-response", "4", hop.MisroutedAnswer, 1},
		{self + " proxy --mode fresh-key-retry", "2", hop.OwnPrompt, 1},
		{"python3 " + renumbering + " -- {agent}", "4", hop.UnmappedCancel, 0},
	} {
		out, code := checkRun(t, "--seeds", c.seeds, "--via", c.via, "--", "self", "agent")
		if code != c.code || !strings.Contains(out, "proxy→Agent hop: recorded in "+c.seeds+" of "+c.seeds+" seeds") {
			t.Fatalf("--via %q: exit %d, want %d with the hop recorded in every seed:\n%s", c.via, code, c.code, out)
		}
		if c.finding == "" {
			if !strings.Contains(out, "the proxy, from both hops: nothing found") {
				t.Fatalf("--via %q: want nothing found of the proxy:\n%s", c.via, out)
			}
			continue
		}
		if !strings.Contains(out, "(the proxy: "+c.finding) || !strings.Contains(out, hop.Rule(c.finding)) {
			t.Fatalf("--via %q: want the seed lines to name %s, with its rule:\n%s", c.via, c.finding, out)
		}
		if c.code == 1 && !(strings.Index(out, "the proxy, from both hops (the cause)") < strings.Index(out, "anomalies:")) {
			t.Fatalf("--via %q: the cause must come before the anomalies:\n%s", c.via, out)
		}
		hops, _ := filepath.Glob("acpsim-failures/*.hop.ndjson")
		if len(hops) == 0 {
			t.Fatalf("--via %q: no NAME.hop.ndjson saved:\n%s", c.via, out)
		}
		if jout, jcode := acpsimRun(t, "judge", hops[0]); jcode == 2 {
			t.Fatalf("judge %s: exit 2, the hop's trace must read as a tap's:\n%s", hops[0], jout)
		}
		// judge of the seed's trace finds its hop beside it and names what
		// the proxy did again, before the report, as check did.
		outer := strings.TrimSuffix(hops[0], ".hop.ndjson") + ".ndjson"
		jout, jcode := acpsimRun(t, "judge", outer)
		cause := strings.Index(jout, "the proxy, from both hops (the cause):\n- "+c.finding+":")
		if jcode != c.code || cause < 0 || cause > strings.Index(jout, "sub  client") {
			t.Fatalf("judge %s: exit %d, want %d with the proxy's %s named before the report:\n%s", outer, jcode, c.code, c.finding, jout)
		}
		if c.code == 0 && !strings.Contains(jout, "beside the verdict, the proxy: "+c.finding) {
			t.Fatalf("judge %s: the PASS line must say what the proxy did:\n%s", outer, jout)
		}
	}
}
