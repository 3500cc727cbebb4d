// The observer of an acpsim check run: once the Clients have stopped, a
// fresh connection reads the transcript of the run's sessions back.

package realmode

import (
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
	d.observer.Only = func(id string) bool { return d.sessions[id] }
	d.applyObserver(l, d.observer.Connected(l.name), try)
	d.phase = func() {
		if d.observer.Done() && time.Since(d.lastActivity) >= d.cfg.Timeout {
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
