// The Agent processes of an acpsim check run (stdio): starting one per
// connection, reading what it writes, killing it, and noticing it ended.

package check

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/netfault/realmode/tap"
	"github.com/acpsim/acpsim/traces"
)

func (d *driver) killAll() {
	for _, l := range d.links {
		if l.proc != nil && l.proc.Status() == "" {
			l.proc.Kill()
		}
	}
}

// pump forwards what the Agent writes on l to the loop.
func (d *driver) pump(l *rlink) {
	d.pumps.Add(1)
	go func() {
		defer d.pumps.Done()
		for f := range l.conn.Frames() {
			d.post(func() { d.a2c(l, f) })
		}
		d.post(func() { d.agentEnded(l) })
	}()
}

// spawn starts an Agent process and its link; cn is nil for the observer.
func (d *driver) spawn(cn *rclient, from string) (*rlink, error) {
	d.procs++
	name := fmt.Sprintf("%s#%d", tap.AgentName, d.procs)
	link := from + ":" + name
	argv, env := d.cfg.Agent, d.cfg.Env
	if d.cfg.Hop != nil && d.cfg.HopTrace != "" {
		var entry string
		argv, entry = d.cfg.Hop(d.procs, d.cfg.HopTrace)
		if env == nil {
			env = os.Environ()
		}
		env = append(slices.Clip(env), entry) // the last of a name wins
	}
	p, err := proc.Start(link, argv, env)
	if err != nil {
		return nil, fmt.Errorf("cannot start the Agent %q: %v", strings.Join(d.cfg.Agent, " "), err)
	}
	d.live++
	d.poke(nil)
	l := &rlink{name: link, client: from, agent: name, cn: cn, conn: p, proc: p, alive: true, methods: map[acp.ID]string{}}
	if cn != nil {
		l.c = cn.c
	}
	d.links = append(d.links, l)
	d.record(traces.Event{Kind: traces.KindRestart, From: name})
	d.record(traces.Event{Kind: traces.KindConnect, Link: link, From: from, To: name})
	d.pump(l)
	return l, nil
}

// kill sends SIGKILL to l's Agent process. What it wrote before and the
// proxy has not read yet is lost with it.
func (d *driver) kill(l *rlink, why string) {
	if l.proc == nil {
		d.restartRemote(l, why)
		return
	}
	if l.killed || l.proc.Status() != "" || l.cutBy != "" {
		return
	}
	l.killed = true
	d.poke(l)
	d.record(traces.Event{Kind: traces.KindKill, From: l.agent, Note: "SIGKILL " + why})
	l.proc.Kill()
	if l.alive {
		d.endLink(l, "kill", true)
	}
}

// agentEnded is l's Agent process gone and its output read to the end.
func (d *driver) agentEnded(l *rlink) {
	note := "connection ended: " + fmt.Sprint(l.conn.Err())
	var stderr string
	var excerpt []string
	var lines int
	if l.proc != nil {
		d.live--
		stderr = l.proc.Stderr()
		var headline string
		headline, excerpt, lines = proc.StderrExcerpt(stderr)
		note = "exited: " + l.proc.Status()
		if headline != "" {
			note += ": " + headline
		}
		if !l.killed {
			// The whole stderr goes in the trace: the verdict shows its end.
			d.record(traces.Event{Kind: traces.KindKill, From: l.agent, Note: note, Text: stderr})
		}
	}
	if !l.initAnswered && l.cutBy == "" && !l.killed && d.broken == nil && l.proc != nil {
		d.broken = &BrokenAgent{Kind: BrokenExitedAtStart, Process: l.agent,
			Detail: fmt.Sprintf("%s exited before it answered initialize (%s)", d.peer(), strings.TrimPrefix(note, "exited: ")),
			Stderr: excerpt, StderrLines: lines}
	}
	if !l.alive {
		return
	}
	l.gone = "exit"
	for _, f := range l.queue[dirC2A] {
		if !f.done {
			f.done = true
			d.event(traces.KindDrop, l, dirC2A, f, "exit")
		}
	}
	l.queue[dirC2A] = nil
	if len(l.queue[dirA2C]) == 0 {
		d.endLink(l, "exit", true)
	}
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
