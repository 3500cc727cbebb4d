// This file holds SpeakV1: a model Agent that speaks ACP v1 on the wire over
// a v2 model Agent. v1 is what most published software speaks today and the
// status quo the RFD replaces: no idempotencyKey, no messageId in the
// prompt's answer, which comes only when the turn ends, and history read
// back through session/load's replay. Translating at the edge keeps one
// model of sessions, storage and crashes for both versions, so a matrix
// compares them on the same seeds.

package agent

import (
	"encoding/json"

	"github.com/acpsim/acpsim/actors/acp"
)

// v1Methods are the methods the v1 Agent serves; any other is -32601, as a
// v1 Agent that never heard of it answers.
var v1Methods = map[string]bool{
	acp.MethodInitialize: true, acp.MethodSessionNew: true, acp.MethodSessionLoad: true,
	acp.MethodSessionPrompt: true, acp.MethodSessionCancel: true, acp.MethodCancelRequest: true,
	acp.MethodSessionList: true, acp.MethodSessionClose: true, acp.MethodSessionDelete: true,
}

// speakV1 translates between a v1 peer and a v2 model Agent.
type speakV1 struct {
	inner       Machine
	loadSession bool
	// negotiate: a connection whose Client asks for v2 in initialize is
	// served v2 as it is (protocol=negotiate); otherwise every connection
	// is v1.
	negotiate bool
	conns     map[string]*v1Conn
	// turns: per session, the user messages whose turn has started (their
	// user_message went out) and not ended; ended: messages whose turn
	// ended, with its stop reason, for an answer that comes after it.
	turns map[string][]string
	ended map[string]string
	// waiting are the prompts answered by the v2 Agent (by messageId) whose
	// v1 answer waits for the end of the message's turn.
	waiting map[string][]v1Waiter
}

type v1Waiter struct {
	conn string
	id   acp.ID
}

// v1Conn is what the translation remembers of one connection: the method
// of each request it read (an answer is translated by its request's
// method), and the sessions a session/load is replaying.
type v1Conn struct {
	// v2: the Client asked for v2 and the Agent negotiates: its frames
	// pass as they are.
	v2      bool
	methods map[acp.ID]string
	loading map[acp.ID]string // session/load request → its session
}

// SpeakV1 returns m speaking ACP v1 to its peers. loadSession is whether it
// offers session/load (history replayed); without it, a session outlives
// its connection only for the Agent.
func SpeakV1(m Machine, loadSession bool) Machine {
	return newSpeakV1(m, loadSession, false)
}

// Negotiate returns m speaking to each connection the version its Client
// asks for in initialize: v1 to a v1 Client (protocolVersion 1, or v1's
// field names), v2 to the others, as the spec's negotiation has an Agent
// that supports both answer.
func Negotiate(m Machine, loadSession bool) Machine {
	return newSpeakV1(m, loadSession, true)
}

func newSpeakV1(m Machine, loadSession, negotiate bool) *speakV1 {
	return &speakV1{inner: m, loadSession: loadSession, negotiate: negotiate, conns: map[string]*v1Conn{},
		turns: map[string][]string{}, ended: map[string]string{}, waiting: map[string][]v1Waiter{}}
}

func (v *speakV1) Connect(conn string) []Output {
	v.conns[conn] = &v1Conn{methods: map[acp.ID]string{}, loading: map[acp.ID]string{}}
	return v.out(v.inner.Connect(conn))
}

func (v *speakV1) Disconnect(conn string) []Output {
	delete(v.conns, conn)
	return v.out(v.inner.Disconnect(conn))
}

func (v *speakV1) Timer(id int) []Output { return v.out(v.inner.Timer(id)) }

