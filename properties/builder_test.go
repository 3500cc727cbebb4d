package properties

import (
	"encoding/json"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// tb builds a trace by hand: each call appends events 100µs apart, numbered
// from 1, as the simulator would write them. Frame helpers send and deliver
// at once unless their name says otherwise.
type tb struct {
	h   traces.Header
	evs []traces.Event
	t   int64
	ids map[string]int64
}

func newTB(retention string) *tb {
	return &tb{
		h:   traces.Header{Format: traces.FormatVersion, Contract: traces.Contract{Retention: retention}, KeyLengthUnit: acp.KeyLengthUnit},
		ids: map[string]int64{},
	}
}

func (b *tb) add(e traces.Event) int64 {
	b.t += 100
	e.T, e.Seq = b.t, int64(len(b.evs)+1)
	b.evs = append(b.evs, e)
	return e.Seq
}

func ends(link string) (client, agent string) {
	i := strings.IndexByte(link, '>')
	return link[:i], link[i+1:]
}

func (b *tb) frameEvent(kind, link, dir, frame, sub, note string) int64 {
	from, to := ends(link)
	if dir == traces.AgentToClient {
		from, to = to, from
	}
	return b.add(traces.Event{Kind: kind, Link: link, From: from, To: to, Dir: dir, Frame: frame, Sub: sub, Note: note})
}

func (b *tb) send(link, dir string, frame []byte, sub string) {
	b.frameEvent(traces.KindSend, link, dir, string(frame), sub, "")
}

func (b *tb) deliver(link, dir string, frame []byte, sub string) {
	b.frameEvent(traces.KindDeliver, link, dir, string(frame), sub, "")
}

func (b *tb) c2a(link string, frame []byte, sub string) {
	b.send(link, traces.ClientToAgent, frame, sub)
	b.deliver(link, traces.ClientToAgent, frame, sub)
}

func (b *tb) a2c(link string, frame []byte) {
	b.send(link, traces.AgentToClient, frame, "")
	b.deliver(link, traces.AgentToClient, frame, "")
}

func (b *tb) nextID(link string) acp.ID {
	b.ids[link]++
	return acp.NumID(b.ids[link])
}

// connect brings a link up and runs initialize over it.
func (b *tb) connect(link string) {
	client, agent := ends(link)
	b.add(traces.Event{Kind: traces.KindConnect, Link: link, From: client, To: agent})
	id := b.nextID(link)
	b.c2a(link, acp.Request(id, acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion}), "")
	b.a2c(link, acp.Result(id, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion}))
}

func (b *tb) disconnect(link, note string) {
	b.add(traces.Event{Kind: traces.KindDisconnect, Link: link, Note: note})
}

func (b *tb) kill(proc string) {
	b.add(traces.Event{Kind: traces.KindKill, From: proc, Note: "after insert"})
}

func (b *tb) restart(proc string) {
	b.add(traces.Event{Kind: traces.KindRestart, From: proc})
}

func (b *tb) submit(client, sub, text string) {
	b.add(traces.Event{Kind: traces.KindSubmit, Client: client, Sub: sub, Text: text})
}

func (b *tb) outcome(client, sub, outcome, msgID string) {
	b.add(traces.Event{Kind: traces.KindOutcome, Client: client, Sub: sub, Outcome: outcome, MessageID: msgID})
}

// Bookkeeping events, which the checker must not need.
func (b *tb) insert(session, msgID, text string) {
	b.add(traces.Event{Kind: traces.KindInsert, Session: session, MessageID: msgID, Text: text})
}

func (b *tb) choose(site string) {
	b.add(traces.Event{Kind: traces.KindChoose, Decision: "fault", Site: site, Option: 1})
}

func (b *tb) timer(to string) {
	b.add(traces.Event{Kind: traces.KindTimer, To: to, Note: "timeout"})
}

// promptFrame encodes a session/prompt; key is nil (omitted), a string, or
// raw JSON (json.RawMessage) for malformed keys.
func promptFrame(id acp.ID, session, text string, key any) []byte {
	p := acp.PromptParams{SessionID: session, Prompt: []acp.ContentBlock{acp.Text(text)}}
	switch k := key.(type) {
	case string:
		p.IdempotencyKey = acp.KeyJSON(k)
	case json.RawMessage:
		p.IdempotencyKey = k
	}
	return acp.Request(id, acp.MethodSessionPrompt, p)
}

// prompt sends and delivers a prompt request of sub and returns its id.
func (b *tb) prompt(link, sub, session, text string, key any) acp.ID {
	id := b.nextID(link)
	b.c2a(link, promptFrame(id, session, text, key), sub)
	return id
}

func msgResult(id acp.ID, msgID string) []byte {
	return acp.Result(id, acp.PromptResult{MessageID: msgID})
}

func (b *tb) answer(link string, id acp.ID, msgID string) { b.a2c(link, msgResult(id, msgID)) }

func (b *tb) fail(link string, id acp.ID, code int) {
	b.a2c(link, acp.ErrorResponse(id, acp.Errorf(code, "error %d", code)))
}

