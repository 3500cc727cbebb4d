// The users' part of a run: the scenario drawn from the id stream and put
// on the loop, each submission and action handed to its Client.

package world

import (
	"github.com/acpsim/acpsim/actors/acp"
	"time"

	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// Scenario is the users' part of cfg.
func (cfg *Config) Scenario() users.Spec {
	return users.Spec{Clients: cfg.Clients, Prompts: cfg.Prompts, Sessions: cfg.Sessions,
		Forks: cfg.Forks, Cancels: cfg.Cancels, Closes: cfg.Closes, CancelBy: cfg.CancelBy, MaxGap: cfg.MaxGap,
		DistinctTexts: cfg.Protocol() == acp.ProtocolV1}
}

// userActions are what a user does besides typing prompts, as data: what
// the Client does for each.
var userActions = map[users.Action]func(c *client.Client, sess int, alt bool) []client.Output{
	users.Cancel: func(c *client.Client, sess int, alt bool) []client.Output { return c.Cancel(sess, alt) },
	users.Close:  func(c *client.Client, sess int, _ bool) []client.Output { return c.Close(sess) },
	users.Fork:   func(c *client.Client, sess int, _ bool) []client.Output { return c.Fork(sess) },
}

// schedule draws every Client's submissions and actions (the users) from the
// id stream, puts them on the loop and returns the time of the last
// submission.
func (w *world) schedule() time.Duration {
	evs := users.Draw(w.ids, w.cfg.Scenario())
	for _, e := range evs {
		if users.Skipped(e, w.cfg.Skip) {
			continue
		}
		cn := w.clients[e.Client]
		if e.Action != users.Submit {
			do := userActions[e.Action]
			w.loop.AtAhead(e.At, func() {
				if cn.c != nil { // a Client that is restarting misses it: so would its user
					w.applyClient(cn, do(cn.c, e.Sess, e.Alt))
				}
			})
			continue
		}
		// The text is minted where the user types it: the Client sends the
		// register's string, the Agent echoes it, and the checker finds its
		// handle from where its bytes lie (sim.Names).
		e.Text = w.names.MintString(e.Text)
		var submit func()
		submit = func() {
			if cn.c == nil {
				cn.waiting = append(cn.waiting, submit)
				return
			}
			w.Record(traces.Event{Kind: traces.KindSubmit, Client: cn.name, Sub: e.Sub, Text: e.Text})
			w.applyClient(cn, cn.c.Submit(e.Sub, e.Text, e.Sess))
		}
		w.loop.AtAhead(e.At, submit)
	}
	return users.Last(evs)
}
