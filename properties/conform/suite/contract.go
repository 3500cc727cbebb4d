// The session contract: an Agent may keep sessions only in its process's
// memory (the ACP v2 notes, T3b), and then the cases that resume a session
// after a restart do not apply; an Agent that stores sessions must keep
// every one of them.

package suite

import (
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/traces"
)

// SessionFate is what a case showed of a session across an Agent restart
// or a new connection.
type SessionFate uint8

// The fates, in the order a case's verdict keeps the strongest.
const (
	// Unseen: the case did not look.
	Unseen SessionFate = iota
	// Survived: a session was resumed after its Agent process was killed
	// and started again.
	Survived
	// Vanished: a resume after a restart or on a new connection was
	// answered -32002 (the Agent does not have the session), and the case
	// was taken not to apply.
	Vanished
)

// The sentence a session found gone breaks under the durable contract.
const (
	durableSource = "RFD, How long a key lasts"
	durableQuote  = "For a prompt whose inserted message the Agent retains, the Agent MUST recognize the key for as long as it retains the message. This holds across connections and Agent restarts."
)

// Contract is the session contract a run of the suite was judged under.
type Contract struct {
	// Sessions is traces.SessionsDurable or traces.SessionsProcess, what
	// auto was decided to be included.
	Sessions string
	// Why says how it was decided, naming the cases that showed it.
	Why string
}

// HoldTo judges the verdicts of one run of the suite under a session
// contract: durable, process or auto ("" is auto). Under durable a case
// that found its session gone fails (the RFD: a key is recognised "across
// connections and Agent restarts" while its message is retained); under
// process it does not apply. Auto is durable when some case resumed a
// session after a restart (the Agent stores sessions, so it must keep
// them all), process when none did. The verdicts are returned changed;
// vs is not.
func HoldTo(vs []Verdict, contract string) ([]Verdict, Contract) {
	var survived, vanished []string
	for _, v := range vs {
		switch v.Sessions {
		case Survived:
			survived = append(survived, v.Case.ID)
		case Vanished:
			vanished = append(vanished, v.Case.ID)
		}
	}
	c := Contract{Sessions: contract}
	switch contract {
	case traces.SessionsDurable, traces.SessionsProcess:
		c.Why = "as asked by --session-contract " + contract
	default:
		if len(survived) > 0 {
			c.Sessions = traces.SessionsDurable
			c.Why = fmt.Sprintf("auto: a session survived an Agent restart in %s, so the Agent stores sessions and must keep each one", strings.Join(survived, ", "))
		} else {
			c.Sessions = traces.SessionsProcess
			c.Why = "auto: no case resumed a session after an Agent restart"
			if len(vanished) > 0 {
				c.Why = fmt.Sprintf("auto: no session survived an Agent restart (gone in %s), so sessions live with their process", strings.Join(vanished, ", "))
			}
		}
	}
	out := append([]Verdict(nil), vs...)
	if c.Sessions != traces.SessionsDurable {
		return out, c
	}
	for i, v := range out {
		if v.Status == NA && v.Sessions == Vanished {
			out[i].Status = Fail
			out[i].Why = fmt.Sprintf("%s; the session contract is durable (%s), so the Agent must still have the session", v.vanished, c.Why)
			out[i].Source, out[i].Quote = durableSource, durableQuote
		}
	}
	return out, c
}
