package main

import (
	"strings"
	"testing"
)

// A run that hits its cap gets no verdict it could not read: with
// `--timeout 1ns` a run never goes quiet (its Clients ask again for their
// sessions faster than any answer comes), whether it is asked for 2,000
// prompts (cut in chaos) or 3; both exit 3 with what they could not judge
// named, never 1 with lost or unresolved; judge says the same of their
// traces. A known-bad Agent cut the same way (ignore-key inserting every
// retry of a 3 ms timeout) still fails on what the frames and the
// transcripts it read show. The cap grows with the prompts asked, so a
// plain run of 2,000 prompts is no longer cut at all (issue 18).
func TestARunThatHitsItsCapIsInconclusiveNotFailed(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		why  string // an inconclusive reason the report names
	}{
		{[]string{"--timeout", "1ns", "--prompts", "2000"}, "never got an outcome: "},
		{[]string{"--timeout", "1ns", "--prompts", "3"}, "never got an outcome: no prompt request was ever sent; the run hit its cap while it was still pending"},
	} {
		for _, cmd := range [][]string{append([]string{"run", "--trace", "cap.ndjson"}, tc.args...), {"judge", "cap.ndjson"}} {
			code, out, errOut := run(t, cmd...)
			if code != exitInconclusive {
				t.Fatalf("%v: exit %d, want %d\n%s%s", cmd, code, exitInconclusive, end(out), errOut)
			}
			for _, want := range []string{"end cap, INCONCLUSIVE", "- inconclusive: ", tc.why, "INCONCLUSIVE: the run stopped at its cap"} {
				if !strings.Contains(out, want) {
					t.Errorf("%v: the report lacks %q\n%s", cmd, want, end(out))
				}
			}
			for _, not := range []string{"- lost:", "- unresolved:", "- session-lost:", "- phantom:", "- bad-reply:", "FAIL"} {
				if strings.Contains(out, not) {
					t.Errorf("%v: the report has %q\n%s", cmd, not, end(out))
				}
			}
		}
	}
	code, out, _ := run(t, "run", "--agent", "ignore-key", "--timeout", "3ms", "--prompts", "2000")
	if code != exitAnomaly || !strings.Contains(out, "- duplicate: ") || !strings.Contains(out, "end cap, INCONCLUSIVE") {
		t.Fatalf("ignore-key cut at its cap: exit %d, want %d with duplicates\n%s", code, exitAnomaly, end(out))
	}
}

// end is the end of a long report, where its verdict is.
func end(out string) string { return string(tail([]byte(out), 3000)) }
