// The clock of an acpsim check run. Under the virtual clock (the default)
// acpsim holds the schedule: the model Clients, users and fault proxy run
// on a clock that moves only while the Agent has settled, so the order in
// which acpsim's decisions meet the Agent's outputs is the same on every
// run, on an idle machine or a busy one. Under the wall clock they race the
// Agent in real time, which finds timing races and reproduces them rarely.

package check

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"fmt"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim"
)

// The clocks acpsim check can run on (Config.Clock).
const (
	// ClockVirtual holds the schedule: one step at a time, each once the
	// Agent has answered what it owes and gone quiet.
	ClockVirtual = "virtual"
	// ClockWall runs the Clients' timeouts and the proxy's delays in real
	// time, racing the Agent.
	ClockWall = "wall"
)

// Clocks are the values of Config.Clock.
var Clocks = []string{ClockVirtual, ClockWall}

// vtimer is a step due at a point of the virtual clock; seq keeps steps
// due at the same time in the order they were scheduled.
type vtimer struct {
	at  time.Duration
	seq int
	fn  func()
}

type vtimers []vtimer

func (h vtimers) Len() int { return len(h) }
func (h vtimers) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h vtimers) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *vtimers) Push(x any)   { *h = append(*h, x.(vtimer)) }
func (h *vtimers) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// virtualTick is how far the virtual clock moves at most in one step while
// nothing is due: the phases (heal, the observer) look at it that often.
// After idleSpin such steps in a row with nothing due, a phase waits on
// something real (a process to exit, the observer's patience), and the
// clock moves one tick per tick of real time instead of spinning.
const (
	virtualTick = 5 * time.Millisecond
	idleSpin    = 400
	// overlapSteps bounds the steps one pause of the Agent takes.
	overlapSteps = 64
	// overlapSpan is how much virtual time the Agent's work in flight
	// takes when the overlap decision lets the clock run on: a round of
	// the reference Agent's work (3 chunks 20 ms apart).
	overlapSpan = 60 * time.Millisecond
)

// deferredFrame is a frame to l's Agent put off while the clock ran
// through another Agent's pause.
type deferredFrame struct {
	l *rlink
	f *rframe
}

// heldKill is a link whose kill is held for its Agent's settling, nil if
// none.
func (d *driver) heldKill() *rlink {
	for _, l := range d.links {
		if l.killAt != "" {
			return l
		}
	}
	return nil
}

// spinning reports whether the virtual clock, the Agent having settled,
// may move at once: else it moves at the pace of real ticks.
func (d *driver) spinning() bool { return d.idleSteps < idleSpin }

func (d *driver) held() bool { return d.cfg.Clock != ClockWall }

// now is the run's time: virtual, or real since the start.
func (d *driver) now() time.Duration {
	if d.held() {
		return d.vnow
	}
	return time.Since(d.start)
}

// after runs fn on the driver's goroutine once wait has passed on the
// run's clock.
func (d *driver) after(wait time.Duration, fn func()) {
	if d.held() {
		d.vseq++
		heap.Push(&d.vq, vtimer{at: d.vnow + max(wait, 0), seq: d.vseq, fn: fn})
		return
	}
	d.afterReal(wait, fn)
}

// afterReal runs fn after wait of real time: the watchdogs on the Agent
// (an initialize unanswered, a process ignoring end of file), which measure
// the Agent, not the model.
func (d *driver) afterReal(wait time.Duration, fn func()) {
	d.timers = append(d.timers, time.AfterFunc(wait, func() { d.post(fn) }))
}

// poke notes that the Agent behind l (nil: a process not yet linked) was
// given something to react to (a frame, a start, a kill, an end of file):
// the virtual clock waits for it to settle.
func (d *driver) poke(l *rlink) { d.heard, d.poked = time.Now(), l }

// settled reports whether the Agent has reacted to everything it was
// given: silent for Settle and no thread of it running or runnable (Linux), answered every request it owes (or silent for
// OwedWait with one unanswered: it holds it, or never answers), every
// process acpsim ended has exited, no connection or restart is under way.
//
// An Agent silent for Settle while it owes an answer is in the middle of
// its work (a turn's chunks come with pauses): there, once per such pause
// and only while no other Agent process is at work, the overlap decision
// may let the clock run on anyway (step), so the users and Clients meet
// work in flight: a prompt held behind a turn, a cancel or close of it.
func (d *driver) settled() bool {
	quiet := time.Since(d.heard)
	if quiet < d.cfg.Settle || d.inflight > 0 {
		return false
	}
	var owing *rlink
	active := 0
	for _, l := range d.links {
		if l.alive && l.owed[l.initID] && l.gone == "" && l.cutBy == "" {
			return false // initTimeout judges it at StartTimeout
		}
		if quiet >= d.cfg.OwedWait {
			continue
		}
		if l.alive && l.cutBy == "" && l.gone == "" && l.sending.Load() > 0 {
			return false
		}
		if l.alive && l.cutBy == "" && l.gone == "" && (len(l.owed) > 0 || len(l.running) > 0) {
			active++
			owing = cmp.Or(owing, l)
		}
		if l.proc != nil && !l.alive && l.proc.Status() == "" {
			return false // ended or killed, not yet exited
		}
	}
	// Last, as it reads /proc: silent, but not done (on a busy machine,
	// waiting for a CPU).
	for _, l := range d.links {
		if quiet < d.cfg.OwedWait && l.proc != nil && l.alive && l.proc.Running() {
			return false
		}
	}
	if owing == nil {
		return true
	}
	if active > 1 {
		// Two processes at work: when both pause at once depends on
		// their phases, so no step is taken in the middle of either.
		return false
	}
	site := fmt.Sprintf("%s/owes/%d/%d", owing.name, owing.seq[dirC2A], owing.seq[dirA2C])
	if site != d.overlapSite {
		d.overlapSite, d.overlapLink = site, owing
		// Asked in every phase (a recorded schedule holds it), taken only
		// while the chaos runs.
		d.overlapGo = d.faults.Choose(sim.Decision{Kind: Overlap, Site: site, N: 2}) != 0 && !d.healing && !d.stopping
	}
	return d.overlapGo
}

