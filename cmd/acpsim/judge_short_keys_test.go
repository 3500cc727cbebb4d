package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A legal one-character key is no leak where the Agent's frames hold the
// letter inside words and ids, nor where the Agent wrote it before a Client
// sent it (the initialize response's version "e", before key "e"), nor in
// the reference Agent's own "must be a string" for a key "a"; the same run
// whose Agent writes the key as a whole text after it was sent fails (a key
// of 1 to 3 characters leaks only as a whole string value). The traces are a keyed run (seed 5, 4 prompts, 1 session) with its
// keys rewritten to q, z, e and j (issue 18 item 4: "e" was a false leak).
func TestJudgeOfOneCharacterKeys(t *testing.T) {
	dir := filepath.Join("testdata", "keys")
	code, out, stderr := run(t, "judge", filepath.Join(dir, "one-char-keys.ndjson"))
	if code != exitOK || !strings.Contains(out, "PASS") {
		t.Errorf("clean trace with keys q, z, e, j: exit %d, want 0\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "judge", filepath.Join(dir, "one-char-key-leaks.ndjson"))
	want := `key-leak: key "e" leaked: c1 sent it as the idempotencyKey of s1's session/prompt request 3`
	if code != exitAnomaly || !strings.Contains(out, want) || !strings.Contains(out, `inside a string value "e" in a session/update`) || !strings.Contains(out, "events 12, 111") {
		t.Errorf("the Agent wrote key e after it was sent: exit %d, want 1 and %q citing events 12, 111\n%s%s", code, want, out, stderr)
	}
	if n := strings.Count(out, "- key-leak"); n != 1 {
		t.Errorf("%d key-leak anomalies, want 1 (the Agent's version \"e\" came before the key)\n%s", n, out)
	}
}
