package users

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/acpsim/acpsim/sim"
)

// drawTextsByScan is how Draw picked texts before typedTexts: a scan of
// every earlier text. The seeds' scenarios must not change with it.
func drawTextsByScan(ids *sim.IDs, s Spec) []string {
	var out, mine []string
	for range s.Prompts {
		ids.IntN(int(s.MaxGap/time.Millisecond) + 1)
		text := Texts[ids.IntN(len(Texts))]
		if len(mine) > 0 && ids.IntN(5) == 0 {
			text = mine[ids.IntN(len(mine))]
		} else {
			for n := 2; slices.Contains(mine, text); n++ {
				text = fmt.Sprintf("%s (%d)", Texts[ids.IntN(len(Texts))], n)
			}
		}
		mine = append(mine, text)
		out = append(out, text)
		ids.IntN(s.Sessions)
	}
	return out
}

func TestDrawTypesTheTextsTheScanDid(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		s := Spec{Clients: 1, Prompts: 1500, Sessions: 2, MaxGap: 120 * time.Millisecond}
		want := drawTextsByScan(sim.NewIDs(seed), s)
		got := Draw(sim.NewIDs(seed), s)
		for i, e := range got {
			if e.Text != want[i] {
				t.Fatalf("seed %d, submission %d: text %q, the scan drew %q", seed, i+1, e.Text, want[i])
			}
		}
	}
}

func TestDrawStaysFastWithManyPrompts(t *testing.T) {
	start := time.Now()
	Draw(sim.NewIDs(1), Spec{Clients: 1, Prompts: 20000, Sessions: 2, MaxGap: 120 * time.Millisecond})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("20,000 prompts drawn in %v: expected well under a second", d)
	}
}
