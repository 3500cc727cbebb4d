// Remote Agents of an acpsim check run (--url): dialing a node, the
// proxy's side of a remote connection, and the remote kill (--restart).

package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/dial"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// dial opens a remote connection for cn (nil: the observer, on the first
// URL). Dialing waits on the network, so it runs beside the loop; a failed
// dial is tried again after the backoff until StartTimeout has passed.
func (d *driver) dial(cn *rclient, c *client.Client, since time.Time) {
	node, from := 0, traces.Observer
	if cn != nil {
		from = cn.name
		if len(d.cfg.URLs) > 1 {
			cn.dials++
			node = d.choose(sim.Decision{Kind: netfault.Route, Site: cn.name + "/dial/" + strconv.Itoa(cn.dials), N: len(d.cfg.URLs)})
		}
	}
	u := d.cfg.URLs[node]
	if cn == nil && !d.observerHTTP {
		// Over Streamable HTTP a resume's replay (session stream) and its
		// response (connection stream, on some servers) may race; over
		// WebSocket they keep their order, so the observer tries it first.
		u = wsURL(u)
	}
	opts := dial.Options{Timeout: d.cfg.StartTimeout}
	d.inflight++
	go func() {
		conn, err := dial.Remote(context.Background(), u, opts)
		d.post(func() {
			d.inflight--
			switch {
			case d.finished:
				if conn != nil {
					_ = conn.Close()
				}
			case err != nil && cn == nil && !d.observerHTTP && u != d.cfg.URLs[node] && errors.As(err, new(*dial.StatusError)):
				// The endpoint serves no WebSocket (the SDK's AcpServer
				// answers the upgrade 426): the observer reads over
				// Streamable HTTP, and waits for the Agent to be quiet for
				// a timeout before it is done, so a replay still on its way
				// is read too.
				d.observerHTTP = true
				d.dial(cn, c, since)
			case err != nil:
				if time.Since(since) > d.cfg.StartTimeout {
					d.broken = d.unreachable(node, cn == nil, err)
					return
				}
				d.after(d.cfg.Backoff, func() { d.dial(cn, c, since) })
			case cn == nil:
				d.observerConnected(d.remoteLink(nil, from, node, conn))
			case cn.c == c && !d.stopping:
				l := d.remoteLink(cn, from, node, conn)
				cn.link = l
				d.applyClient(cn, l.c.Connected(l.name))
			default:
				_ = conn.Close() // the Client restarted meanwhile
			}
		})
	}()
}

// remoteLink starts the proxy's side of a remote connection.
func (d *driver) remoteLink(cn *rclient, from string, node int, conn dial.Conn) *rlink {
	agent := fmt.Sprintf("a%d#%d", node+1, d.incarnation[node]+1)
	d.conns++
	l := &rlink{name: fmt.Sprintf("%s>%s/k%d", from, agent, d.conns), client: from, agent: agent, cn: cn, conn: conn, node: node,
		alive: true, methods: map[acp.ID]string{}, sendq: make(chan []byte, proc.SendQueue)}
	if cn != nil {
		l.c = cn.c
	}
	d.links = append(d.links, l)
	d.record(traces.Event{Kind: traces.KindConnect, Link: l.name, From: from, To: agent, Note: conn.Name()})
	d.pump(l)
	// Sends wait on the network (a POST and its status), so they run in
	// order beside the loop; an error there ends nothing by itself: a lost
	// connection shows as Frames closing.
	go func() {
		first := true
		for f := range l.sendq {
			err := conn.Send(f)
			l.sending.Add(-1)
			d.post(func() {}) // the Agent has it now: it settles from here
			if err != nil && first {
				// initialize never reached the Agent (it is down or
				// restarting): the Client tries a new connection.
				d.post(func() {
					if l.alive {
						d.refused(l, err)
					}
				})
			}
			first = false
		}
	}()
	return l
}

// refused is a Client's connection whose initialize never reached the
// Agent (over Streamable HTTP the dial itself sends nothing, so a closed
// port shows here). The Client tries again after its backoff; a Client
// that has not reached the Agent for StartTimeout calls it broken, so an
// Agent nothing listens for is a verdict within StartTimeout, not
// thousands of refused connections until the cap.
func (d *driver) refused(l *rlink, err error) {
	d.endLink(l, "refused: "+err.Error(), true)
	cn := l.cn
	if cn == nil || d.restarting || d.broken != nil {
		return
	}
	if cn.unreachableSince.IsZero() {
		cn.unreachableSince = time.Now()
		return
	}
	if time.Since(cn.unreachableSince) >= d.cfg.StartTimeout {
		d.broken = d.unreachable(l.node, false, err)
	}
}

// unreachable is the verdict on a remote Agent no connection reached for
// StartTimeout. It names the URL the user gave; the observer dials its
// WebSocket form, which the verdict then says too.
func (d *driver) unreachable(node int, observer bool, err error) *BrokenAgent {
	u := d.cfg.URLs[node]
	what := u
	if observer && wsURL(u) != u && !d.observerHTTP {
		what = fmt.Sprintf("%s (the observer reads transcripts over WebSocket: %s)", u, wsURL(u))
	}
	return &BrokenAgent{Kind: BrokenUnreachable, Process: u,
		Detail: fmt.Sprintf("cannot connect to the Agent at %s for %v: %s", what, d.cfg.StartTimeout, firstLine(err.Error()))}
}

// firstLine is s up to its first line break (an HTTP error carries the
// whole page it got), marked when cut.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// restartRemote is the remote kill: without --restart the proxy can only
// break the connection; with it, the Agent behind the link's URL is killed
// and started again by the user's command, and every connection to it ends.
func (d *driver) restartRemote(l *rlink, why string) {
	if !l.alive {
		return
	}
	if d.cfg.Restart == "" || d.restarting {
		d.endLink(l, "cut", true)
		return
	}
	d.restarting = true
	node, u := l.node, d.cfg.URLs[l.node]
	d.record(traces.Event{Kind: traces.KindKill, From: l.agent, Note: "restart command " + why})
	for _, x := range d.links {
		if x.alive && x.proc == nil && x.node == node {
			d.endLink(x, "kill", true)
		}
	}
	d.incarnation[node]++
	name := fmt.Sprintf("a%d#%d", node+1, d.incarnation[node]+1)
	cmd := exec.Command("sh", "-c", d.cfg.Restart)
	cmd.Env = append(append([]string{}, d.cfg.Env...), fmt.Sprintf("ACPSIM_NODE=%d", node), "ACPSIM_URL="+u)
	if d.cfg.Env == nil {
		cmd.Env = append(os.Environ(), cmd.Env...)
	}
	d.inflight++
	go func() {
		out, err := proc.RunRestart(cmd)
		d.post(func() {
			d.inflight--
			d.restarting = false
			for _, cn := range d.clients {
				cn.unreachableSince = time.Time{} // refusals during the restart were its own
			}
			if err != nil {
				d.fatal = fmt.Errorf("--restart %q for %s: %v: %s", d.cfg.Restart, u, err, lastLine(strings.TrimSpace(string(out))))
				return
			}
			d.record(traces.Event{Kind: traces.KindRestart, From: name})
		})
	}()
}

// wsURL is the WebSocket form of a remote endpoint's URL.
func wsURL(u string) string {
	switch {
	case strings.HasPrefix(u, "http://"):
		return "ws://" + strings.TrimPrefix(u, "http://")
	case strings.HasPrefix(u, "https://"):
		return "wss://" + strings.TrimPrefix(u, "https://")
	}
	return u
}
