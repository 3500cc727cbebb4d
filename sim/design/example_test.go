package design_test

import (
	"fmt"

	"github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/world"
)

// A design and a parameterised policy, as a matrix row or an acpsim run
// takes them, and the run flags that reproduce them.
func ExampleParse() {
	d, err := design.Parse("forgetful=keys:memory,nodes:3", nil)
	if err != nil {
		panic(err)
	}
	p, err := design.ParsePolicy("bounded:attempts=6")
	if err != nil {
		panic(err)
	}
	cfg := world.DefaultConfig()
	if err := p.Apply(&cfg); err != nil {
		panic(err)
	}
	if err := d.Apply(&cfg); err != nil {
		panic(err)
	}
	fmt.Println(d.Name, "runs on", d.Links)
	fmt.Println(p.Flags(), d.Flags())
	fmt.Println(cfg.Policy, cfg.MaxAttempts, cfg.Knobs.Keys, cfg.Nodes)
	// Output:
	// forgetful runs on [http ws]
	// [--policy=bounded --max-attempts=6] [--keys=memory --nodes=3]
	// bounded 6 memory 3
}
