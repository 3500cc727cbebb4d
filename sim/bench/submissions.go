// A Client's submissions: the kind drawn for each (inserted, lost
// response, lost request, rejected, unknown, planted duplicate) and the
// prompt attempts, frames and outcomes each kind writes.

package bench

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
)

// refill writes the Client's next submission into its buffer; false when it
// has none left.
func (c *client) refill() bool {
	c.buf, c.head = c.buf[:0], 0
	if c.done == len(c.subs) {
		return false
	}
	sub := c.subs[c.done]
	c.done++
	c.submission(sub)
	return true
}

// kinds of submission
const (
	kindOK = iota
	kindLostResponse
	kindLostRequest
	kindReject
	kindUnknownInserted
	kindUnknownLost
	kindDuplicate
)

func (g *gen) kind(sub int) int {
	for _, p := range g.h.Planted {
		if p == sub {
			g.rng.Float64() // keep the draws of the others in place
			return kindDuplicate
		}
	}
	u := g.rng.Float64()
	cfg := g.cfg
	switch {
	case u < cfg.Unknown/2:
		return kindUnknownInserted
	case u < cfg.Unknown:
		return kindUnknownLost
	case u < cfg.Unknown+cfg.LostResponse:
		return kindLostResponse
	case u < cfg.Unknown+cfg.LostResponse+cfg.LostRequest:
		return kindLostRequest
	case u < cfg.Unknown+cfg.LostResponse+cfg.LostRequest+cfg.Reject:
		return kindReject
	}
	return kindOK
}

type pending struct {
	sub           int
	session, text string
	key           string
}

func (c *client) submission(sub int) {
	g := c.g
	c.t += 1 + int64(g.rng.IntN(maxGap))
	p := pending{sub: sub, session: c.sessions[g.rng.IntN(len(c.sessions))], key: g.uuid()}
	// Minted where the user types it, as the simulator's are: the Client
	// sends the register's string and the Agent echoes it.
	p.text = g.h.Names.MintString(fmt.Sprintf("%s #%d", users.Texts[g.rng.IntN(12)], sub+1))
	g.h.Texts[sub] = p.text
	kind := g.kind(sub)
	if c.link == "" {
		c.connect()
	}
	c.add(traces.Event{T: c.t, Kind: traces.KindSubmit, Client: c.name, Sub: subName(sub), Text: p.text})
	switch kind {
	case kindOK:
		c.t = c.insertNew(p, c.t)
	case kindReject:
		c.t = c.reject(p, c.t)
		c.t = c.insertNew(p, c.t)
	case kindLostResponse, kindDuplicate, kindUnknownInserted:
		msg, t := c.insertCut(p, c.t)
		if kind == kindUnknownInserted {
			c.add(traces.Event{T: t, Kind: traces.KindOutcome, Client: c.name, Sub: subName(sub), Outcome: traces.OutcomeUnknown})
			c.t = t
			return
		}
		c.t = t + backoff
		c.connect()
		if kind == kindDuplicate {
			c.t = c.insertNew(p, c.t) // the Agent forgot the key: a second message
		} else {
			c.t = c.fromBinding(p, c.t, msg)
		}
	case kindLostRequest, kindUnknownLost:
		c.lostRequest(p, c.t)
		if kind == kindUnknownLost {
			c.add(traces.Event{T: c.t, Kind: traces.KindOutcome, Client: c.name, Sub: subName(sub), Outcome: traces.OutcomeUnknown})
			return
		}
		c.t += backoff
		c.connect()
		c.t = c.insertNew(p, c.t)
	}
}

func (c *client) promptFrame(id acp.ID, p pending) []byte {
	return c.g.request(id, acp.MethodSessionPrompt, acp.PromptParams{SessionID: p.session, Prompt: []acp.ContentBlock{acp.Text(p.text)}, IdempotencyKey: acp.KeyJSON(p.key), KeyText: p.key})
}

func (c *client) attempt(a Attempt) {
	a.Client = c.idx
	c.g.h.Attempts = append(c.g.h.Attempts, a)
}

// insertNew: the attempt at t is delivered, inserted and answered, and the
// Agent echoes the user message. (Its turn, the state updates and its own
// output, is left out: it costs the checker what any frame costs, and a
// million submissions' trace must fit in memory.)
func (c *client) insertNew(p pending, t int64) int64 {
	g := c.g
	id := c.id()
	td := c.exchange(t, traces.ClientToAgent, p.sub, c.promptFrame(id, p))
	msg := g.uuid()
	tr := c.exchange(td, traces.AgentToClient, -1,
		g.result(id, acp.PromptResult{MessageID: msg}),
		g.update(p.session, acp.MessageUpdate(acp.UpdateUserMessage, msg, p.text)))
	c.add(traces.Event{T: tr, Kind: traces.KindOutcome, Client: c.name, Sub: subName(p.sub), Outcome: traces.OutcomeInserted, MessageID: msg})
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: tr, Result: Inserted, MessageID: msg})
	g.transcripts[p.session] = append(g.transcripts[p.session], tmsg{msg, p.text, p.sub})
	return tr
}

// reject: the attempt at t is refused before insertion.
func (c *client) reject(p pending, t int64) int64 {
	id := c.id()
	td := c.exchange(t, traces.ClientToAgent, p.sub, c.promptFrame(id, p))
	tr := c.exchange(td, traces.AgentToClient, -1, c.g.fail(id, acp.Errorf(acp.CodeInternalError, "internal error: transient failure before insertion")))
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: tr, Result: Failed})
	return tr
}

// insertCut: the attempt at t is delivered and inserted; the link is cut as
// the Agent answers, so the response never arrives.
func (c *client) insertCut(p pending, t int64) (msg string, end int64) {
	g := c.g
	id := c.id()
	td := c.exchange(t, traces.ClientToAgent, p.sub, c.promptFrame(id, p))
	msg = g.uuid()
	frames := []string{
		c.frame(traces.KindSend, td, traces.AgentToClient, text(g.result(id, acp.PromptResult{MessageID: msg})), -1, ""),
		c.frame(traces.KindSend, td, traces.AgentToClient, text(g.update(p.session, acp.MessageUpdate(acp.UpdateUserMessage, msg, p.text))), -1, ""),
	}
	c.cut(td, traces.AgentToClient, p.sub, frames...)
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: td, Result: Unknown})
	g.transcripts[p.session] = append(g.transcripts[p.session], tmsg{msg, p.text, p.sub})
	return msg, td
}

// lostRequest: the attempt at t is lost with the link before the Agent
// reads it.
func (c *client) lostRequest(p pending, t int64) {
	id := c.id()
	f := c.frame(traces.KindSend, t, traces.ClientToAgent, text(c.promptFrame(id, p)), p.sub, "")
	c.cut(t, traces.ClientToAgent, p.sub, f)
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: t, Result: Unknown})
}

// fromBinding: the retry at t is answered with the message its key is bound
// to, and nothing is inserted.
func (c *client) fromBinding(p pending, t int64, msg string) int64 {
	id := c.id()
	td := c.exchange(t, traces.ClientToAgent, p.sub, c.promptFrame(id, p))
	tr := c.exchange(td, traces.AgentToClient, -1, c.g.result(id, acp.PromptResult{MessageID: msg}))
	c.add(traces.Event{T: tr, Kind: traces.KindOutcome, Client: c.name, Sub: subName(p.sub), Outcome: traces.OutcomeInserted, MessageID: msg})
	c.attempt(Attempt{Sub: p.sub, Call: t, Return: tr, Result: Inserted, MessageID: msg})
	return tr
}