// Receive translates a v1 request into the v2 Agent's terms. A batch or a
// line that is not one message goes through as it is: the v2 Agent's
// answer to garbage is the same in v1.
func (v *speakV1) Receive(conn string, frame []byte) []Output {
	c := v.conns[conn]
	line := acp.ParseLine(frame)
	if c == nil || line.Batch || len(line.Entries) != 1 || line.Entries[0].Err != nil {
		return v.out(v.inner.Receive(conn, frame))
	}
	m := line.Entries[0].Msg
	if m.Method == acp.MethodInitialize && v.negotiate {
		c.v2 = !acp.ReadPeerVersion(m.Params).V1
	}
	if c.v2 {
		return v.out(v.inner.Receive(conn, frame))
	}
	if m.Kind() == acp.KindRequest {
		if !v1Methods[m.Method] || m.Method == acp.MethodSessionLoad && !v.loadSession {
			return []Output{{Kind: OutSend, Step: "respond-error", Conn: conn,
				Frame: acp.ErrorResponse(m.ID, acp.Errorf(acp.CodeMethodNotFound, "method not found: %s", m.Method))}}
		}
		c.methods[m.ID] = m.Method
	}
	switch m.Method {
	case acp.MethodInitialize:
		var p acp.InitializeParamsV1
		_ = json.Unmarshal(m.Params, &p)
		info := acp.Implementation{Name: "v1-client", Version: "0"}
		if p.ClientInfo != nil {
			info = *p.ClientInfo
		}
		// Whatever version the Client asked for, this Agent speaks 1: the
		// spec's negotiation answers the Agent's latest, and a Client that
		// cannot speak it disconnects.
		frame = acp.Request(m.ID, m.Method, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion, Info: info})
	case acp.MethodSessionLoad:
		var p acp.LoadSessionParams
		if e := acp.DecodeParams(m.Params, &p); e != nil {
			return []Output{{Kind: OutSend, Step: "respond-error", Conn: conn, Frame: acp.ErrorResponse(m.ID, e)}}
		}
		c.loading[m.ID] = p.SessionID
		frame = acp.Request(m.ID, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: p.SessionID, Cwd: p.Cwd, ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}})
	case acp.MethodSessionPrompt:
		var p map[string]json.RawMessage
		if json.Unmarshal(m.Params, &p) == nil {
			if _, ok := p["idempotencyKey"]; ok {
				delete(p, "idempotencyKey") // a v1 Agent does not know the field
				frame = acp.Request(m.ID, m.Method, p)
			}
		}
	}
	return v.out(v.inner.Receive(conn, frame))
}

// out translates the v2 Agent's outputs into v1.
func (v *speakV1) out(outs []Output) []Output {
	res := outs[:0:0]
	for _, o := range outs {
		switch o.Kind {
		case OutSend:
			res = v.send(res, o)
		case OutInsert:
			// A turn starts with its message's insertion, which is
			// noted whether or not a connection hears of it.
			v.turns[o.Session] = append(v.turns[o.Session], o.MessageID)
			res = append(res, o)
		case OutTurnEnd:
			res = v.endTurn(res, o.Session, o.Text)
		default:
			res = append(res, o)
		}
	}
	return res
}

