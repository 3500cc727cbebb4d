package matrix_test

import (
	"fmt"

	"github.com/acpsim/acpsim/sim/matrix"
	"github.com/acpsim/acpsim/sim/world"
)

// Three policies against the reference Agent over stdio, 20 seeds each: the
// Client that never resends loses messages, the one that resends without a
// key duplicates them, and the RFD's keyed Client does neither. Each failing
// cell's counterexample is its smallest failing seed (fewest faults), shrunk.
func ExampleRun() {
	ref, _ := matrix.LookupDesign("reference")
	rep, err := matrix.Run(matrix.Config{
		Base:     world.DefaultConfig(),
		Policies: []string{"none", "naive", "keyed"},
		Designs:  []matrix.Design{ref},
		Links:    []string{world.LinkStdio},
		Seeds:    20, FirstSeed: 1, Jobs: 2, Shrink: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range rep.Rows {
		fmt.Printf("%-6s duplicate %-4s lost %-4s any %s\n", row.Policy,
			matrix.Percent(row.Failing["duplicate"], row.Seeds), matrix.Percent(row.Failing["lost"], row.Seeds),
			matrix.Percent(row.Failed, row.Seeds))
		for _, ce := range row.Counterexamples {
			fmt.Printf("  %s: %s, shrunk to %d fault(s), %d prompt(s)\n", ce.Kind, ce.Run, ce.Size.Faults, ce.Size.Prompts)
		}
	}
	// Output:
	// none   duplicate ·    lost 50%  any 50%
	//   lost: acpsim run --seed 13 --link=stdio --policy=none, shrunk to 2 fault(s), 5 prompt(s)
	// naive  duplicate 80%  lost ·    any 80%
	//   duplicate: acpsim run --seed 1 --link=stdio --policy=naive, shrunk to 1 fault(s), 1 prompt(s)
	// keyed  duplicate ·    lost ·    any ·
}
