package client

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

// Observer is the checker's own Client. After a run has healed it connects,
// lists every session (all pages) and resumes each with replay from the
// start; the user messages it receives are the final transcript. It keeps no
// state the checker relies on: the checker reads its frames from the trace.
type Observer struct {
	conn    string
	nextReq int64
	reqs    map[acp.ID]obsReq
	cwd     string
	retries int
	// probe is a session to send malformed keys to once every read is done;
	// each must be refused with -32602 (the checker's bad-reply rule).
	probe  string
	probed bool
	out    []Output
	digs   acp.Digests // the digests of out's frames
	open   int
	// Only, when set, limits the reading to the sessions it accepts: a real
	// Agent's store may also hold sessions of other runs.
	Only func(sessionID string) bool
	// idPrefix, when set, makes its request ids strings (ReadLive).
	idPrefix string
	// Protocol is the ACP version it speaks (Config.Protocol): in v1 it
	// reads each session with session/load and sends no malformed keys.
	Protocol int
	// Known, when set, are the sessions to read if the Agent has no
	// session/list (-32601): optional in ACP v1, so a v1 Agent without it
	// is read by the sessions its Clients were given.
	Known func() []string
	// Canonical, when set, gives a session id read from a list as the
	// run's own string of it (Env.Canonical).
	Canonical func(id string) string
}

// NewObserver returns an observer that resumes sessions with working directory cwd.
func NewObserver(cwd string) *Observer { return &Observer{reqs: map[acp.ID]obsReq{}, cwd: cwd} }

// Done reports whether every request it sent has been answered.
func (o *Observer) Done() bool { return o.open == 0 && o.conn != "" }

// obsReq is an outstanding observer request: its tag ("init", "list" or
// the session being resumed) and what to send again after a transient error.
type obsReq struct {
	tag    string
	method string
	params any
}

// maxRetries bounds the observer's resends of list and resume, which are
// safe to send again as they are.
const maxRetries = 5

func (o *Observer) request(tag, method string, params any) {
	o.nextReq++
	id := acp.NumID(o.nextReq)
	if o.idPrefix != "" {
		id = acp.StrID(o.idPrefix + strconv.FormatInt(o.nextReq, 10))
	}
	o.reqs[id] = obsReq{tag, method, params}
	o.open++
	out := Output{Kind: OutSend, Conn: o.conn}
	if o.Protocol == acp.ProtocolV1 {
		method, params = v1Params(method, params)
		out.Frame = acp.Request(id, method, params)
	} else {
		var d acp.Digest
		out.Frame, d = acp.RequestDigest(id, method, params)
		out.Digest = o.digs.Keep(out.Frame, d)
	}
	o.out = append(o.out, out)
}

func (o *Observer) flush() []Output {
	out := o.out
	o.out = nil
	return out
}

// Connected starts the reading.
func (o *Observer) Connected(conn string) []Output {
	o.conn = conn
	o.request("init", acp.MethodInitialize, acp.InitializeParams{
		ProtocolVersion: acp.ProtocolVersion,
		Info:            acp.Implementation{Name: "acpsim-observer", Version: "0"},
		Capabilities:    json.RawMessage(`{}`),
	})
	return o.flush()
}

// ReadLive starts reading on conn, a connection a Client opened and
// initialized whose Agent process still runs: an Agent that keeps its
// sessions in memory can show their transcripts only there, before the
// process ends ("session/resume of an active session synchronizes it
// again", RFD). It resumes each of sessions with replay from the start
// (no initialize, no list: the Client did the one, and the process may
// know sessions of other Clients), and probes malformed keys after, as
// Connected does. Its request ids are strings made of idPrefix and a
// count, so none repeats an id the Client sent on conn.
func (o *Observer) ReadLive(conn, idPrefix string, sessions []string) []Output {
	o.conn, o.idPrefix = conn, idPrefix
	for _, s := range sessions {
		o.request(s, acp.MethodSessionResume, acp.ResumeSessionParams{
			SessionID: s, Cwd: o.cwd, ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart},
		})
	}
	return o.flush()
}

