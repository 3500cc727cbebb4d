package sim_test

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/sim"
)

// A run mints its ids into a register: each gets a handle, found again
// from the minted string without hashing it, and from a copy by its value.
func ExampleNames() {
	names := sim.NewNames()
	ids := sim.NewIDs(1).MintInto(names)
	session, message := ids.UUID(), ids.UUID()
	copied := strings.Clone(message) // as a Client decodes it from a frame
	fmt.Println(names.Handle(session), names.Handle(message), names.Handle(copied), names.Handle("never minted"))
	fmt.Println(names.Name(2) == message, names.Len())
	// Output:
	// 1 2 2 0
	// true 2
}
