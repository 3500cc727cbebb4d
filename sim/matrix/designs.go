package matrix

import (
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/world"
)

// Design is one Agent design a matrix runs every policy against, as data
// (package design): its settings are the `acpsim run` flags that make it, so
// a cell's rerun command reproduces its seeds.
type Design = design.Design

// Designs are the built-in designs, in table order (design.Builtin).
var Designs = design.Builtin

// Links are the links a matrix runs by default, in table order.
var Links = []string{world.LinkStdio, world.LinkHTTP, world.LinkWS}

// Policies are the Client policies a matrix runs by default: every policy of
// client.Policies except the known-bad ones (those with Catches set), which
// are `acpsim mutants`'s business.
func Policies() []string {
	var out []string
	for _, p := range client.Policies {
		if p.Catches == "" && !p.Alternative {
			out = append(out, p.Name)
		}
	}
	return out
}

// LookupDesign returns the design of Designs with that name.
func LookupDesign(name string) (Design, bool) { return design.Lookup(name, Designs) }
