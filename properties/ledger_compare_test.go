package properties

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// TestMain holds the rewrite's ledger to the present checker on every trace
// the package's tests judge (Check's hook, checked): a test that builds a
// trace by hand for one rule is a case of the ledger's too.
func TestMain(m *testing.M) {
	var mu sync.Mutex
	var diffs []string
	judged := 0
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		// A benchmark of Check measures Check: the harness would more
		// than double what it times.
		os.Exit(m.Run())
	}
	checked = func(h traces.Header, evs []traces.Event, _ *Report) {
		d := RewriteDiff(h, evs)
		mu.Lock()
		defer mu.Unlock()
		judged++
		if d != "" {
			diffs = append(diffs, d)
		}
	}
	code := m.Run()
	if len(diffs) > 0 {
		fmt.Fprintf(os.Stderr, "the rewrite's ledger read %d of the %d traces judged otherwise than the checker; the first few:\n", len(diffs), judged)
		for _, d := range diffs[:min(3, len(diffs))] {
			fmt.Fprintf(os.Stderr, "%s\n\n", d)
		}
		code = 1
	}
	os.Exit(code)
}