// Receive handles the Agent's answers.
func (o *Observer) Receive(conn string, frame []byte) []Output {
	return o.ReceiveDigest(conn, frame, nil)
}

// ReceiveDigest is Receive of a frame with the digest its sender made (nil
// for none), read from the digest where it can be (acp.Digest.Message).
func (o *Observer) ReceiveDigest(conn string, frame []byte, d *acp.Digest) []Output {
	if acp.IsUpdateFrame(frame) {
		// A replay is mostly updates, which the observer leaves to the
		// checker (it reads them in the trace): no need to decode them.
		return nil
	}
	var one [1]acp.Parsed
	var entries []acp.Parsed
	if m, ok := d.Message(frame); ok {
		one[0].Msg = m
		entries = one[:]
	} else {
		entries = acp.ParseLine(frame).Entries
	}
	for _, e := range entries {
		if e.Err != nil || e.Msg.Kind() != acp.KindResponse {
			continue
		}
		r, ok := o.reqs[e.Msg.ID]
		if !ok {
			continue
		}
		delete(o.reqs, e.Msg.ID)
		o.open--
		if e.Msg.Error != nil {
			switch {
			case r.tag == "list" && e.Msg.Error.Code == acp.CodeMethodNotFound && o.Known != nil:
				for _, s := range o.Known() {
					o.read(s)
				}
			case r.tag == "init" || r.tag == "login":
				// initialize is not sent twice on a connection: ask for a new one.
				o.out = append(o.out, Output{Kind: OutHangup, Conn: o.conn})
			case e.Msg.Error.Code == acp.CodeInternalError && o.retries < maxRetries:
				o.retries++
				o.request(r.tag, r.method, r.params)
			}
			continue
		}
		switch r.tag {
		case "probe":
		case "init":
			if methods := acp.AuthMethodsOf(e.Msg.Result); len(methods) > 0 {
				o.request("login", acp.MethodAuthLogin, acp.LoginParams{MethodID: methods[0].MethodID})
				continue
			}
			o.request("list", acp.MethodSessionList, acp.ListSessionsParams{})
		case "login":
			o.request("list", acp.MethodSessionList, acp.ListSessionsParams{})
		case "list":
			var res acp.ListSessionsResult
			if json.Unmarshal(e.Msg.Result, &res) != nil {
				continue
			}
			for _, s := range res.Sessions {
				if o.Only != nil && !o.Only(s.SessionID) {
					continue
				}
				o.read(orSelf(o.Canonical, s.SessionID))
			}
			if res.NextCursor != nil {
				o.request("list", acp.MethodSessionList, acp.ListSessionsParams{Cursor: res.NextCursor})
			}
		default: // a session resumed
			if o.probe == "" {
				o.probe = r.tag
			}
		}
	}
	if o.open == 0 && o.probe != "" && !o.probed && o.Protocol != acp.ProtocolV1 {
		o.probed = true
		for _, key := range MalformedKeys {
			o.request("probe", acp.MethodSessionPrompt, acp.PromptParams{
				SessionID: o.probe, Prompt: []acp.ContentBlock{acp.Text("acpsim probe: this key is malformed")}, IdempotencyKey: key,
			})
			o.out[len(o.out)-1].Probe = true
		}
	}
	return o.flush()
}

// read resumes session with replay from the start.
func (o *Observer) read(session string) {
	o.request(session, acp.MethodSessionResume, acp.ResumeSessionParams{
		SessionID: session, Cwd: o.cwd, ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart},
	})
}

// MalformedKeys are idempotencyKey values an Agent must refuse with -32602
// and never treat as omitted: empty, too long, not a string.
var MalformedKeys = []json.RawMessage{
	json.RawMessage(`""`),
	acp.KeyJSON(strings.Repeat("k", acp.MaxKeyLength+1)),
	json.RawMessage(`5`),
	json.RawMessage(`{"key":"k"}`),
}
