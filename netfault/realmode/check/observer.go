// The observer of an acpsim check run: once the Clients have stopped, a
// fresh connection reads the transcript of the run's sessions back.

package check

import (
	"slices"
	"time"

	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/traces"
)

// maxObserverTries bounds how often the observer starts over after its
// initialize failed.
const maxObserverTries = 5

func (d *driver) observe(try int) {
	d.observerTry = try
	if len(d.cfg.URLs) > 0 {
		d.phase = func() {}
		d.dial(nil, nil, time.Now())
		return
	}
	l, err := d.spawn(nil, traces.Observer)
	if err != nil {
		d.fatal = err
		return
	}
	d.observerConnected(l)
}

func (d *driver) observerConnected(l *rlink) {
	try := d.observerTry
	d.observer = client.NewObserver("/")
	d.observer.Protocol = d.cfg.Protocol
	d.observer.Known = d.knownSessions
	d.observer.Only = func(id string) bool { return d.sessions[id] }
	d.applyObserver(l, d.observer.Connected(l.name), try)
	d.phase = func() {
		if d.observer.Done() && d.now()-d.lastActivity >= d.cfg.Timeout {
			d.endLink(l, "close", false)
			d.phase = func() {
				if d.live == 0 {
					d.finish(traces.EndQuiet)
				}
			}
		}
	}
}

func (d *driver) applyObserver(l *rlink, outs []client.Output, try int) {
	for _, o := range outs {
		switch o.Kind {
		case client.OutSend:
			note := ""
			if o.Probe {
				note = traces.NoteProbe
			}
			d.c2a(l, o.Frame, "", note)
		case client.OutHangup:
			d.endLink(l, "hangup", false)
			if try < maxObserverTries {
				d.after(d.cfg.Backoff, func() { d.observe(try + 1) })
			} else {
				d.phase = func() {
					if d.live == 0 {
						d.finish(traces.EndCap)
					}
				}
			}
		}
	}
}

// liveIDPrefix starts the ids of the observer's requests on a Client's
// live connection: strings, where the Clients number theirs.
const liveIDPrefix = "acpsim-observer-"

// had notes that l's Agent process has session id for l's Client.
func (l *rlink) had(id string) {
	if !slices.Contains(l.sessions, id) {
		l.sessions = append(l.sessions, id)
	}
}

// readLive starts, on every Client connection whose Agent process still
// runs, an observer that reads back the sessions that process made or
// resumed, before the connection is closed and the process ends: an Agent
// that keeps sessions in memory shows them nowhere else. Its first frame
// on a connection is noted traces.NoteObserve, which hands the connection
// to the observer in the checker's eyes. It reports whether any read
// started; done runs once every one has finished (or StartTimeout passed).
func (d *driver) readLive(done func()) bool {
	if len(d.cfg.URLs) > 0 {
		return false // a new connection reaches the same server process
	}
	var reading []*rlink
	for _, l := range d.links {
		if !l.alive || l.cn == nil || l.proc == nil || !l.initAnswered || len(l.sessions) == 0 || l.proc.Status() != "" {
			continue
		}
		l.live = client.NewObserver("/")
		l.live.Protocol = d.cfg.Protocol
		d.applyLive(l, l.live.ReadLive(l.name, liveIDPrefix, l.sessions))
		reading = append(reading, l)
	}
	if len(reading) == 0 {
		return false
	}
	until := time.Now().Add(d.cfg.StartTimeout)
	d.phase = func() {
		for _, l := range reading {
			if l.alive && !l.live.Done() && time.Now().Before(until) {
				return
			}
		}
		if d.now()-d.lastActivity >= d.cfg.Timeout || time.Now().After(until) {
			done()
		}
	}
	return true
}

func (d *driver) applyLive(l *rlink, outs []client.Output) {
	for _, o := range outs {
		if o.Kind != client.OutSend {
			continue // a hang-up: the reading of l is over
		}
		note := traces.NoteObserve
		if o.Probe {
			note = traces.NoteProbe
		}
		d.c2a(l, o.Frame, "", note)
	}
}

// knownSessions are the sessions the Agent made for this seed's Clients,
// sorted: what the observer reads when the Agent has no session/list.
func (d *driver) knownSessions() []string {
	out := make([]string, 0, len(d.sessions))
	for id := range d.sessions {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