// step is the virtual clock's move once the Agent has settled: the kills
// held until now land, else the next step due within virtualTick runs,
// else the clock moves virtualTick and the phase looks at it.
func (d *driver) step() {
	if l := d.heldKill(); l != nil {
		why := l.killAt
		l.killAt = ""
		d.kill(l, why)
		return
	}
	if len(d.deferred) > 0 {
		// The frames put off in the last run through a pause go now, one
		// link at a time, so that each Agent works alone again.
		l, rest := d.deferred[0].l, d.deferred[:0]
		for _, df := range d.deferred {
			if df.l == l {
				df.f.ready = true
			} else {
				rest = append(rest, df)
			}
		}
		d.deferred = rest
		d.flush(l, dirC2A)
		return
	}
	if d.overlapGo {
		// In the Agent's pause the clock runs on through overlapSpan, the
		// work taking virtual time as a turn does in the simulator: what
		// the users and Clients do meanwhile reaches it in one burst,
		// read in order while its turn still runs. Frames to other
		// Agents wait (deferred); a step that sets another process to
		// work (a start, a cut) or a kill ends the burst.
		d.overlapGo = false
		end := d.vnow + overlapSpan
		d.bursting = true
		defer func() { d.bursting = false }()
		for n := 0; n < overlapSteps && len(d.vq) > 0 && d.vq[0].at <= end && d.inflight == 0 && d.heldKill() == nil && !d.finished; n++ {
			t := heap.Pop(&d.vq).(vtimer)
			d.vnow = max(d.vnow, t.at)
			d.idleSteps = 0
			heard := d.heard
			t.fn()
			if d.heard != heard && d.poked != d.overlapLink {
				return // another process set to work: it settles first
			}
		}
		d.vnow = max(d.vnow, end)
		return
	}
	// One step due at a time: what it gives the Agent settles before the
	// next, even when two are due at once (two Clients' timeouts).
	if len(d.vq) > 0 && d.vq[0].at < d.vnow+virtualTick {
		t := heap.Pop(&d.vq).(vtimer)
		d.vnow = max(d.vnow, t.at)
		d.idleSteps = 0
		t.fn()
		return
	}
	d.vnow += virtualTick
	d.idleSteps++
	d.phase()
}

// holdKill, under the virtual clock, puts off a kill until the Agent has
// settled, so the process dies in the same state on every run: having
// reacted to everything it read. pass is how many more of its frames reach
// the Client before then; the rest are lost with it.
func (d *driver) holdKill(l *rlink, pass int, why string) {
	if l.killAt == "" {
		l.killAt, l.killPass = why, pass
	}
}

// killHeld reports whether l's frame from the Agent dies with a kill held
// for l (and uses up one frame the Client may still see).
func (l *rlink) killHeld() bool {
	if l.killAt == "" {
		return false
	}
	if l.killPass > 0 {
		l.killPass--
		return false
	}
	return true
}

// HeldKills are the kill options after a prompt under the virtual clock
// (KillAfter's under the wall clock): -1, before the Agent reads the
// prompt; n ≥ 0, once it has reacted to it, with the first n frames it
// wrote since reaching the Client.
var HeldKills = []int{0, -1, 0, 1, 2}

// heldKillText says what a held kill option does, for the trace.
func heldKillText(pass int) string {
	switch pass {
	case -1:
		return "before it read a prompt"
	case 0:
		return "once it had reacted to a prompt, none of its frames since seen"
	}
	return fmt.Sprintf("once it had reacted to a prompt, %d of its frames since seen", pass)
}

// answered drops from what l's Agent owes the requests a frame it wrote
// answers, and notes the turns it starts and ends: a running turn owes its
// idle state_update, so the clock waits for the turn as for an answer.
func (l *rlink) answered(line acp.Line) {
	for _, e := range line.Entries {
		switch {
		case e.Err != nil:
		case e.Msg.Kind() == acp.KindResponse:
			delete(l.owed, e.Msg.ID)
		case e.Msg.Method == acp.MethodSessionUpdate:
			var p acp.SessionUpdateParams
			if json.Unmarshal(e.Msg.Params, &p) != nil || p.Update.Kind != acp.UpdateState {
				continue
			}
			if l.running == nil {
				l.running = map[string]bool{}
			}
			if p.Update.State == acp.StateRunning {
				l.running[p.SessionID] = true
			} else {
				delete(l.running, p.SessionID)
			}
		}
	}
}

// owe notes the requests of a frame delivered on l: the Agent owes each an
// answer; answered drops them as their responses come.
func (l *rlink) owe(ids []acp.ID) {
	for _, id := range ids {
		if l.owed == nil {
			l.owed = map[acp.ID]bool{}
		}
		l.owed[id] = true
	}
}
