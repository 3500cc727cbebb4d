package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/traces"
)

// sessionContractDoc explains --session-contract (run, swarm, check, judge).
const sessionContractDoc = "durable (sessions survive restarts), process (a session ends with its process) or auto"

// sessionFlags are --sessions, the number of sessions per Client, and
// --session-contract. --sessions also takes a contract word (durable,
// process, auto): the issue that asked for the contract named it so, and
// the value tells which is meant. A word given to --sessions sets
// --session-contract (so rerun commands carry it); given both, they must
// agree.
type sessionFlags struct {
	n        *int    // nil: the command has no model Clients, --sessions takes only a word
	contract *string // holds its default until a flag sets it
	word     string  // the contract word --sessions was given
	asked    string  // the word --session-contract was given
	fs       *pflag.FlagSet
}

// registerCount registers --sessions N|WORD.
func (s *sessionFlags) registerCount(fs *pflag.FlagSet, def int) {
	*s.n, s.fs = def, fs
	fs.Var(sessionsValue{s}, "sessions", "sessions per Client; a contract word (durable, process, auto) is --session-contract's")
}

// registerWordsOnly registers --sessions WORD as a hidden twin of
// --session-contract, for a command without model Clients.
func (s *sessionFlags) registerWordsOnly(fs *pflag.FlagSet) {
	s.fs = fs
	fs.Var(sessionsValue{s}, "sessions", "the session contract (as --session-contract)")
	_ = fs.MarkHidden("sessions")
}

func (s *sessionFlags) registerContract(fs *pflag.FlagSet, doc string) {
	fs.Var(contractValue{s}, "session-contract", doc)
}

func (s *sessionFlags) disagree(sessions, contract string) error {
	return fmt.Errorf("--sessions %s and --session-contract %s name two session contracts: give one", sessions, contract)
}

type sessionsValue struct{ s *sessionFlags }

func (v sessionsValue) String() string {
	if v.s.n == nil {
		return ""
	}
	return strconv.Itoa(*v.s.n)
}

func (v sessionsValue) Type() string { return "int" }

func (v sessionsValue) Set(word string) error {
	if word != "" && traces.CheckSessionContract(word) == nil {
		if v.s.asked != "" && v.s.asked != word {
			return v.s.disagree(word, v.s.asked)
		}
		v.s.word = word
		return v.s.fs.Set("session-contract", word)
	}
	if v.s.n == nil {
		return fmt.Errorf("expected a session contract: durable, process or auto")
	}
	n, err := strconv.Atoi(word)
	if err != nil {
		return fmt.Errorf("expected a number of sessions per Client, or a session contract (durable, process, auto)")
	}
	*v.s.n = n
	return nil
}

type contractValue struct{ s *sessionFlags }

func (v contractValue) String() string { return *v.s.contract }
func (v contractValue) Type() string   { return "string" }

func (v contractValue) Set(word string) error {
	if err := traces.CheckSessionContract(word); err != nil {
		return err
	}
	if v.s.word != "" && v.s.word != word {
		return v.s.disagree(v.s.word, word)
	}
	v.s.asked, *v.s.contract = word, word
	return nil
}
