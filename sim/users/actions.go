package users

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Action classes, as the swarm's fault classes (sim/world/classes.go): each
// seed of a swarm or of acpsim check switches whole classes of user actions
// on or off and draws how often its users do each, so an Agent's cancel,
// close and fork paths run by default, some seeds see only one of them and
// some none (a bug a close masks still gets seeds without closes).

// How a cancel is sent (Spec.CancelBy); "" is either, drawn per cancel.
const (
	CancelByRequest = "request" // $/cancel_request for the prompt in flight
	CancelBySession = "session" // session/cancel for the session's work
)

// ActionClass is one class of user actions a seed switches on or off.
type ActionClass struct {
	Name   string
	Action Action
	By     string // for Cancel: how the cancel is sent
	// Impatient: the class is no action of its own but the users' prompt
	// timeout (Actions.Timeout); Action means nothing.
	Impatient bool
	Doc       string
}

// ActionClasses lists the classes in the order their draws are made. Append
// new classes at the end: the draws of the earlier ones then stay the same.
var ActionClasses = []ActionClass{
	{"cancel-request", Cancel, CancelByRequest, false, "$/cancel_request for a prompt in flight"},
	{"session-cancel", Cancel, CancelBySession, false, "session/cancel for a session's work"},
	{"close-resume", Close, "", false, "session/close, then session/resume after the backoff"},
	{"fork", Fork, "", false, "session/fork; the next prompt to it goes to the fork"},
	{"impatient", Submit, "", true, "prompts time out before a round of work ends"},
}

// drawnBeforeCounts is how many classes ActionClasses held when the count
// draws came right after their switches: those switches are drawn before
// the counts, every class appended since after them, so that it shifts no
// draw of an older class.
const drawnBeforeCounts = 4

// ImpatientTimeout is an impatient user's prompt timeout. A round of work
// is 3 chunks 20 ms apart (agent.DefaultKnobs), so a prompt the Agent holds
// behind a running round waits up to 60 ms: at 30 ms its Client sends it
// again while the first attempt is still held, about half the times a
// prompt is held, which is what a cancel naming one of two pending
// attempts needs. An unheld prompt is answered after a store write, well
// within 30 ms in the simulator (and mostly in real mode), so most prompts
// still go out once. The default timeouts (250 ms simulated, 150 ms in
// check) outlast any held prompt.
const ImpatientTimeout = 30 * time.Millisecond

// Actions are how often each Client's user does something besides typing,
// and how a cancel is sent: Spec's and world.Config's fields of the name.
type Actions struct {
	Cancels, Closes, Forks int
	CancelBy               string
	// Timeout, when set, is the users' prompt timeout in place of the
	// run's own (an impatient user's). In a draw's base it is the timeout
	// the impatient class gives (0: the class is absent).
	Timeout time.Duration
}

// DefaultActionBase is what a class draw scales when the user set no
// count: small enough that most prompts are left alone.
var DefaultActionBase = Actions{Cancels: 2, Closes: 1, Forks: 1, Timeout: ImpatientTimeout}

// actionOn is the probability an action class is on in a seed.
const actionOn = 0.5

// actionStream is the seed's stream of action draws: a PCG of its own
// ("actions"), apart from the fault stream, the fault class stream and the
// id stream (from which the scenario is drawn), so that drawing actions
// shifts none of them.
func actionStream(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x616374696f6e73))
}

// count is a's field for act.
func (a *Actions) count(act Action) *int {
	switch act {
	case Cancel:
		return &a.Cancels
	case Close:
		return &a.Closes
	}
	return &a.Forks
}

// ActionDraw is one seed's draw: its users' actions and the classes on.
type ActionDraw struct {
	Actions
	On []string // classes on, in ActionClasses order
}

// present says whether a class can be on at all over base: its action has
// a count, and for a cancel, base.CancelBy allows its way.
func (c ActionClass) present(base Actions) bool {
	if c.Impatient {
		return base.Timeout > 0
	}
	n := *base.count(c.Action)
	return n > 0 && (c.By == "" || base.CancelBy == "" || base.CancelBy == c.By)
}

// DrawActions switches action classes on or off for seed and draws, for
// each action with a class on, how often each user does it: uniform in
// 1 … 2×base. With the impatient class on the users' prompt timeout is
// base.Timeout. A class whose action has base count 0 (or whose cancel way
// base.CancelBy excludes, or impatient without a base timeout) is absent:
// off, and not counted. The same draws are made for every base, so a
// class's draw never depends on the base.
func DrawActions(seed uint64, base Actions) ActionDraw {
	return DrawActionsOn(seed, base, actionOn)
}

// DrawActionsOn is DrawActions with each class on with probability pOn.
// The draws are the same for every pOn, so a class on at a lower pOn is on
// at every higher one: raising it only adds classes to a seed.
func DrawActionsOn(seed uint64, base Actions, pOn float64) ActionDraw {
	rng := actionStream(seed)
	on := make([]bool, len(ActionClasses))
	for i := range drawnBeforeCounts {
		on[i] = rng.Float64() < pOn
	}
	// One draw per action whether or not a class of it is on; the count
	// is uniform in 1 … 2×base, so its mean stays near the base.
	scale := map[Action]float64{}
	for _, act := range []Action{Cancel, Close, Fork} {
		scale[act] = rng.Float64()
	}
	for i := drawnBeforeCounts; i < len(ActionClasses); i++ {
		on[i] = rng.Float64() < pOn
	}
	var d ActionDraw
	var by []string
	for i, c := range ActionClasses {
		if !on[i] || !c.present(base) {
			continue
		}
		d.On = append(d.On, c.Name)
		if c.Impatient {
			d.Timeout = base.Timeout
			continue
		}
		n := *base.count(c.Action)
		*d.count(c.Action) = 1 + int(scale[c.Action]*float64(2*n))
		if c.By != "" {
			by = append(by, c.By)
		}
	}
	if len(by) == 1 { // both ways on: either, drawn per cancel
		d.CancelBy = by[0]
	}
	return d
}

// PresentActionClasses are the classes that can be on over base.
func PresentActionClasses(base Actions) []string {
	var out []string
	for _, c := range ActionClasses {
		if c.present(base) {
			out = append(out, c.Name)
		}
	}
	return out
}

// ActionClassOf finds a class by name.
func ActionClassOf(name string) (ActionClass, bool) {
	for _, c := range ActionClasses {
		if c.Name == name {
			return c, true
		}
	}
	return ActionClass{}, false
}

// CheckCancelBy refuses a way of cancelling that is not one ("" is either).
func CheckCancelBy(by string) error {
	if by == "" || by == CancelByRequest || by == CancelBySession {
		return nil
	}
	return fmt.Errorf("cancel-by %q: expected either, %s or %s", by, CancelByRequest, CancelBySession)
}
