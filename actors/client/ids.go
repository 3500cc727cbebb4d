// This file holds how the model Client numbers its requests on a
// connection. JSON-RPC lets a Client choose any number or string, and ids
// are scoped to one connection, so a hop between Client and Agent (a proxy,
// a conductor) must map them, in params too: a $/cancel_request's requestId
// names a request of the hop's sender. A Client that numbers 1, 2, 3 … on
// every connection, as a hop that renumbers from its own counter does,
// hides a hop that forwards a requestId unmapped; so a Client with
// Config.IDStyles draws, per connection, one of these ways.

package client

import (
	"strconv"

	"github.com/acpsim/acpsim/actors/acp"
)

// idStyle is one way of numbering a connection's requests: the id of the
// n-th request (n from 1), given a drawn start; weight is its share of the
// draw.
type idStyle struct {
	name   string
	weight int
	id     func(n, start int64) acp.ID
}

// largeStart is the first id of the "large" style: past 2^32, within 2^53,
// so a JavaScript peer still holds it exactly.
const largeStart = int64(1) << 52

// idStyles are the styles a connection draws from, the ordinary one last
// (Client.draw gives the last option when the host draws nothing).
//
// From 0 weighs double: it is how the official SDK's Client numbers, and
// against a hop counting from 1 it is the numbering under which an
// unmapped cancel lands on another pending request instead of none.
var idStyles = []idStyle{
	{"from 0", 2, func(n, _ int64) acp.ID { return acp.NumID(n - 1) }},
	{"from a random start", 1, func(n, start int64) acp.ID { return acp.NumID(start + n) }},
	{"with gaps", 1, func(n, start int64) acp.ID { return acp.NumID(n * (2 + start%5)) }},
	{"strings", 1, func(n, _ int64) acp.ID { return acp.StrID("req-" + strconv.FormatInt(n, 10)) }},
	{"large numbers", 1, func(n, start int64) acp.ID { return acp.NumID(largeStart + start + n) }},
	{"from 1", 1, func(n, _ int64) acp.ID { return acp.NumID(n) }},
}

// drawIDStyle picks how the connection just opened numbers its requests:
// the connection's own named draws, so no other draw shifts.
func (c *Client) drawIDStyle() {
	c.idStyle, c.idStart = len(idStyles)-1, 0
	if !c.cfg.IDStyles {
		return
	}
	c.conns++
	name := c.cfg.Name + "/ids/" + strconv.Itoa(c.conns)
	c.idStyle = drawWeighted(c, name, idStyles, func(s idStyle) int { return s.weight })
	c.idStart = int64(c.draw(name+"/start", 1000000))
}

// nextID is the id of the connection's next request.
func (c *Client) nextID() acp.ID {
	c.nextReq++
	return idStyles[c.idStyle].id(c.nextReq, c.idStart)
}
