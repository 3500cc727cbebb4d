// The fault proxy of acpsim check: a link between a model Client and the
// Agent, and the per-frame fault decisions (cut, kill, drop, delay) in both
// directions, the in-order delivery queues and the end of a link.

package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/dial"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// rlink is one connection through the fault proxy.
type rlink struct {
	name          string
	client, agent string
	cn            *rclient // nil for the observer's link
	c             *client.Client
	conn          dial.Conn
	proc          *proc.Process // stdio: the Agent process the link is
	node          int           // remote: the index in URLs
	sendq         chan []byte
	alive         bool   // carries frames
	gone          string // the Agent side ended; a2c frames still drain
	cutBy         string // the proxy ended it: later Agent output is not read
	killed        bool
	seq           [2]int
	queue         [2][]*rframe
	last          [2]time.Duration  // on the run's clock
	methods       map[acp.ID]string // requests the Client side sent, by id
	initID        acp.ID
	initAnswered  bool
	sentInit      []byte
	lastA2C       []byte // the last line the Agent wrote, for a hung Agent's verdict
	linesA2C      int
	// sessions are those the Agent process behind l made or resumed for
	// its Client on l (resuming: by request id, until answered); live, once
	// the Clients stop, is the observer reading them on l (readLive).
	sessions    []string
	resuming    map[acp.ID]string
	live        *client.Observer
	newAnswered int // session/new answers the Agent wrote (setup.go)
	// Under the virtual clock (clock.go): the requests delivered and
	// not yet answered, the frames handed to a remote connection and not
	// yet sent, and a kill held until the Agent settles.
	owed     map[acp.ID]bool
	running  map[string]bool // sessions whose turn runs (state_update)
	sending  atomic.Int32
	killAt   string
	killPass int
}

type rframe struct {
	bytes []byte
	sub   string
	ready bool
	done  bool
	kill  time.Duration // c2a: SIGKILL this long after writing it (-1: none)
	// held is, under the virtual clock, the kill once the Agent has
	// reacted to this frame: how many of its frames since reach the
	// Client (HeldKills; -2: none).
	held int
	reqs []acp.ID // the requests in it
}

const (
	dirC2A = 0
	dirA2C = 1
)

var dirNames = [2]string{traces.ClientToAgent, traces.AgentToClient}

func (d *driver) event(kind string, l *rlink, dir int, f *rframe, note string) {
	from, to := l.client, l.agent
	if dir == dirA2C {
		from, to = to, from
	}
	d.record(traces.Event{Kind: kind, Link: l.name, From: from, To: to, Dir: dirNames[dir], Frame: string(f.bytes), Sub: f.sub, Note: note})
}

// c2a is the Client side writing frame on l; note goes on its send event
// (traces.NoteProbe for a frame malformed on purpose).
func (d *driver) c2a(l *rlink, frame []byte, sub, note string) {
	f := &rframe{bytes: frame, sub: sub, kill: -1, held: -2}
	if !l.alive || l.gone != "" {
		d.event(traces.KindDrop, l, dirC2A, f, "pipe closed")
		return
	}
	if l.killAt != "" && l.cn != nil {
		// A kill is held for l: the process dies before it reads this.
		d.event(traces.KindDrop, l, dirC2A, f, "killed")
		return
	}
	d.event(traces.KindSend, l, dirC2A, f, note)
	prompt := false
	for _, e := range acp.ParseLine(frame).Entries {
		if e.Err == nil && e.Msg.Kind() == acp.KindRequest {
			f.reqs = append(f.reqs, e.Msg.ID)
			l.methods[e.Msg.ID] = e.Msg.Method
			if e.Msg.Method == acp.MethodInitialize {
				l.initID, l.sentInit = e.Msg.ID, frame
				d.afterReal(d.cfg.StartTimeout, func() { d.initTimeout(l) })
			}
			if e.Msg.Method == acp.MethodSessionResume && l.live == nil {
				var p acp.ResumeSessionParams
				if json.Unmarshal(e.Msg.Params, &p) == nil && p.SessionID != "" {
					if l.resuming == nil {
						l.resuming = map[acp.ID]string{}
					}
					l.resuming[e.Msg.ID] = p.SessionID
				}
			}
			if e.Msg.Method == acp.MethodSessionNew {
				d.sessionNewSent(l)
			}
			prompt = prompt || e.Msg.Method == acp.MethodSessionPrompt
		}
	}
	l.seq[dirC2A]++
	site := l.name + "/c2a/" + strconv.Itoa(l.seq[dirC2A])
	if d.choose(sim.Decision{Kind: netfault.Cut, Site: site, N: 2}) != 0 {
		l.queue[dirC2A] = append(l.queue[dirC2A], f)
		d.endLink(l, "cut", true)
		return
	}
	if prompt {
		if k := d.choose(sim.Decision{Kind: netfault.Kill, Site: site, N: len(KillAfter)}); k != 0 {
			switch {
			case !d.held():
				f.kill = KillAfter[k]
			case HeldKills[k] < 0:
				d.event(traces.KindDrop, l, dirC2A, f, "killed")
				d.holdKill(l, 0, heldKillText(HeldKills[k]))
				return
			default:
				f.held = HeldKills[k]
			}
		}
	}
	d.enqueue(l, dirC2A, f, Delays[d.choose(sim.Decision{Kind: netfault.Delay, Site: site, N: len(Delays)})])
}