func (v *speakV1) send(res []Output, o Output) []Output {
	line := acp.ParseLine(o.Frame)
	if line.Batch || len(line.Entries) != 1 || line.Entries[0].Err != nil {
		return append(res, o)
	}
	m := line.Entries[0].Msg
	c := v.conns[o.Conn]
	if c != nil && c.v2 {
		return append(res, o)
	}
	switch m.Kind() {
	case acp.KindResponse:
		if c == nil {
			return append(res, o)
		}
		method := c.methods[m.ID]
		delete(c.methods, m.ID)
		_, loading := c.loading[m.ID]
		delete(c.loading, m.ID)
		if m.Error != nil {
			if method == acp.MethodSessionPrompt && m.Error.Code == acp.CodeRequestCancelled {
				// v1 answers a cancelled prompt with a stop reason, not
				// an error, whether or not its message went in.
				o.Frame = acp.Result(m.ID, acp.PromptResultV1{StopReason: acp.StopCancelled})
			}
			return append(res, o)
		}
		switch {
		case method == acp.MethodInitialize:
			var r acp.InitializeResult
			_ = json.Unmarshal(m.Result, &r)
			info := r.Info
			o.Frame = acp.Result(m.ID, acp.InitializeResultV1{ProtocolVersion: acp.ProtocolV1, AgentInfo: &info, AuthMethods: []acp.AuthMethod{},
				AgentCapabilities: acp.AgentCapabilitiesV1{LoadSession: v.loadSession, SessionCapabilities: &acp.SessionCapabilitiesV1{List: &struct{}{}, Close: &struct{}{}, Delete: &struct{}{}}}})
		case loading:
			o.Frame = acp.Result(m.ID, struct{}{})
		case method == acp.MethodSessionPrompt:
			var r acp.PromptResult
			if json.Unmarshal(m.Result, &r) != nil || r.MessageID == "" {
				return append(res, o)
			}
			if stop, ok := v.ended[r.MessageID]; ok {
				o.Frame = acp.Result(m.ID, acp.PromptResultV1{StopReason: stop})
				return append(res, o)
			}
			// v1 answers a prompt when its turn ends.
			v.waiting[r.MessageID] = append(v.waiting[r.MessageID], v1Waiter{o.Conn, m.ID})
			return res
		}
		return append(res, o)
	case acp.KindNotification:
		if m.Method != acp.MethodSessionUpdate {
			return append(res, o)
		}
		var p acp.SessionUpdateParams
		if json.Unmarshal(m.Params, &p) != nil {
			return append(res, o)
		}
		return v.update(res, o, c, p)
	}
	return append(res, o)
}

// update translates a session/update: replayed messages become v1 chunks,
// a live user message marks its turn started (v1 does not echo it), an
// idle state ends the turns started and answers their prompts.
func (v *speakV1) update(res []Output, o Output, c *v1Conn, p acp.SessionUpdateParams) []Output {
	u := p.Update
	replaying := c != nil && c.replays(p.SessionID)
	// A v1 chunk may carry its message's id (the v1 schema's
	// ContentChunk.messageId); this Agent gives it, so that two user
	// messages replayed back to back do not read as one.
	chunk := func(kind string, blocks json.RawMessage) []Output {
		var bs []json.RawMessage
		if len(blocks) > 0 && blocks[0] == '[' {
			_ = json.Unmarshal(blocks, &bs)
		} else if len(blocks) > 0 {
			bs = []json.RawMessage{blocks}
		}
		for _, b := range bs {
			f := acp.UpdateFrame(p.SessionID, acp.Update{Kind: kind, MessageID: u.MessageID, Content: b})
			res = append(res, Output{Kind: OutSend, Step: o.Step, Conn: o.Conn, Frame: f})
		}
		return res
	}
	switch u.Kind {
	case acp.UpdateUserMessage:
		if replaying {
			return chunk(acp.UpdateUserMessageChunk, u.Content)
		}
		return res // v1 does not echo the user's message
	case acp.UpdateAgentMessage:
		return chunk(acp.UpdateAgentMessageChunk, u.Content)
	case acp.UpdateAgentMessageChunk:
		return chunk(acp.UpdateAgentMessageChunk, u.Content)
	}
	return res // v2's other updates (state_update among them) have no v1 counterpart here
}

// endTurn ends the turns started in session and answers their v1 prompts
// with the stop reason.
func (v *speakV1) endTurn(res []Output, session, stop string) []Output {
	if stop == "" {
		stop = acp.StopEndTurn
	}
	for _, msg := range v.turns[session] {
		v.ended[msg] = stop
		for _, w := range v.waiting[msg] {
			if _, open := v.conns[w.conn]; open {
				res = append(res, Output{Kind: OutSend, Step: "respond-prompt", Conn: w.conn, Frame: acp.Result(w.id, acp.PromptResultV1{StopReason: stop})})
			}
		}
		delete(v.waiting, msg)
	}
	delete(v.turns, session)
	return res
}

// replays says whether a session/load of session is being answered.
func (c *v1Conn) replays(session string) bool {
	for _, s := range c.loading {
		if s == session {
			return true
		}
	}
	return false
}
