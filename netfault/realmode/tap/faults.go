// The faults acpsim tap injects: the Agent killed as it answers a prompt
// (inserted, never answered) and a prompt lost with the pipe (never
// inserted). Both end the Agent process, as a crash on stdio does; the
// Client sees its connection break and must recover.

package tap

import (
	"math/rand/v2"
	"os"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// tapInjector decides, frame by frame, whether the tap passes it; both
// directions' goroutines call it, under the recorder's lock, so a frame's
// decision and its events are one step of the trace.
type tapInjector struct {
	f       Faults
	rec     *tapRecorder
	kill    func() // SIGKILL to the Agent and what it started
	rng     *rand.Rand
	prompts map[acp.ID]bool // session/prompt requests passed to the Agent, not answered
	dead    bool
}

func newTapInjector(f Faults, rec *tapRecorder, kill func()) *tapInjector {
	return &tapInjector{f: f, rec: rec, kill: kill, rng: rand.New(rand.NewPCG(f.Seed, uint64(rec.n))), prompts: map[acp.ID]bool{}}
}

func (t *tapInjector) on() bool { return t.f.Kill > 0 || t.f.Cut > 0 }

// passC2A records a Client frame and says whether it goes on to the Agent.
func (t *tapInjector) passC2A(line []byte) bool {
	t.rec.mu.Lock()
	defer t.rec.mu.Unlock()
	if t.dead {
		return false
	}
	if !t.on() {
		t.rec.frameLocked(traces.ClientToAgent, line)
		return true
	}
	id, prompt := promptRequest(line)
	if prompt && t.rng.Float64() < t.f.Cut {
		t.rec.dropLocked(traces.ClientToAgent, line, "cut: the pipe broke before the Agent read the prompt")
		t.killLocked("cut")
		return false
	}
	t.rec.frameLocked(traces.ClientToAgent, line)
	if prompt {
		t.prompts[id] = true
	}
	return true
}

// passA2C records an Agent frame and says whether it goes on to the Client.
func (t *tapInjector) passA2C(line []byte) bool {
	t.rec.mu.Lock()
	defer t.rec.mu.Unlock()
	if t.dead {
		return false
	}
	if !t.on() {
		t.rec.frameLocked(traces.AgentToClient, line)
		return true
	}
	l := acp.ParseLine(trimEOL(line))
	if !l.Batch && l.Entries[0].Err == nil && l.Entries[0].Msg.Kind() == acp.KindResponse && t.prompts[l.Entries[0].Msg.ID] {
		delete(t.prompts, l.Entries[0].Msg.ID)
		if t.rng.Float64() < t.f.Kill {
			t.rec.dropLocked(traces.AgentToClient, line, "kill: the Agent died as it answered the prompt")
			t.killLocked("after answering a prompt, before the answer left the pipe")
			return false
		}
	}
	t.rec.frameLocked(traces.AgentToClient, line)
	return true
}

func (t *tapInjector) killLocked(where string) {
	t.dead = true
	t.kill()
	t.rec.addLocked(traces.Event{Kind: traces.KindKill, From: t.rec.proc, Note: where})
}

func (t *tapInjector) killed() bool {
	t.rec.mu.Lock()
	defer t.rec.mu.Unlock()
	return t.dead
}

// promptRequest is the id of a session/prompt request line.
func promptRequest(line []byte) (acp.ID, bool) {
	l := acp.ParseLine(trimEOL(line))
	if l.Batch || l.Entries[0].Err != nil {
		return "", false
	}
	m := l.Entries[0].Msg
	return m.ID, m.Kind() == acp.KindRequest && m.Method == acp.MethodSessionPrompt
}

// dropLocked records a frame the tap sent on and then lost: the Client
// (or the Agent) wrote it, it never arrived.
func (r *tapRecorder) dropLocked(dir string, line []byte, why string) {
	from, to := r.client, r.proc
	if dir == traces.AgentToClient {
		from, to = to, from
	}
	e := traces.Event{Kind: traces.KindSend, Link: r.link, From: from, To: to, Dir: dir, Frame: string(trimEOL(line))}
	if dir == traces.ClientToAgent {
		e.Sub = SubmissionOf(e.Frame, r.seq+1)
	}
	r.addLocked(e)
	e.Kind, e.Sub, e.Note = traces.KindDrop, "", why
	r.addLocked(e)
}

// SealTrace ends, in the trace, every link of a tap that was killed
// before it could record its end (a tap dies with the Client process that
// started it): a disconnect with note, so that judge reads those links as
// ended by a kill and not as a run stopped while busy.
func SealTrace(path, note string) error {
	log, err := traces.ReadFile(path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	w := traces.NewAppendWriter(f, log.Header.Format) // in the trace's own format
	for _, e := range sealEvents(log, note) {
		w.WriteEvent(&e)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sealEvents are the events that end, as killed, every link of log that
// has no end: a kill of its Agent and its disconnect, after log's last.
func sealEvents(log *traces.Log, note string) []traces.Event {
	open := map[string]traces.Event{}
	var order []string
	var lastT int64
	for _, e := range log.Events {
		lastT = max(lastT, e.T)
		switch e.Kind {
		case traces.KindConnect:
			open[e.Link] = e
			order = append(order, e.Link)
		case traces.KindDisconnect:
			delete(open, e.Link)
		}
	}
	var out []traces.Event
	seq := int64(len(log.Events))
	for _, link := range order {
		c, ok := open[link]
		if !ok {
			continue
		}
		out = append(out,
			traces.Event{T: lastT, Seq: seq + 1, Kind: traces.KindKill, From: c.To, Note: note},
			traces.Event{T: lastT, Seq: seq + 2, Kind: traces.KindDisconnect, Link: link, From: c.From, To: c.To, Note: note})
		seq += 2
	}
	return out
}
