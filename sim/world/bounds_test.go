package world

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/traces"
)

// Every number that sizes a run's memory or time is refused past its limit
// before anything is allocated, and accepted at it.
func TestBoundsRefuseWhatWouldNotFitAndAcceptTheLimit(t *testing.T) {
	for _, b := range bounds {
		t.Run(b.name, func(t *testing.T) {
			for _, tc := range []struct {
				value int
				want  string // "" accepted
			}{
				{b.max, ""},
				{b.max + 1, " is more than the limit"},
				{math.MaxInt, " is more than the limit"},
				{b.min - 1, ": expected " + b.atLeast},
				{math.MinInt, ": expected " + b.atLeast},
			} {
				cfg := DefaultConfig()
				cfg.Link = LinkHTTP // nodes need a remote link
				set(t, &cfg, b.name, tc.value)
				err := cfg.checkBounds(true)
				var be *BoundError
				switch {
				case tc.want == "" && err != nil && !isTotal(err):
					t.Errorf("%s %d: %v, want accepted", b.name, tc.value, err)
				case tc.want == "":
				case !errors.As(err, &be) || len(be.Settings) != 1 || be.Settings[0] != (Setting{b.name, tc.value}):
					t.Errorf("%s %d: %v, want it refused by name", b.name, tc.value, err)
				case !strings.HasPrefix(err.Error(), b.name+" ") || !strings.Contains(err.Error(), tc.want):
					t.Errorf("%s %d: %q, want %q", b.name, tc.value, err, tc.want)
				}
			}
		})
	}
}

// isTotal says err is about what the Clients add up to, which a number at
// its own limit may exceed with the defaults of the others.
func isTotal(err error) bool {
	var be *BoundError
	return errors.As(err, &be) && len(be.Settings) > 1
}

func set(t *testing.T, c *Config, name string, v int) {
	t.Helper()
	ptr := map[string]*int{"clients": &c.Clients, "sessions": &c.Sessions, "prompts": &c.Prompts, "cancels": &c.Cancels,
		"closes": &c.Closes, "forks": &c.Forks, "nodes": &c.Nodes, "proxies": &c.Proxies}[name]
	if ptr == nil {
		t.Fatalf("no field for bound %q", name)
	}
	*ptr = v
}

func TestBoundsAddUpOverAllClients(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		clients, sessions, prompt int
		cancels                   int
		want                      string
	}{
		{"at the limit", 1000, 2, 98, 0, ""},
		{"prompts over", 500, 2, 300, 0, "clients 500 × prompts 300 = 150000 users' events is more than the limit 100000"},
		{"prompts and cancels over", 50, 2, 1000, 1001, "clients 50 × (prompts 1000 + cancels 1001) = 100050 users' events"},
		{"sessions over", 1000, 101, 10, 0, "clients 1000 × sessions 101 = 101000 sessions is more than the limit 100000"},
	} {
		cfg := DefaultConfig()
		cfg.Clients, cfg.Sessions, cfg.Prompts, cfg.Cancels = tc.clients, tc.sessions, tc.prompt, tc.cancels
		err := cfg.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Every header the simulator writes passes the checks a reader holds it to,
// and each of its recorded faults passes the fault table.
func TestTheSimulatorsHeadersPassCheckHeader(t *testing.T) {
	for _, set := range []func(*Config){
		func(*Config) {},
		func(c *Config) { c.Link, c.Nodes, c.Sticky = LinkHTTP, 3, true },
		func(c *Config) { c.UseAgent("adapter") },
		func(c *Config) { c.UseAgent("memory-keys") },
		func(c *Config) { c.Cancels, c.Closes, c.Forks, c.CancelBy = 2, 1, 1, "session" },
		func(c *Config) {
			c.Knobs.Busy, c.Knobs.Retain, c.Knobs.SessionsIn, c.Link = "reject", 2, "memory", LinkWS
		},
	} {
		cfg := DefaultConfig()
		cfg.Prompts = 3
		set(&cfg)
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		checks := TraceChecks(func(*traces.Header) []netfault.Fault { return netfault.Faults })
		if err := checks.Header(&res.Log.Header); err != nil {
			t.Errorf("%+v: %v", res.Log.Header, err)
		}
		for i := range res.Log.Events {
			if err := checks.Event(&res.Log.Events[i]); err != nil {
				t.Errorf("%s: event %d: %v", res.Log.Header.Command, i+1, err)
			}
		}
	}
}
