package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/netfault/realmode/checkclient"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/properties/clientcheck"
)

var clientSeedLine = regexp.MustCompile(`(?m)^seed (\d+) +FAIL ([a-z, -]+) ·`)

// A failing seed check-client kept is judged again by acpsim judge from the
// files alone (the tap's trace and NAME.client.json beside it): the same
// kinds as the seed's line, exit 1, and the rerun. The record is what it
// judges: without the final transcript, every message told inserted is
// lost.
func TestJudgeGivesAKeptCheckClientSeedItsVerdictAgain(t *testing.T) {
	out, code := checkClientRun(t, "sdk-client-adapter.mjs", "--seeds", "3", "--first-seed", "2", "--fault-rates", "kill=0.5")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	kinds := map[string]string{}
	for _, m := range clientSeedLine.FindAllStringSubmatch(out, -1) {
		kinds[m[1]] = m[2]
	}
	kept, _ := filepath.Glob("acpsim-failures/check-client-*-seed-*.ndjson")
	if len(kept) == 0 || len(kinds) == 0 {
		t.Fatalf("no failing seed kept:\n%s", out)
	}
	for _, trace := range kept {
		seed := trace[strings.LastIndex(trace, "seed-")+len("seed-") : len(trace)-len(".ndjson")]
		want, failed := kinds[seed]
		if !failed {
			continue // kept for a schema problem or an inconclusive seed
		}
		jout, jcode := acpsimRun(t, "judge", trace)
		if jcode != 1 || !strings.Contains(jout, "· check-client seed "+seed+" ·") || !strings.Contains(jout, "FAIL: the Client ("+want+")") || !strings.Contains(jout, "rerun: acpsim check-client --seeds=1 --first-seed="+seed) {
			t.Fatalf("judge %s: exit %d, want 1 with FAIL: the Client (%s) and its rerun:\n%s", trace, jcode, want, jout)
		}
		// What the record judges is not also called unjudged.
		if !strings.Contains(jout, "not judged on a tap's trace (they need the user's outcomes and the final transcript, which a tap does not see): session-lost, unattributable\n") ||
			!strings.Contains(jout, "judged from "+clientRecordPath(trace)+", below: lost, phantom, unresolved (check-client judges none of the others)\n") {
			t.Fatalf("judge %s: want lost, phantom and unresolved judged from the record and only session-lost and unattributable unjudged:\n%s", trace, jout)
		}
	}

	record := clientRecordPath(kept[0])
	var rec clientRecord
	data, err := os.ReadFile(record)
	if err != nil || json.Unmarshal(data, &rec) != nil {
		t.Fatalf("%s: %v", record, err)
	}
	rec.Transcript = nil
	data, _ = json.Marshal(rec)
	if err := os.WriteFile(record, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if jout, jcode := acpsimRun(t, "judge", kept[0]); jcode != 1 || !strings.Contains(jout, "lost s") {
		t.Fatalf("judge with the transcript emptied: exit %d, want 1 with a lost submission:\n%s", jcode, jout)
	}

	// check-client's own word on a seed it could not judge stands.
	for _, c := range []struct {
		field, value, want string
		code               int
	}{
		{"broken", `stdout line 3: no "outcome"`, "FAIL: the Client's adapter broke its contract", 1},
		{"inconclusive", "session/new never answered", "INCONCLUSIVE: check-client judged nothing of the Client: session/new never answered", 3},
	} {
		rec := rec
		if c.field == "broken" {
			rec.Broken = c.value
		} else {
			rec.Inconclusive = c.value
		}
		data, _ := json.Marshal(rec)
		if err := os.WriteFile(record, data, 0o644); err != nil {
			t.Fatal(err)
		}
		jout, jcode := acpsimRun(t, "judge", kept[0])
		if strings.Contains(jout, "FAIL\n") && c.code == 3 {
			c.code, c.want = 1, "FAIL" // the frames alone fail: their verdict is the last word
		}
		if jcode != c.code || !strings.Contains(jout, c.want) {
			t.Fatalf("judge with the record %s: exit %d, want %d with %q:\n%s", c.field, jcode, c.code, c.want, jout)
		}
		if !strings.Contains(jout, "which a tap does not see): lost, session-lost, phantom, unresolved, unattributable\n") || strings.Contains(jout, ", below: ") {
			t.Fatalf("judge with the record %s: a record that judged nothing judges nothing of what the tap cannot see:\n%s", c.field, jout)
		}
	}

	if err := os.WriteFile(record, []byte(`{"checkClientRecord":1,"submissions":7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if jout, jcode := acpsimRun(t, "judge", kept[0]); jcode != 2 || !strings.Contains(jout, record) || !strings.Contains(jout, "submissions") {
		t.Fatalf("judge with a malformed record: exit %d, want 2 naming the file and the field:\n%s", jcode, jout)
	}
}

// Each anomaly kind a run's FAIL line counts is told in full once: the
// first failing seed whole, a later one by the kinds no seed before it
// explained.
func TestCheckClientExplainsEveryKindOnce(t *testing.T) {
	seed := func(kinds ...string) *clientSeedReport {
		r := &clientSeedReport{}
		for i, k := range kinds {
			r.Anomalies = append(r.Anomalies, clientcheck.Anomaly{Kind: k, Sub: "s" + string(rune('1'+i)), Explanation: "what " + k + " was"})
		}
		return r
	}
	var b strings.Builder
	explained := map[string]bool{}
	for _, r := range []*clientSeedReport{
		{Result: checkclient.Result{Broken: "an exit before the end"}},
		seed("duplicate", "duplicate"),
		seed("duplicate", "lost", "lost"),
		seed("lost", "phantom"),
	} {
		printClientFailure(&b, r, explained)
	}
	out := b.String()
	for kind, n := range map[string]int{"duplicate": 2, "lost": 1, "phantom": 1} {
		if got := strings.Count(out, "what "+kind+" was"); got != n {
			t.Errorf("%s explained %d times, want %d (the first failing seed whole, then once a kind):\n%s", kind, got, n, out)
		}
	}
	if !strings.Contains(out, "broke its contract") {
		t.Errorf("the broken seed is not told:\n%s", out)
	}
}

// A kept seed whose Client passes from its record passes judge on that
// record (what a tap's trace alone leaves unjudged, the record judged),
// unless the frames fail: their FAIL is then the last word.
func TestJudgeOfAKeptSeedWhoseClientPasses(t *testing.T) {
	var b strings.Builder
	if code, done := (clientJudgement{}).verdict(&b, "t.ndjson", "rerun", &properties.Report{}); code != 0 || !done || !strings.HasPrefix(b.String(), "PASS: the Client") {
		t.Fatalf("exit %d, decided %v, want 0 with the Client's PASS:\n%s", code, done, b.String())
	}
	failing := &properties.Report{Anomalies: []properties.Anomaly{{Kind: properties.WrongID}}}
	if _, done := (clientJudgement{}).verdict(&b, "t.ndjson", "rerun", failing); done {
		t.Fatal("a Client that passes over frames that fail must leave the frames' FAIL the last word")
	}
}

// What judge prints as unjudged beside a record is a copy: the report the
// verdict reads keeps every kind a tap's trace cannot show.
func TestTheRecordNarrowsOnlyWhatIsPrinted(t *testing.T) {
	tap := func() *properties.Report { return &properties.Report{NotJudged: properties.NeedWholeHistory} }
	for _, c := range []struct {
		name       string
		rec        *clientRecord
		wantShown  []string
		wantJudged []string
	}{
		{"no record", nil, properties.NeedWholeHistory, nil},
		{"a broken adapter", &clientRecord{Broken: "stdout line 3"}, properties.NeedWholeHistory, nil},
		{"an inconclusive seed", &clientRecord{Inconclusive: "session/new never answered"}, properties.NeedWholeHistory, nil},
		{"a judged seed", &clientRecord{}, []string{properties.SessionLost, properties.Unattributable}, []string{properties.Lost, properties.Phantom, properties.Unresolved}},
	} {
		rep := tap()
		shown, judged := c.rec.judgesWhatTheTapCannot(rep)
		if !slices.Equal(shown.NotJudged, c.wantShown) || !slices.Equal(judged, c.wantJudged) || !slices.Equal(rep.NotJudged, properties.NeedWholeHistory) {
			t.Errorf("%s: shown unjudged %v, judged from the record %v, the report's own %v; want %v, %v and the report untouched",
				c.name, shown.NotJudged, judged, rep.NotJudged, c.wantShown, c.wantJudged)
		}
	}
}
