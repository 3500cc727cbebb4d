package main

import (
	"regexp"
	"strings"
	"testing"
)

// With default flags a swarm catches an Agent that withdraws only the
// attempt a $/cancel_request names: its bug needs two attempts of one key
// pending at once, which impatient users (a prompt timeout shorter than a
// round of work) make. A failing impatient seed's rerun states its timeout
// and fails alone. (check, in real time, catches it in about 1 or 2 seeds
// of 60: too few for a test that must not flake.)
func TestSwarmCatchesCancelSparesOtherAttemptsWithImpatientUsers(t *testing.T) {
	code, out, _ := run(t, "swarm", "--seeds", "400", "--agent", "cancel-spares-other-attempts", "--show", "20")
	if code != exitAnomaly || !strings.Contains(out, "bad-reply") {
		t.Fatalf("exit %d, want %d with bad-reply:\n%s", code, exitAnomaly, out)
	}
	if got := actionLines(t, out)["impatient"]; got[1] == 0 {
		t.Fatalf("impatient line %v: no failing seed had it on:\n%s", got, out)
	}
	m := regexp.MustCompile(`(?m)^    rerun: .*? (run --seed .*--timeout=30ms.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no failing seed's rerun states --timeout=30ms:\n%s", out)
	}
	words := strings.Fields(m[1])
	if code, again, _ := run(t, words...); code != exitAnomaly || !strings.Contains(again, "bad-reply") {
		t.Fatalf("rerun %v: exit %d, want %d with bad-reply:\n%s", words, code, exitAnomaly, again)
	}
	for i, w := range words {
		if w == "--timeout=30ms" {
			words = append(words[:i:i], words[i+1:]...)
			break
		}
	}
	if code, _, _ := run(t, words...); code != exitOK {
		t.Errorf("rerun without its impatient timeout %v: exit %d, want %d: the timeout is what the seed needed", words, code, exitOK)
	}
}
