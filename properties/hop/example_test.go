package hop_test

import (
	"fmt"

	"github.com/acpsim/acpsim/properties/hop"
)

// A proxy renumbers the Client's requests 0 and 1 as 1 and 2, and forwards
// the Client's cancel of its request 1 without mapping the id: on the
// Agent's hop it names the proxy's 1, the Client's other prompt.
func ExamplePair() {
	p := newPath()
	p.toAgent(prompt(`0`, "fix the test", "k-0"), prompt(`1`, "fix the test", "k-0"))
	p.toAgent(prompt(`1`, "undo that", "k-1"), prompt(`2`, "undo that", "k-1"))
	p.toAgent(cancel(`1`), cancel(`1`))
	pairing := hop.Pair(p.outer, p.inner)
	fmt.Printf("%d of %d frames on the Agent's hop paired\n", pairing.Paired, pairing.Frames)
	for _, f := range pairing.Findings {
		fmt.Printf("%s: %s\n", f.Kind, f.Text)
	}
	// Output:
	// 3 of 3 frames on the Agent's hop paired
	// unmapped-cancel: the Client cancelled its request 1 (session/prompt) with $/cancel_request; the proxy forwarded that cancel to a1#1 naming request 1, while it had forwarded request 1 as 2: 1 is its id for the Client's request 0 (session/prompt), so the cancel lands on that one
}
