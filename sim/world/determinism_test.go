package world

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

func TestCheckDeterminismOnARealRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Rates = 5, boosted()
	d, err := CheckDeterminism(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Equal || d.Runs[0] == 0 {
		t.Fatalf("%s", d)
	}
}

// The comparison itself must be able to fail, and name the event.
func TestDivergenceNamesTheFirstDifferentEvent(t *testing.T) {
	res, err := Run(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	other := &traces.Log{Header: res.Log.Header, Events: append([]traces.Event(nil), res.Log.Events...)}
	other.Events[41].T++
	d := Diverge(res.Log, other)
	if d.Equal || d.Seq != 42 || !strings.Contains(d.String(), "differ first at event 42") {
		t.Fatalf("got %s", d)
	}
	short := &traces.Log{Events: res.Log.Events[:10]}
	if d := Diverge(res.Log, short); d.Equal || d.Seq != 11 || d.B != "" {
		t.Fatalf("a shorter run: got %s", d)
	}
}
