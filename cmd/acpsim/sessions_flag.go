package main

import (
	"fmt"
	"strconv"

	"github.com/acpsim/acpsim/traces"
)

// sessionContractDoc explains --session-contract (run, swarm, check, judge).
const sessionContractDoc = "session contract the checker holds the Agent to: durable (sessions must survive restarts: one that vanishes is session-lost), " +
	"process (a session ends with the process that created it: its messages are judged up to that end and its disappearance is not lost) " +
	"or auto (durable if the run shows a session surviving a restart, process if none does)"

// sessionsFlag is --sessions, the number of sessions per Client. It is an
// int, but a contract word given to it points to --session-contract: the
// two names are close enough to be confused.
type sessionsFlag struct{ n *int }

func newSessionsFlag(n *int, def int) *sessionsFlag {
	*n = def
	return &sessionsFlag{n}
}

func (f *sessionsFlag) String() string { return strconv.Itoa(*f.n) }
func (f *sessionsFlag) Type() string   { return "int" }

func (f *sessionsFlag) Set(v string) error {
	if traces.CheckSessionContract(v) == nil && v != "" {
		return fmt.Errorf("--sessions is the number of sessions per Client; for the session contract use --session-contract %s", v)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("expected a number of sessions per Client")
	}
	*f.n = n
	return nil
}
