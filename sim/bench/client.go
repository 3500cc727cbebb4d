// One Client of a generated history and its Agent installation: buffering
// its events, framing and exchanging messages, connecting (initialize,
// session/new, session/resume) and cutting the link.

package bench

import (
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// client is one Client and its Agent installation.
type client struct {
	g           *gen
	idx         int
	name, agent string
	inc         int    // the Agent process's incarnation
	link, proc  string // "" when the link is down
	nextID      int64
	sessions    []string
	t           int64 // the Client's clock: when it acts next
	subs        []int
	done        int
	buf         []traces.Event
	head        int
	held        []traces.Event // the observer's deliveries, held until its replay is sent
}

func (c *client) add(e traces.Event) {
	if n := len(c.buf); n > c.head && e.T < c.buf[n-1].T {
		panic(fmt.Sprintf("bench: %s's events go back in time: %+v after %+v", c.name, e, c.buf[n-1]))
	}
	c.buf = append(c.buf, e)
}

func (c *client) frame(kind string, t int64, dir string, frame string, sub int, note string) string {
	e := traces.Event{T: t, Kind: kind, Link: c.link, Dir: dir, Frame: frame, Note: note}
	if kind == traces.KindSend {
		e.Digest = c.g.take(frame)
	}
	if dir == traces.ClientToAgent {
		e.From, e.To = c.name, c.proc
	} else {
		e.From, e.To = c.proc, c.name
	}
	if sub >= 0 {
		e.Sub = subName(sub)
	}
	c.add(e)
	return e.Frame
}

// exchange sends frames in one direction at t and delivers them a latency
// later; it returns the delivery time.
func (c *client) exchange(t int64, dir string, sub int, frames ...[]byte) int64 {
	start := len(c.buf)
	for _, f := range frames {
		c.frame(traces.KindSend, t, dir, text(f), sub, "")
	}
	for i := range frames {
		c.frame(traces.KindDeliver, t+latency, dir, c.buf[start+i].Frame, sub, "")
	}
	return t + latency
}

func (c *client) id() acp.ID {
	c.nextID++
	return acp.NumID(c.nextID)
}

func subName(i int) string { return fmt.Sprintf("s%d", i+1) }

// start connects the Client and creates its sessions.
func (c *client) start() {
	c.connect()
	var reqs, resps [][]byte
	for range c.g.cfg.Sessions {
		id := c.id()
		s := c.g.uuid()
		c.sessions = append(c.sessions, s)
		reqs = append(reqs, c.g.request(id, acp.MethodSessionNew, acp.NewSessionParams{Cwd: "/work/" + c.name}))
		resps = append(resps, c.g.result(id, acp.NewSessionResult{SessionID: s}))
	}
	t := c.exchange(c.t, traces.ClientToAgent, -1, reqs...)
	c.t = c.exchange(t, traces.AgentToClient, -1, resps...)
}

// connect starts a new Agent process, connects to it and initializes; after
// a reconnect the Client resumes its sessions.
func (c *client) connect() {
	c.inc++
	c.proc = fmt.Sprintf("%s#%d", c.agent, c.inc)
	c.link = c.name + ":" + c.proc
	c.nextID = 0
	c.add(traces.Event{T: c.t, Kind: traces.KindRestart, From: c.proc})
	c.add(traces.Event{T: c.t, Kind: traces.KindConnect, Link: c.link, From: c.name, To: c.proc})
	id := c.id()
	t := c.exchange(c.t, traces.ClientToAgent, -1, acp.Request(id, acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion, Info: acp.Implementation{Name: "acpsim-keyed", Version: "0"}}))
	t = c.exchange(t, traces.AgentToClient, -1, acp.Result(id, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion, Info: acp.Implementation{Name: "acpsim-reference", Version: "0"}}))
	if len(c.sessions) > 0 {
		var reqs, resps [][]byte
		for _, s := range c.sessions {
			id := c.id()
			reqs = append(reqs, c.g.request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: s, Cwd: "/work/" + c.name}))
			resps = append(resps, c.g.update(s, acp.StateUpdate(acp.StateIdle, "")), c.g.result(id, nil))
		}
		t = c.exchange(t, traces.ClientToAgent, -1, reqs...)
		t = c.exchange(t, traces.AgentToClient, -1, resps...)
	}
	c.t = t
}

// cut ends the link at t with the given frames in flight (Agent to Client
// unless c2a), as the simulator's cut does: drops, disconnect, the Agent
// process reads EOF and exits.
func (c *client) cut(t int64, dir string, sub int, frames ...string) {
	for _, f := range frames {
		e := traces.Event{T: t, Kind: traces.KindDrop, Link: c.link, Dir: dir, Frame: f, Note: "cut"}
		if dir == traces.ClientToAgent {
			e.From, e.To = c.name, c.proc
			e.Sub = subName(sub)
		} else {
			e.From, e.To = c.proc, c.name
		}
		c.add(e)
	}
	c.add(traces.Event{T: t, Kind: traces.KindDisconnect, Link: c.link, From: c.name, To: c.proc, Note: "cut"})
	c.add(traces.Event{T: t, Kind: traces.KindKill, From: c.proc, Note: "cut"})
	c.link, c.proc = "", ""
}
