package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pinned file written from some outputs accepts the same outputs again.
func TestCompareAcceptsWhatItRecorded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hashes.txt")
	entries := []Entry{{"a", []byte("one")}, {"b", []byte("two")}}
	Compare(t, file, "update", "bytes", true, entries)
	b, err := os.ReadFile(file)
	if err != nil || strings.Count(string(b), "\n") != 2 || !strings.HasPrefix(string(b), "a ") {
		t.Fatalf("recorded %q (%v), want a line per entry", b, err)
	}
	Compare(t, file, "update", "bytes", false, entries)
}
