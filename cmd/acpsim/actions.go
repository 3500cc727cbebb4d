// User action classes on the command line: swarm's and check's --actions,
// the base counts a seed's draw scales, the actions a rerun states and the
// per-class lines of a summary.

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/sim/world"
)

// actionCountFlags are the flags that set how often users act; with
// --actions on they are the base of each seed's draw.
var actionCountFlags = []string{"cancels", "closes", "forks"}

// actionFlags are every flag a seed's drawn actions replace in its rerun.
var actionFlags = append([]string{"actions", "cancel-by"}, actionCountFlags...)

// checkActionBase is check's base: its seeds are few and run in real time,
// so each draws more actions than a swarm's. With swarm's base (2, 1, 1)
// check --seeds 60 caught cancel-keeps-held in 1 seed of 60 (a session/
// cancel must meet a held prompt); with this one in 4 of 60, the reference
// Agent still clean.
var checkActionBase = users.Actions{Cancels: 6, Closes: 2, Forks: 2, Timeout: users.ImpatientTimeout}

// checkActionOn is how often each class is on in a check seed: two seeds
// in three rather than swarm's one in two, as a check runs few seeds and
// some bugs need two classes at once (cancel-spares-other-attempts needs a
// $/cancel_request and impatient users: a quarter of the seeds at one in
// two, almost half at two in three).
const checkActionOn = 2.0 / 3

const actionsDoc = "on: user action classes on/off per seed (base %d, %d, %d; impatient: %v timeouts); off: counts as given"

// registerActions adds --actions to fs, whose default base is b, and says
// on the count flags already in fs that they are its base: only the commands
// that draw actions (swarm, check) have it, run and explore take the counts
// as they are.
func registerActions(fs *pflag.FlagSet, actions *string, b users.Actions) {
	fs.StringVar(actions, "actions", "on", fmt.Sprintf(actionsDoc, b.Cancels, b.Closes, b.Forks, b.Timeout))
	for _, name := range actionCountFlags {
		if f := fs.Lookup(name); f != nil {
			f.Usage += " (--actions on: the base of the draw)"
		}
	}
}

// actionBase is the base of a seed's action draw with --actions on: the
// count flags given explicitly (on the command line or through a twin),
// the defaults for the others. With --actions off it is the flags as given.
func actionBase(fs *pflag.FlagSet, actions string, given, defaults users.Actions) (users.Actions, error) {
	if actions != "on" && actions != "off" {
		return given, fmt.Errorf("--actions %q: expected on or off", actions)
	}
	if actions == "off" {
		return given, nil
	}
	base := defaults
	base.CancelBy = given.CancelBy
	if fs.Changed("timeout") {
		base.Timeout = 0 // the user chose the timeout: no seed is impatient
	}
	for _, f := range []struct {
		name       string
		dst, value *int
	}{{"cancels", &base.Cancels, &given.Cancels}, {"closes", &base.Closes, &given.Closes}, {"forks", &base.Forks, &given.Forks}} {
		if fs.Changed(f.name) {
			*f.dst = *f.value
		}
	}
	return base, nil
}

// cancelByFlag reads --cancel-by ("either" is users' "").
func cancelByFlag(v string) (string, error) {
	if v == "either" {
		return "", nil
	}
	return v, users.CheckCancelBy(v)
}

const cancelByDoc = "how users cancel: request ($/cancel_request), session (session/cancel) or either (drawn each time)"

// actionArgs states a seed's drawn actions as flags, all of them, so that
// a rerun needs nothing of the draw.
func actionArgs(a users.Actions) string {
	s := fmt.Sprintf(" --cancels=%d --closes=%d --forks=%d", a.Cancels, a.Closes, a.Forks)
	if a.CancelBy != "" {
		s += " --cancel-by=" + a.CancelBy
	}
	if a.Timeout > 0 {
		s += " --timeout=" + a.Timeout.String()
	}
	return s
}

// actionsOn names a seed's action classes for its line in a summary.
func actionsOn(drawn bool, on []string) string {
	if !drawn {
		return ""
	}
	if len(on) == 0 {
		return " (actions on: none)"
	}
	return " (actions on: " + strings.Join(on, ", ") + ")"
}

// writeActionClasses prints, per user action class, how many seeds had it
// on and how many of those failed.
func writeActionClasses(out io.Writer, classes []actionClassTotal) {
	if classes == nil {
		return
	}
	fmt.Fprintln(out, "user actions (each seed switches a class on or off and draws how often each user does it):")
	fmt.Fprintf(out, "  %-15s %-53s %6s %7s\n", "class", "what the user does", "on", "failed")
	for _, c := range classes {
		ac, _ := users.ActionClassOf(c.class)
		fmt.Fprintf(out, "  %-15s %-53s %6d %7d\n", c.class, ac.Doc, c.on, c.failed)
	}
}

// actionClassTotal is one action class's line in a summary.
type actionClassTotal struct {
	class      string
	on, failed int
}

// actionTotals are a swarm's action class totals as summary lines.
func actionTotals(ts []world.ClassTotal) []actionClassTotal {
	if ts == nil {
		return nil
	}
	out := make([]actionClassTotal, 0, len(ts))
	for _, t := range ts {
		out = append(out, actionClassTotal{t.Class, t.On, t.Failed})
	}
	return out
}
