package design

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/proxy"
	"github.com/acpsim/acpsim/sim/world"
)

// Key is one setting a design can make: the `acpsim run` flag of the same
// name, what it sets, and its values.
type Key struct {
	Name string
	// Values says what it takes: "reject|hold|breakpoint", "N ≥ 1", ….
	Values string
	// Default is the reference's value.
	Default string
	// Doc says what it changes (for the Agent's knobs, acpsim help knobs
	// has the long form).
	Doc string
	set func(*world.Config, string) error
}

// Keys are the settings of a design, as data: acpsim knobs prints them.
func Keys() []Key {
	keys := []Key{
		{Name: "agent", Values: "reference, adapter or a known-bad one (acpsim help agents)", Default: agent.Reference,
			Doc: "which model Agent runs the design", set: setAgent},
	}
	def := agent.DefaultKnobs()
	for _, k := range agent.ChoiceKnobs() {
		keys = append(keys, Key{Name: k.Name, Values: strings.Join(k.Values, "|"), Default: k.Default, Doc: "Agent knob", set: setKnob(k.Name)})
	}
	keys = append(keys,
		Key{Name: "retain", Values: "N ≥ 0", Default: strconv.Itoa(def.Retain), Doc: "Agent knob: user messages a session keeps, with their keys (0: all)", set: setKnob("retain")},
		Key{Name: "live-only", Values: `a prompt prefix, e.g. "/"`, Default: def.LiveOnly, Doc: "Agent knob: prompts with this prefix are handled locally, never stored", set: setKnob("live-only")},
		Key{Name: "key-window", Values: "a duration, e.g. 1s", Default: "0s", Doc: "Agent knob: a key stays bound this long after its insertion (0: as long as its message)", set: setKnob("key-window")},
		Key{Name: "nodes", Values: "N ≥ 1", Default: "1", Doc: "Agent nodes sharing one store behind a remote endpoint (more than 1: remote links only)", set: setNodes},
		Key{Name: "sticky", Values: "true|false", Default: "false", Doc: "route a Client back to the node of its last connection while it lives", set: setSticky},
		Key{Name: "proxies", Values: "N ≥ 0", Default: "0", Doc: "proxies between each Client and its Agent", set: setProxies},
		Key{Name: "proxy", Values: proxyModes(), Default: proxy.Honest, Doc: "what the proxies do (with proxies ≥ 1)", set: setProxyMode},
		Key{Name: "links", Values: "links joined by +, e.g. http+ws", Default: "every link", Doc: "where the design runs (not a run flag: a matrix leaves the other links' rows out)"},
	)
	return keys
}

func lookupKey(name string) (Key, bool) {
	for _, k := range Keys() {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

func unknownKey(name string) error {
	var names []string
	for _, k := range Keys() {
		names = append(names, k.Name)
	}
	return fmt.Errorf("unknown setting %q: expected one of %s (acpsim knobs)", name, strings.Join(names, ", "))
}

func setAgent(c *world.Config, v string) error {
	if _, err := agent.Lookup(v); err != nil {
		return err
	}
	c.Agent = v
	return nil
}

func setKnob(name string) func(*world.Config, string) error {
	return func(c *world.Config, v string) error { return c.Knobs.Set(name, v) }
}

func setNodes(c *world.Config, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return errors.New("expected a number of nodes, 1 or more")
	}
	c.Nodes = n
	return nil
}

func setSticky(c *world.Config, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return errors.New("expected true or false")
	}
	c.Sticky = b
	return nil
}

func setProxies(c *world.Config, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return errors.New("expected a number of proxies, 0 or more")
	}
	c.Proxies = n
	return nil
}

func setProxyMode(c *world.Config, v string) error {
	if err := proxy.Check(v); err != nil {
		return err
	}
	c.ProxyMode = v
	return nil
}

func proxyModes() string {
	var names []string
	for _, m := range proxy.Modes {
		names = append(names, m.Name)
	}
	return strings.Join(names, "|")
}
