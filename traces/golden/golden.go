// Package golden pins outputs by their sha256 in a file of "name hash"
// lines, for tests that must show a change left bytes as they were: the
// simulator's traces (sim/world) and judge's reports (cmd/acpsim).
package golden

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Entry is one pinned output: its name and its bytes.
type Entry struct {
	Name  string
	Bytes []byte
}

// Compare checks each entry's sha256 against file, or rewrites file when
// update is set (the flag's name goes in the message). what says what the
// bytes are ("trace bytes", "judge report").
func Compare(t testing.TB, file, flag, what string, update bool, entries []Entry) {
	t.Helper()
	var got strings.Builder
	for _, e := range entries {
		sum := sha256.Sum256(e.Bytes)
		fmt.Fprintf(&got, "%s %s\n", e.Name, hex.EncodeToString(sum[:]))
	}
	if update {
		if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := map[string]string{}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		name, hash, _ := strings.Cut(sc.Text(), " ")
		want[name] = hash
	}
	for _, line := range strings.Split(strings.TrimSpace(got.String()), "\n") { // not SplitSeq: t.Helper does not reach into its closure
		name, hash, _ := strings.Cut(line, " ")
		switch w, ok := want[name]; {
		case !ok:
			t.Errorf("%s: no recorded hash (run with -%s and commit %s)", name, flag, file)
		case w != hash:
			t.Errorf("%s: %s changed: sha256 %s, recorded %s", name, what, hash, w)
		}
	}
	if len(want) != len(entries) {
		t.Errorf("%s holds %d hashes for %d runs", file, len(want), len(entries))
	}
}
