package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// contractTally sums the session contract over a check's seeds, for its
// summary line: which contract the seeds were judged by, and why.
type contractTally struct {
	requested                             string
	seeds                                 map[string]int // chosen contract → seeds
	sessions, survived, vanished, restart int
	vanishedAlive                         int
}

func (t *contractTally) add(sc properties.SessionContract) {
	if t.seeds == nil {
		t.seeds = map[string]int{}
	}
	t.requested = sc.Requested
	t.seeds[sc.Chosen]++
	t.sessions += sc.Sessions
	t.survived += sc.Survived
	t.vanished += sc.Vanished
	t.vanishedAlive += sc.VanishedAlive
	t.restart += sc.Restarts
}

// write prints the summary's contract line, e.g. "session contract: auto →
// process in 3 seed(s): of 12 sessions 0 survived a restart and 12 vanished
// after one (9 restarts): sessions live with their process".
func (t *contractTally) write(out io.Writer) {
	if len(t.seeds) == 0 {
		return
	}
	var chosen []string
	for _, c := range []string{traces.SessionsProcess, traces.SessionsDurable} {
		if n := t.seeds[c]; n > 0 {
			chosen = append(chosen, fmt.Sprintf("%s in %d seed(s)", c, n))
		}
	}
	head := strings.Join(chosen, ", ")
	if t.requested == traces.SessionsAuto {
		head = "auto → " + head
	}
	what := "sessions live with their process"
	switch {
	case t.seeds[traces.SessionsProcess] > 0 && t.seeds[traces.SessionsDurable] > 0:
		what = "some seeds show sessions surviving a restart and some do not"
	case t.seeds[traces.SessionsDurable] > 0:
		what = "sessions outlive their process"
	}
	if t.requested != traces.SessionsAuto {
		what = "as asked"
	}
	// A session can survive one restart and vanish after a later one, so
	// the two counts may add up to more than the sessions.
	alive := ""
	if t.vanishedAlive > 0 {
		alive = fmt.Sprintf("; %d vanished while the process that had it lived, which no contract explains (session-lost)", t.vanishedAlive)
	}
	fmt.Fprintf(out, "session contract: %s: of %d sessions %d survived a restart and %d vanished after one (%d %s): %s%s\n",
		head, t.sessions, t.survived, t.vanished, t.restart, plural(t.restart, "restart"), what, alive)
}
