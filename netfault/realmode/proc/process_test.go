package proc

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// noLeaks checks, after every other cleanup of t, that no goroutine
// started during t is left.
func noLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

func TestProcessRefusesAnEndlessLine(t *testing.T) {
	noLeaks(t)
	p, err := Start("p", []string{"sh", "-c", "head -c 20000000 /dev/zero; sleep 10"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range p.Frames() {
		t.Error("a frame from a line that never ended")
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("Err = %v, want the line-length error", err)
	}
	<-p.Exited() // killed, not left running
}