func updFrame(session string, u acp.Update) []byte {
	return acp.Notification(acp.MethodSessionUpdate, acp.SessionUpdateParams{SessionID: session, Update: u})
}

func (b *tb) userMsg(link, session, msgID, text string) {
	b.a2c(link, updFrame(session, acp.MessageUpdate(acp.UpdateUserMessage, msgID, text)))
}

func (b *tb) state(link, session, st string) {
	stop := ""
	if st == acp.StateIdle {
		stop = "end_turn"
	}
	b.a2c(link, updFrame(session, acp.StateUpdate(st, stop)))
}

// turn is the work after an insertion: running, output, idle.
func (b *tb) turn(link, session, outID string) {
	b.state(link, session, acp.StateRunning)
	b.a2c(link, updFrame(session, acp.MessageUpdate(acp.UpdateAgentMessage, outID, "done")))
	b.state(link, session, acp.StateIdle)
}

// resume has a Client resume session on link without replay: snapshot, answer.
func (b *tb) resume(link, session string) {
	id := b.nextID(link)
	b.c2a(link, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: session, Cwd: "/w"}), "")
	b.state(link, session, acp.StateIdle)
	b.a2c(link, acp.Result(id, nil))
}

// msg is one user message of a replayed transcript; with chunks set the Agent
// replays it as user_message_chunks instead of one whole update.
type msg struct {
	id, text string
	chunks   []string
}

// sess is what the Agent replays for one session.
type sess struct {
	id   string
	msgs []msg
}

// observe is the heal phase and the observer's reading of proc: list, then a
// replaying resume per session; then the simulator closes links and ends.
func (b *tb) observe(proc string, sessions ...sess) {
	listed := make([]string, len(sessions))
	for i, s := range sessions {
		listed[i] = s.id
	}
	b.listAndRead(proc, listed, sessions...)
}

// listAndRead is the observer's reading of proc whose session/list names
// listed, then a replaying resume of each of read.
func (b *tb) listAndRead(proc string, listed []string, read ...sess) {
	b.add(traces.Event{Kind: traces.KindHeal})
	link := traces.Observer + ">" + proc
	b.connect(link)
	id := b.nextID(link)
	b.c2a(link, acp.Request(id, acp.MethodSessionList, acp.ListSessionsParams{}), "")
	var infos []acp.SessionInfo
	for _, S := range listed {
		infos = append(infos, acp.SessionInfo{SessionID: S, Cwd: "/w"})
	}
	b.a2c(link, acp.Result(id, acp.ListSessionsResult{Sessions: infos}))
	for _, s := range read {
		id := b.nextID(link)
		b.c2a(link, acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: s.id, Cwd: "/w", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}), "")
		for _, m := range s.msgs {
			if m.chunks == nil {
				b.userMsg(link, s.id, m.id, m.text)
			}
			for _, c := range m.chunks {
				b.a2c(link, updFrame(s.id, acp.ChunkUpdate(acp.UpdateUserMessageChunk, m.id, c)))
			}
		}
		b.state(link, s.id, acp.StateIdle)
		b.a2c(link, acp.Result(id, nil))
	}
}

// finish closes the links still up, in order, and ends the run.
func (b *tb) finish(note string, links ...string) {
	for _, l := range links {
		b.disconnect(l, "close")
	}
	b.add(traces.Event{Kind: traces.KindEnd, Note: note})
}

// check judges the trace. Every scenario is judged twice: as Check judges
// it, hashing every string, and as the simulator's checker does, its
// handles from a run's register (UseNames: every id and text registered on
// sight, since no actor minted them); the two reports must be the same.
func (b *tb) check() *Report {
	r := Check(b.h, b.evs)
	c := NewBorrowingChecker(b.h, len(b.evs))
	c.UseNames(sim.NewNames())
	for i := range b.evs {
		c.Add(&b.evs[i])
	}
	if got, want := dump(c.Finish()), dump(r); got != want {
		panic("the report with a run's register differs from Check's:\n" + got + "\nCheck's:\n" + want)
	}
	return r
}

func stripBookkeeping(evs []traces.Event) []traces.Event {
	var out []traces.Event
	for _, e := range evs {
		if !traces.Bookkeeping[e.Kind] {
			out = append(out, e)
		}
	}
	return out
}

// sameT makes the next event happen at the time of the last one: same-time
// events are ordered by Seq alone.
func (b *tb) sameT() { b.t -= 100 }

func cancelFrame(session string) []byte {
	return acp.Notification(acp.MethodSessionCancel, acp.SessionParams{SessionID: session})
}

func cancelRequestFrame(id acp.ID) []byte {
	return acp.Notification(acp.MethodCancelRequest, acp.CancelRequestParams{RequestID: id})
}

// closeFrame encodes a session/close request with the link's next id.
func (b *tb) closeFrame(link, session string) (acp.ID, []byte) {
	id := b.nextID(link)
	return id, acp.Request(id, acp.MethodSessionClose, acp.SessionParams{SessionID: session})
}
