package main

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/netfault/realmode/checkclient"
	"github.com/acpsim/acpsim/properties/clientcheck"
)

// The run's account splits the outcomes told by kind, over the judged
// seeds, and says what a run told unknown judged: a Client that tells
// unknown for everything passes, and the report must not hide it.
func TestCheckClientReportSplitsTheOutcomesTold(t *testing.T) {
	run := &clientRun{perKind: map[string]int{}}
	judged := func(inserted, failed, unknown int) *clientSeedReport {
		return &clientSeedReport{Result: checkclient.Result{Told: inserted + failed + unknown, ToldInserted: inserted, ToldFailed: failed, ToldUnknown: unknown,
			Cover: clientcheck.Coverage{Subs: 5, Outcomes: 5}}}
	}
	for _, r := range []*clientSeedReport{judged(3, 1, 1), judged(0, 0, 5)} {
		run.seeds++
		run.add(r)
	}
	inconclusive := judged(0, 0, 5)
	inconclusive.Inconclusive = "no session/prompt"
	run.seeds++
	run.add(inconclusive)
	var out strings.Builder
	run.finish(&out)
	want := "outcomes told: 3 inserted, 1 failed, 6 unknown (60% of 10: an unknown is never false, so a submission told only unknown was judged for duplicates alone)"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("want %q in the run's account:\n%s", want, out.String())
	}
	var seed strings.Builder
	printClientSeed(&seed, judged(3, 1, 1))
	if !strings.Contains(seed.String(), "5 outcomes told (3 inserted, 1 failed, 1 unknown)") {
		t.Fatalf("the seed line must split its outcomes:\n%s", seed.String())
	}
}
