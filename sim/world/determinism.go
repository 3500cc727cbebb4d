package world

import (
	"bytes"
	"fmt"

	"github.com/acpsim/acpsim/traces"
)

// Divergence is the first place two runs of one configuration differ.
type Divergence struct {
	Seq   int64
	A, B  string // the two events as trace lines ("" when one run ended)
	Runs  [2]int // events per run
	Equal bool
}

func (d *Divergence) String() string {
	if d.Equal {
		return fmt.Sprintf("deterministic: both runs wrote the same %d events", d.Runs[0])
	}
	return fmt.Sprintf("NOT deterministic: the runs differ first at event %d\n  run 1: %s\n  run 2: %s", d.Seq, orEnd(d.A), orEnd(d.B))
}

func orEnd(s string) string {
	if s == "" {
		return "(no such event: the run had ended)"
	}
	return s
}

// CheckDeterminism runs cfg twice and names the first event where the two
// traces differ. A simulation is a pure function of its configuration, so
// any difference is a bug (a map range, a goroutine, the wall clock).
func CheckDeterminism(cfg Config) (*Divergence, error) {
	a, err := Run(cfg)
	if err != nil {
		return nil, err
	}
	b, err := Run(cfg)
	if err != nil {
		return nil, err
	}
	return Diverge(a.Log, b.Log), nil
}

// Diverge names the first event where two traces differ. Which send a
// delivery named (Event.Send, set by the reader of a trace of format 2, not
// by a run) is no difference.
func Diverge(a, b *traces.Log) *Divergence {
	d := &Divergence{Runs: [2]int{len(a.Events), len(b.Events)}}
	var la, lb []byte
	line := func(dst []byte, e traces.Event) []byte {
		e.Send = 0
		return traces.AppendEvent(dst, &e)
	}
	for i := 0; i < max(len(a.Events), len(b.Events)); i++ {
		la, lb = la[:0], lb[:0]
		if i < len(a.Events) {
			la = line(la, a.Events[i])
		}
		if i < len(b.Events) {
			lb = line(lb, b.Events[i])
		}
		if !bytes.Equal(la, lb) {
			d.Seq, d.A, d.B = int64(i+1), string(la), string(lb)
			return d
		}
	}
	d.Equal = true
	return d
}
