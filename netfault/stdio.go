package netfault

import (
	"github.com/acpsim/acpsim/actors/acp"
	"time"
	"unsafe"

	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// Recorder receives the events of a link. T and Seq are filled in by it.
type Recorder interface {
	Record(e traces.Event)
}

// Pipe is a virtual stdio connection: one pipe pair for one Agent process
// lifetime, reliable and in order. It ends when it is cut (a fault), when the
// Agent process dies or when the Client closes it.
type Pipe struct {
	Name   string
	Client string // endpoint names, as traces show them
	Agent  string

	loop    *sim.Loop
	choose  func(sim.Decision) int
	rec     Recorder
	latency time.Duration

	alive    bool
	gone     string // why the Agent process ended, while its last frames drain
	seq      [2]int
	last     [2]time.Duration
	inflight [2][]*frame
	frames   sim.Slab[frame]
	sites    [2]string // the prefix of a frame's decisions' site, by direction

	// ToAgent and ToClient are called with each frame that arrives, by
	// direction, and the digest its sender made of it (nil for none).
	ToAgent, ToClient func(frame []byte, d *acp.Digest)
	// OnCut is called once when a fault cuts the pipe.
	OnCut func()
	// OnClosed is called once when the pipe ends, for any reason.
	OnClosed func()
}

type frame struct {
	bytes  []byte
	text   string // the bytes as the trace records them, shared for send and deliver
	sub    string
	gone   bool
	pipe   *Pipe
	dir    int
	digest *acp.Digest
}

// Fire is the frame's arrival (sim.Handler): a frame in flight is its own
// event on the loop.
func (f *frame) Fire() { f.pipe.arrive(f.dir, f) }

// done marks a frame delivered or dropped, and lets go of its bytes: frames
// come from the pipe's slab, which keeps a block alive while any frame of it
// is in flight.
func (f *frame) done() {
	f.gone = true
	f.bytes, f.text, f.sub, f.digest = nil, "", "", nil
}

const (
	c2a = 0
	a2c = 1
)

var dirNames = [2]string{traces.ClientToAgent, traces.AgentToClient}

// shiftInFlight is the most frames in flight that an arrival shifts down
// rather than reslices past (Pipe.arrive).
const shiftInFlight = 16

// NewPipe opens a pipe between client and agent named name and records the
// connect event.
func NewPipe(name, client, agent string, loop *sim.Loop, choose func(sim.Decision) int, rec Recorder, latency time.Duration) *Pipe {
	p := &Pipe{Name: name, Client: client, Agent: agent, loop: loop, choose: choose, rec: rec, latency: latency, alive: true}
	p.sites = [2]string{name + "/" + dirNames[c2a], name + "/" + dirNames[a2c]}
	rec.Record(traces.Event{Kind: traces.KindConnect, Link: name, From: client, To: agent})
	return p
}

// Alive reports whether the pipe still carries frames.
func (p *Pipe) Alive() bool { return p.alive }

// SendToAgent writes a Client frame; sub names the submission of a prompt.
func (p *Pipe) SendToAgent(b []byte, sub string) { p.send(c2a, b, sub, "", nil) }

// SendToAgentDigest is SendToAgent of a frame with the digest its sender
// made (acp.Digest), handed to ToAgent with it.
func (p *Pipe) SendToAgentDigest(b []byte, sub string, d *acp.Digest) { p.send(c2a, b, sub, "", d) }

// SendProbeToAgent writes a Client frame that is malformed on purpose, with
// its sender's digest (nil for none); its send event carries
// traces.NoteProbe.
func (p *Pipe) SendProbeToAgent(b []byte, d *acp.Digest) { p.send(c2a, b, "", traces.NoteProbe, d) }

// SendObserveToAgent writes a frame of the checker's observer on a Client's
// live pipe: its send event carries traces.NoteObserve, which hands the
// pipe to the observer in the checker's eyes.
func (p *Pipe) SendObserveToAgent(b []byte, d *acp.Digest) {
	p.send(c2a, b, "", traces.NoteObserve, d)
}

// SendToClient writes an Agent frame.
func (p *Pipe) SendToClient(b []byte) { p.send(a2c, b, "", "", nil) }

// SendToClientDigest is SendToClient of a frame with its digest.
func (p *Pipe) SendToClientDigest(b []byte, d *acp.Digest) { p.send(a2c, b, "", "", d) }

func (p *Pipe) ends(dir int) (from, to string) {
	if dir == c2a {
		return p.Client, p.Agent
	}
	return p.Agent, p.Client
}

func (p *Pipe) event(kind string, dir int, f *frame, note string) {
	from, to := p.ends(dir)
	p.rec.Record(traces.Event{Kind: kind, Link: p.Name, From: from, To: to, Dir: dirNames[dir], Frame: f.text, Sub: f.sub, Note: note})
}

// frameText is a sent frame as the trace records it. A sender hands over a
// frame's bytes and never writes them again (the actors encode each frame
// afresh), so the string shares them instead of copying every frame.
func frameText(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// send writes b; note goes on its send event (a drop says why instead).
func (p *Pipe) send(dir int, b []byte, sub, note string, d *acp.Digest) {
	f := p.frames.New()
	*f = frame{bytes: b, text: frameText(b), sub: sub, pipe: p, dir: dir, digest: d}
	if !p.alive || p.gone != "" {
		p.event(traces.KindDrop, dir, f, "pipe closed")
		f.done()
		return
	}
	p.event(traces.KindSend, dir, f, note)
	p.seq[dir]++
	if p.choose(sim.Numbered(Cut, p.sites[dir], p.seq[dir], "", false, 2)) != 0 {
		p.inflight[dir] = append(p.inflight[dir], f)
		p.end("cut")
		if p.OnCut != nil {
			p.OnCut()
		}
		return
	}
	extra := DelaySteps[p.choose(sim.Numbered(Delay, p.sites[dir], p.seq[dir], "", false, len(DelaySteps)))]
	at := max(p.loop.Now()+p.latency+extra, p.last[dir]) // a pipe never reorders
	p.last[dir] = at
	p.inflight[dir] = append(p.inflight[dir], f)
	p.loop.AtHandler(at, f)
}

func (p *Pipe) arrive(dir int, f *frame) {
	if f.gone {
		return
	}
	q := p.inflight[dir]
	switch {
	case len(q) == 0 || q[0] != f:
	case len(q) <= shiftInFlight:
		// Shifted down, not resliced: the few frames in flight stay at the
		// start of the slice, which then never needs growing again.
		n := copy(q, q[1:])
		q[n] = nil
		p.inflight[dir] = q[:n]
	default:
		// Resliced: shifting a long backlog at every arrival made a long
		// run's deliveries quadratic (a fifth of a 20,000-prompt run).
		// Growing the slice later copies only the frames still in it.
		q[0] = nil
		p.inflight[dir] = q[1:]
	}
	p.event(traces.KindDeliver, dir, f, "")
	b, d := f.bytes, f.digest
	f.done()
	if dir == c2a {
		p.ToAgent(b, d)
		return
	}
	p.ToClient(b, d)
	if p.gone != "" && len(p.inflight[a2c]) == 0 {
		p.end(p.gone) // the Client reads end of file after the last frame
	}
}

// AgentGone is the Agent process ending, killed or exited. What it wrote
// before stays in the pipe and the Client still reads it; what the Client
// wrote that the Agent had not read, and anything it writes from now on, is
// lost. The link ends after the Agent's last frame arrives.
func (p *Pipe) AgentGone(why string) {
	if !p.alive || p.gone != "" {
		return
	}
	p.gone = why
	for _, f := range p.inflight[c2a] {
		if f != nil && !f.gone {
			p.event(traces.KindDrop, c2a, f, why)
			f.done()
		}
	}
	p.inflight[c2a] = nil
	if len(p.inflight[a2c]) == 0 {
		p.end(why)
	}
}

// Close ends the pipe at once, dropping every frame in flight: why is "close"
// for the orderly close at the end of a run, "hangup" when a Client gives up
// on its Agent.
func (p *Pipe) Close(why string) { p.end(why) }

func (p *Pipe) end(why string) {
	if !p.alive {
		return
	}
	p.alive = false
	for dir := range p.inflight {
		for _, f := range p.inflight[dir] {
			if f != nil && !f.gone {
				p.event(traces.KindDrop, dir, f, why)
				f.done()
			}
		}
		p.inflight[dir] = nil
	}
	p.rec.Record(traces.Event{Kind: traces.KindDisconnect, Link: p.Name, From: p.Client, To: p.Agent, Note: why})
	if p.OnClosed != nil {
		p.OnClosed()
	}
}