// a2c is a frame the Agent process wrote.
func (d *driver) a2c(l *rlink, frame []byte) {
	f := &rframe{bytes: frame, kill: -1}
	l.lastA2C, l.linesA2C = frame, l.linesA2C+1
	d.event(traces.KindSend, l, dirA2C, f, "")
	line := acp.ParseLine(frame)
	l.answered(line)
	if l.cutBy != "" || !l.alive {
		why := l.cutBy
		if why == "" {
			why = "pipe closed"
		}
		d.event(traces.KindDrop, l, dirA2C, f, why)
		return
	}
	if b := d.brokenFrame(l, frame, line); b != nil {
		d.broken = b
		return
	}
	if l.killHeld() {
		d.event(traces.KindDrop, l, dirA2C, f, "killed")
		return
	}
	exempt := false // responses the model Client cannot recover from losing
	for _, e := range line.Entries {
		if e.Msg.Kind() != acp.KindResponse {
			continue
		}
		switch l.methods[e.Msg.ID] {
		case acp.MethodInitialize, acp.MethodAuthLogin:
			exempt = true
		case acp.MethodSessionNew, acp.MethodSessionFork:
			var res acp.NewSessionResult
			if e.Msg.Error == nil && json.Unmarshal(e.Msg.Result, &res) == nil && res.SessionID != "" {
				d.sessions[res.SessionID] = true
				l.had(res.SessionID)
			}
		case acp.MethodSessionResume:
			if id, ok := l.resuming[e.Msg.ID]; ok && e.Msg.Error == nil {
				l.had(id)
			}
			delete(l.resuming, e.Msg.ID)
		}
	}
	l.seq[dirA2C]++
	site := l.name + "/a2c/" + strconv.Itoa(l.seq[dirA2C])
	if !exempt && l.cn != nil {
		if d.choose(sim.Decision{Kind: netfault.Kill, Site: site, N: 2}) != 0 {
			d.event(traces.KindDrop, l, dirA2C, f, "killed")
			why := "as a2c frame " + strconv.Itoa(l.seq[dirA2C]) + " passed"
			if d.held() {
				d.holdKill(l, 0, why+", once it had settled")
				return
			}
			d.kill(l, why)
			return
		}
		if d.choose(sim.Decision{Kind: netfault.Cut, Site: site, N: 2}) != 0 {
			l.queue[dirA2C] = append(l.queue[dirA2C], f)
			d.endLink(l, "cut", true)
			return
		}
		if d.choose(sim.Decision{Kind: ProxyDrop, Site: site, N: 2}) != 0 {
			d.event(traces.KindDrop, l, dirA2C, f, "proxy-drop")
			return
		}
	}
	extra := time.Duration(0)
	if !exempt {
		extra = Delays[d.choose(sim.Decision{Kind: netfault.Delay, Site: site, N: len(Delays)})]
	}
	d.enqueue(l, dirA2C, f, extra)
}

