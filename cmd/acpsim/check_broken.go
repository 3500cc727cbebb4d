// How acpsim check words a seed that stopped the run below the properties
// (check.BrokenAgent): a broken Agent, a broken path under --via, or an
// Agent that speaks ACP v1, which is inconclusive rather than broken.

package main

import (
	"fmt"
	"io"

	"github.com/acpsim/acpsim/netfault/realmode/check"
)

// brokenStatus is the seed line's verdict for b, and whether it is
// inconclusive (a v1 Agent: nothing judged) rather than broken.
func brokenStatus(b *check.BrokenAgent) (status string, inconclusive bool) {
	switch {
	case b.Inconclusive():
		return b.Detail, true // the one line: what showed it, and that nothing was judged
	case b.Path:
		return "BROKEN PATH: " + b.Detail, false
	}
	return "BROKEN AGENT: " + b.Detail, false
}

// brokenStop is the line that says why later seeds were not started.
func brokenStop(b *check.BrokenAgent) string {
	switch {
	case b.Inconclusive():
		return "later seeds would meet the same ACP version"
	case b.Path:
		return "the proxy or the Agent behind it cannot be talked to, so later seeds would say the same"
	}
	return "the Agent cannot be talked to, so later seeds would say the same"
}

// writeBroken is a failing seed's account of b: who broke and how, and the
// end of its stderr. A v1 Agent's seed line said all there is.
func writeBroken(out io.Writer, b *check.BrokenAgent) {
	switch {
	case b.Inconclusive():
		return
	case b.Path:
		fmt.Fprintf(out, "the path (the proxy, %s, or the Agent behind it) is broken: %s\n", b.Process, b.Detail)
	default:
		fmt.Fprintf(out, "the Agent (%s) is broken: %s\n", b.Process, b.Detail)
	}
	writeStderr(out, b.Stderr, b.StderrLines, "the trace's kill event holds all of it")
}
