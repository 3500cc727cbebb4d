package checkclient

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/acpsim/acpsim/properties/clientcheck"
	"github.com/acpsim/acpsim/traces"
)

// stallPoll is how often a submission waiting on a Client whose session
// is not set up yet looks at the trace.
const stallPoll = 200 * time.Millisecond

// setupStalled reads the trace written so far: stuck is set, with the one
// line saying where the set-up stopped, once StartTimeout passed since the
// trace first showed initialize answered and the Client's session is still
// not set up on the wire. The clock starts at that answer, not at the
// submission: a Client slow to start (a loaded machine, a runtime to boot)
// is not stuck, and one that never spoke waits --settle as before. A
// Client that got past session/new is never stalled here again (its slow
// turns are --settle's).
func (d *clientDriver) setupStalled() (stage string, stuck bool) {
	s := clientcheck.ReadSetup(liveFrames(d.res.Trace))
	switch {
	case s.SessionReady:
		d.ready = true
		return "", false
	case !s.Initialized:
		return "", false
	case d.initAt.IsZero():
		d.initAt = time.Now()
	}
	if time.Since(d.initAt) < d.c.StartTimeout {
		return "", false
	}
	return fmt.Sprintf("nothing answered the Client's session/new within --start-timeout %v of the answer to its initialize, so nothing was judged: %s", d.c.StartTimeout, s.Stage), true
}

// liveFrames reads the frames of a trace the tap is still writing, in
// either format: its send events up to a line not yet whole (or anything
// else that does not read), where it stops.
func liveFrames(trace string) []clientcheck.Frame {
	f, err := os.Open(trace)
	if err != nil {
		return nil
	}
	defer f.Close()
	d := traces.NewDecoder(f, trace)
	var out []clientcheck.Frame
	for {
		var e traces.Event
		if d.Next(&e) != nil {
			return out
		}
		if e.Kind == traces.KindSend {
			out = append(out, frameOf(e))
		}
	}
}

// frameOf is a send event as the judge reads it: its connection is the
// number after the link's '#' (the tap numbers its Agent processes).
func frameOf(e traces.Event) clientcheck.Frame {
	conn, _ := strconv.Atoi(e.Link[strings.LastIndexByte(e.Link, '#')+1:])
	return clientcheck.Frame{Conn: conn, Dir: e.Dir, Bytes: []byte(e.Frame), Seq: e.Seq}
}
