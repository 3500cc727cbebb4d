package simtest_test

import (
	"fmt"
	"os"

	"github.com/acpsim/acpsim/sim/simtest"
)

// In a test, pass t: simtest.Check(t, simtest.Options{…}). Here a recorder
// stands for it. The design is a built-in (busy-reject) with the Clients of
// the RFD; Agent would be your own agent.Factory.
func ExampleCheck() {
	os.Unsetenv(simtest.ReplayEnv)
	t := &recorder{name: "TestBusyReject"}
	simtest.Check(t, simtest.Options{Design: "busy-reject", Seeds: 5, Links: []string{"stdio", "ws"}})
	fmt.Println(t.failed == "")
	fmt.Println(t.logs[0])
	// Output:
	// true
	// simtest: TestBusyReject: 5 seeds on each of stdio, ws: every submission inserted at most once and never silently lost
}
