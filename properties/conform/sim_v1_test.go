package conform_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
)

// ACP v1 runs (the Agent knob protocol=1, which the model Clients and the
// observer follow): every frame conforms to the official v1 schema on every
// link and with every v1 policy, the same seed gives the same trace bytes,
// and the checker judges the trace under v1 (Report.Protocol 1, its line).
func TestSimulatedV1RunsConformToTheV1Schema(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	for _, link := range []string{world.LinkStdio, world.LinkHTTP, world.LinkWS} {
		for _, pol := range []string{"none", "naive", "lookup", "classes-only"} {
			t.Run(link+"/"+pol, func(t *testing.T) {
				t.Parallel()
				sc := simConfig{link + "/" + pol, func(c *world.Config) error {
					c.Link, c.Policy = link, pol
					return c.Knobs.Set("protocol", "1")
				}}
				first, again := runs(t, sc, seeds), runs(t, sc, seeds)
				for i, log := range first {
					if n := conform.Negotiated(log.Events); n.Version != conform.V1 {
						t.Fatalf("seed %d negotiated version %d (%s), want 1", log.Header.Seed, n.Version, n.Why)
					}
					for _, p := range conform.TraceVersion(conform.V1, log.Events) {
						t.Errorf("seed %d: %s\n  frame: %s", log.Header.Seed, p, log.Events[p.Seq-1].Frame)
					}
					if a, b := traceBytes(t, log), traceBytes(t, again[i]); !bytes.Equal(a, b) {
						t.Errorf("seed %d: two runs gave different traces", log.Header.Seed)
					}
					if rep := properties.Check(log.Header, log.Events); rep.Protocol != 1 || rep.V1 == "" {
						t.Errorf("seed %d: report protocol %d, line %q; want 1 and the v1 line", log.Header.Seed, rep.Protocol, rep.V1)
					}
				}
			})
		}
	}
}

func traceBytes(t *testing.T, log *traces.Log) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := log.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A v1 Agent without session/load (v1 makes it optional) cannot show any
// session back: the Clients start new sessions, nothing is reported
// setup-failed or lost, and the report says why never silently lost was
// not judged, so the verdict is no pass.
func TestAV1AgentWithoutSessionLoadIsNotJudgedLost(t *testing.T) {
	sc := simConfig{"stdio/naive/load-session=no", func(c *world.Config) error {
		c.Policy = "naive"
		if err := c.Knobs.Set("protocol", "1"); err != nil {
			return err
		}
		return c.Knobs.Set("load-session", "no")
	}}
	for _, log := range runs(t, sc, 6) {
		rep := properties.Check(log.Header, log.Events)
		for _, a := range rep.Anomalies {
			t.Errorf("seed %d: %s: %s", log.Header.Seed, a.Kind, a.Explanation)
		}
		if v, line := rep.Verdict(); v != properties.VerdictInconclusive || !strings.Contains(line, "no session/load") {
			t.Errorf("seed %d: verdict %v %q, want inconclusive naming the missing session/load", log.Header.Seed, v, line)
		}
	}
}
