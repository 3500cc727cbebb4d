// check's protocol version: v2 unless the Agent answers initialize in v1,
// then the whole run again in v1 (auto), or as pinned by --protocol.

package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault/realmode/check"
	"github.com/acpsim/acpsim/sim/users"
)

// checkV1Policy is the model Clients' policy against a v1 Agent: a prompt
// is never resent (v1 has no key to make a resend safe), and one whose
// answer does not come is told to the user as unknown. A duplicate is then
// the Agent's doing, never the Clients'.
const checkV1Policy = "classes-only"

// checkProtocol sets cfg.Protocol from --protocol (auto: 0) and, for v1,
// the Clients' policy.
func checkProtocol(fs *pflag.FlagSet, protocol string, cfg *check.Config) error {
	switch protocol {
	case "auto":
		cfg.Protocol = 0
		return nil
	case "2":
		cfg.Protocol = acp.ProtocolVersion
		return nil
	case "1":
		cfg.Protocol = acp.ProtocolV1
		return useV1Policy(fs, cfg)
	}
	return fmt.Errorf("--protocol %q: expected auto, 1 or 2", protocol)
}

// useV1Policy gives v1 Clients checkV1Policy, or refuses a policy given
// that needs a key.
func useV1Policy(fs *pflag.FlagSet, cfg *check.Config) error {
	if !fs.Changed("policy") {
		cfg.Policy = checkV1Policy
		return nil
	}
	if p, err := client.LookupPolicy(cfg.Policy); err == nil && p.Keyed {
		return fmt.Errorf("--policy %s with ACP v1: v1 has no idempotencyKey; expected none, naive, lookup or classes-only (the default under v1: %s)", cfg.Policy, checkV1Policy)
	}
	return nil
}

// v1Rerun reports whether a seed's result asks for the run again in v1:
// under auto, the Agent answered initialize in v1.
func v1Rerun(cfg check.Config, res *check.Result) bool {
	return cfg.Protocol == 0 && res != nil && res.Broken != nil && res.Broken.Kind == check.BrokenSpeaksV1
}

// v1Actions is the action classes' base for the run's protocol: v1 has no
// session/fork, and its Clients never resend, so an impatient user
// exercises nothing.
func v1Actions(cfg check.Config, draw *users.Actions) *users.Actions {
	if draw == nil || cfg.Protocol != acp.ProtocolV1 {
		return draw
	}
	d := *draw
	d.Forks, d.Timeout = 0, 0
	return &d
}
