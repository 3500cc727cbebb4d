// Package mutants holds known-bad model Clients, as actors/agent/mutants
// holds known-bad Agents. Each breaks one Client rule of the RFD ("one key
// identifies one submission… the same key on every attempt, including
// after reconnecting or restarting… a new key for a new submission") in a
// way real Clients plausibly would, and the checkers must catch each one
// against the reference Agent.
//
// A Client mutant is a row of client.Policies, data like every policy: the
// booleans it switches on are guarded in one place each in the Client.
// Importing this package adds the rows, so --policy names them; the first
// known-bad row, resend-before-resume, lives in client.Policies itself,
// where the Client's own tests exercise it, and is listed here too.
package mutants

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/client"
)

// rows are the known-bad Clients this package adds. Doc starts with
// "known-bad", Catches is the anomaly the checkers must report.
var rows = []client.Policy{
	{Name: "new-key-per-attempt", Resend: true, Keyed: true, NewKeyPerAttempt: true, Catches: "duplicate",
		Doc: "known-bad: makes a fresh key for every attempt, so the Agent inserts each resend as a new submission"},
	{Name: "reuse-key", Resend: true, Keyed: true, ReuseKey: true, Catches: "wrong-id",
		Doc: "known-bad: a new submission reuses the previous one's key in its session: an Agent that does not compare prompts answers it as a retry, and the input is never inserted"},
	{Name: "gives-up-silently", Resend: true, Keyed: true, Bounded: true, GiveUpSilently: true, Catches: "lost",
		Doc: "known-bad: after MaxAttempts unanswered attempts drops the submission without telling the user"},
	{Name: "new-key-after-restart", Resend: true, Keyed: true, NewKeyAfterRestart: true, Catches: "duplicate",
		Doc: "known-bad: a restarted Client makes new keys for its pending submissions instead of resending the keys it saved"},
}

func init() {
	for _, r := range rows {
		if _, err := client.LookupPolicy(r.Name); err == nil {
			panic(fmt.Sprintf("client mutant %q: a policy of that name exists", r.Name))
		}
		client.Policies = append(client.Policies, r)
	}
}

// Names lists every known-bad Client, in the order of client.Policies.
func Names() []string {
	var out []string
	for _, p := range client.Policies {
		if p.Catches != "" {
			out = append(out, p.Name)
		}
	}
	return out
}

// Catches is the anomaly kind the checkers must report for the named
// known-bad Client ("" for a name that is not one).
func Catches(name string) string {
	p, err := client.LookupPolicy(name)
	if err != nil {
		return ""
	}
	return p.Catches
}

// Doc is the named policy's one-line description.
func Doc(name string) string {
	p, _ := client.LookupPolicy(name)
	return p.Doc
}
