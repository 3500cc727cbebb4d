package design

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/sim/world"
)

// Policy is a built-in retry policy (client.Policies) with parameters.
type Policy struct {
	// Spec is the policy as given, "bounded:attempts=6": a matrix row's
	// label.
	Spec string
	// Name is the built-in policy.
	Name   string
	Params []Setting
}

// Param is one parameter of a policy: the `acpsim run` flag it is, and
// which policies have it.
type Param struct {
	Name, Flag, Doc string
	Default         string
	// For names the policies it applies to ("" every resending one).
	For string
	// applies says whether a policy has it.
	applies func(client.Policy) bool
	set     func(*world.Config, string) error
}

// Params are the parameters a policy takes, as data: acpsim knobs prints
// them.
func Params() []Param {
	def := world.DefaultConfig()
	resends := func(p client.Policy) bool { return p.Resend }
	return []Param{
		{Name: "attempts", Flag: "max-attempts", Default: strconv.Itoa(def.MaxAttempts), For: "bounded",
			Doc:     "attempts whose responses did not come before the Client stops and tells the user the outcome is unknown",
			applies: func(p client.Policy) bool { return p.Bounded }, set: setInt(func(c *world.Config, n int) { c.MaxAttempts = n }, 1)},
		{Name: "age", Flag: "stale-after", Default: def.StaleAfter.String(), For: "stale",
			Doc:     "how long after the user submitted it a prompt is resent; later it is shown to the user (outcome unknown)",
			applies: func(p client.Policy) bool { return p.ShowStale }, set: setDuration(func(c *world.Config, d time.Duration) { c.StaleAfter = d })},
		{Name: "timeout", Flag: "timeout", Default: def.Timeout.String(), For: "every policy",
			Doc:     "how long the Client waits for a prompt's response (virtual time) before it counts the attempt unanswered",
			applies: func(client.Policy) bool { return true }, set: setDuration(func(c *world.Config, d time.Duration) { c.Timeout = d })},
		{Name: "backoff", Flag: "backoff", Default: def.Backoff.String(),
			For: "every resending one", Doc: "the wait before the Client reconnects or retries a transient error",
			applies: resends, set: setDuration(func(c *world.Config, d time.Duration) { c.Backoff = d })},
		{Name: "window", Flag: "window", Default: strconv.Itoa(client.DefaultWindow), For: "every policy",
			Doc:     "how many of a session's oldest pending prompts the Client sends at once; the others wait in the Client",
			applies: func(client.Policy) bool { return true }, set: setInt(func(c *world.Config, n int) { c.Window = n }, 1)},
		{Name: "fresh-connection", Flag: "fresh-connection", Default: "false", For: "every resending one",
			Doc:     "ws: after a prompt times out the Client opens a new connection, leaving the old one open",
			applies: resends, set: func(c *world.Config, v string) error {
				b, err := strconv.ParseBool(v)
				if err != nil {
					return errors.New("expected true or false")
				}
				c.FreshConnection = b
				return nil
			}},
	}
}

func setInt(set func(*world.Config, int), least int) func(*world.Config, string) error {
	return func(c *world.Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < least {
			return fmt.Errorf("expected a whole number, %d or more", least)
		}
		set(c, n)
		return nil
	}
}

func setDuration(set func(*world.Config, time.Duration)) func(*world.Config, string) error {
	return func(c *world.Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return errors.New("expected a positive duration such as 50ms or 2s")
		}
		set(c, d)
		return nil
	}
}

// ParsePolicy reads a policy: a built-in name, with parameters after it,
// each :NAME=VALUE ("bounded:attempts=6:backoff=50ms").
func ParsePolicy(spec string) (Policy, error) {
	parts := strings.Split(strings.TrimSpace(spec), ":")
	p := Policy{Spec: strings.TrimSpace(spec), Name: strings.TrimSpace(parts[0])}
	base, err := client.LookupPolicy(p.Name)
	if err != nil {
		return Policy{}, err
	}
	for _, part := range parts[1:] {
		name, value, ok := strings.Cut(part, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			return Policy{}, fmt.Errorf("policy %s: parameter %q: expected NAME=VALUE, e.g. %s:attempts=6", spec, part, p.Name)
		}
		param, found := lookupParam(name)
		if !found {
			return Policy{}, fmt.Errorf("policy %s: unknown parameter %q: expected one of %s (acpsim knobs)", spec, name, paramNames())
		}
		if !param.applies(base) {
			return Policy{}, fmt.Errorf("policy %s: %s is a parameter of %s only", spec, name, param.For)
		}
		p.Params = append(p.Params, Setting{name, value})
	}
	cfg := world.DefaultConfig()
	if err := p.Apply(&cfg); err != nil {
		return Policy{}, err
	}
	return p, nil
}

// Apply sets the policy and its parameters on a run's configuration.
func (p Policy) Apply(c *world.Config) error {
	c.Policy = p.Name
	for _, s := range p.Params {
		param, _ := lookupParam(s.Key)
		if err := param.set(c, s.Value); err != nil {
			return fmt.Errorf("policy %s: %s=%s: %v", p.Spec, s.Key, s.Value, err)
		}
	}
	return nil
}

// Flags are the `acpsim run` flags of the policy, e.g. --policy=bounded
// --max-attempts=6.
func (p Policy) Flags() []string {
	out := []string{"--policy=" + p.Name}
	for _, s := range p.Params {
		param, _ := lookupParam(s.Key)
		out = append(out, "--"+param.Flag+"="+s.Value)
	}
	return out
}

func lookupParam(name string) (Param, bool) {
	for _, p := range Params() {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

func paramNames() string {
	var names []string
	for _, p := range Params() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}