// enqueue sends f on after extra; frames of one direction never overtake
// each other, as on a pipe.
func (d *driver) enqueue(l *rlink, dir int, f *rframe, extra time.Duration) {
	q := l.queue[dir]
	if d.bursting && dir == dirC2A && l != d.overlapLink {
		// While the clock runs through one Agent's pause, another's frames
		// wait for it to settle: two processes at work at once would make
		// the next settling depend on their phases.
		l.queue[dir] = append(q, f)
		d.deferred = append(d.deferred, deferredFrame{l, f})
		return
	}
	if extra == 0 && len(q) == 0 {
		d.arrive(l, dir, f)
		return
	}
	at := d.now() + extra
	if at < l.last[dir] {
		at = l.last[dir]
	}
	l.last[dir] = at
	l.queue[dir] = append(q, f)
	d.after(at-d.now(), func() {
		f.ready = true
		d.flush(l, dir)
	})
}

func (d *driver) flush(l *rlink, dir int) {
	for len(l.queue[dir]) > 0 && l.queue[dir][0].ready {
		f := l.queue[dir][0]
		l.queue[dir] = l.queue[dir][1:]
		d.arrive(l, dir, f)
	}
	if dir == dirA2C && l.gone != "" && len(l.queue[dirA2C]) == 0 {
		d.endLink(l, l.gone, true) // the Client reads end of file after the last frame
	}
}

func (d *driver) arrive(l *rlink, dir int, f *rframe) {
	if f.done || !l.alive {
		return
	}
	f.done = true
	if dir == dirC2A {
		d.poke(l)
		l.owe(f.reqs)
		if f.held >= -1 {
			d.holdKill(l, f.held, heldKillText(f.held))
		}
	}
	if dir == dirC2A && l.proc == nil {
		d.event(traces.KindDeliver, l, dir, f, "")
		l.sending.Add(1)
		select {
		case l.sendq <- f.bytes:
		default:
			d.broken = &BrokenAgent{Kind: BrokenStdin, Process: l.agent, Detail: fmt.Sprintf("the Agent at %s does not take requests (%d waiting)", d.cfg.URLs[l.node], proc.SendQueue)}
		}
		if f.kill >= 0 {
			d.after(f.kill, func() { d.kill(l, "after a prompt was written to it") })
		}
		return
	}
	if dir == dirC2A {
		if err := l.proc.Send(f.bytes); err != nil {
			d.event(traces.KindDrop, l, dir, f, err.Error())
			if errors.Is(err, proc.ErrNotReading) {
				d.broken = &BrokenAgent{Kind: BrokenStdin, Process: l.agent, Detail: err.Error()}
			}
			return
		}
		d.event(traces.KindDeliver, l, dir, f, "")
		if f.kill >= 0 {
			d.after(f.kill, func() { d.kill(l, "after a prompt was written to it") })
		}
		return
	}
	d.event(traces.KindDeliver, l, dir, f, "")
	switch {
	case l.live != nil:
		d.applyLive(l, l.live.Receive(l.name, f.bytes))
	case l.cn == nil:
		d.applyObserver(l, d.observer.Receive(l.name, f.bytes), 0)
	case l.cn.c == l.c:
		d.applyClient(l.cn, l.c.Receive(l.name, f.bytes))
	}
}

// endLink ends l now. by says the proxy or the Client ended it (the Agent's
// later output is not read); tell says the Client hears of it.
func (d *driver) endLink(l *rlink, why string, tell bool) {
	if !l.alive {
		return
	}
	l.alive = false
	if l.cutBy == "" {
		l.cutBy = why
	}
	for dir := range l.queue {
		for _, f := range l.queue[dir] {
			if !f.done {
				f.done = true
				d.event(traces.KindDrop, l, dir, f, why)
			}
		}
		l.queue[dir] = nil
	}
	d.record(traces.Event{Kind: traces.KindDisconnect, Link: l.name, From: l.client, To: l.agent, Note: why})
	d.poke(l)
	_ = l.conn.Close()
	if l.sendq != nil {
		close(l.sendq)
	}
	if p := l.proc; p != nil && !l.killed {
		d.afterReal(2*time.Second, func() {
			if p.Status() == "" {
				p.Kill() // it ignored end of file on stdin
			}
		})
	}
	if tell && l.cn != nil && l.cn.c == l.c && !d.stopping {
		d.applyClient(l.cn, l.c.Disconnected(l.name))
	}
}
