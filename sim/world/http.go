package world

import (
	"encoding/json"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
)

// Streamable HTTP (--link http): each Client has one HTTPLink to its Agent
// installation's endpoint for the whole run; the Agent is a server process
// that serves every connection and is restarted by its supervisor when it
// dies. The Client model is the same as on stdio: it sees a connection come
// up (the initialize it POSTs creates it), frames arrive (from the SSE
// streams) and the connection go (404 or expiry). What HTTP adds is done
// here, as an HTTP client library would: open the connection's stream after
// the 200, a session's stream before its session/resume and after its
// session/new or session/fork, reopen a broken stream. A POST that got no
// answer is not resent here: the Client's timeout and retry policy decide.

// httpState is a Client's HTTP side.
type httpState struct {
	link     *netfault.HTTPLink
	conn     string     // the connection the Client believes it has, "" when none
	initPost int        // the POST of the initialize that creates conn
	node     *agentProc // the node serving the live connection
}

func (w *world) httpOf(cn *clientNode) *httpState {
	if cn.http != nil {
		return cn.http
	}
	hs := &httpState{}
	link := netfault.NewHTTPLink(cn.name+":http", cn.name, cn.agent.name, w.loop, w.choose, w, w.cfg.Latency)
	hs.link = link
	cn.http = hs
	gone := func() {
		if hs.conn == "" {
			return
		}
		conn := hs.conn
		hs.conn = ""
		if cn.c != nil {
			w.loop.After(w.cfg.Latency, func() {
				if cn.c != nil {
					w.applyClient(cn, cn.c.Disconnected(conn))
				}
			})
		}
	}
	link.OnStatus = func(post, status int) {
		switch {
		case post == hs.initPost && status == netfault.StatusOK:
			link.OpenStream("")
		case post == hs.initPost || status == netfault.StatusNotFound:
			gone() // the connection never came, or it is gone
		}
	}
	link.OnEvent = func(frame []byte, d *acp.Digest) {
		if sid := createdSession(frame, d); sid != "" {
			link.OpenStream(sid)
		}
		if cn.c != nil && hs.conn != "" {
			w.applyClient(cn, cn.c.ReceiveDigest(hs.conn, frame, w.toClient(d)))
		}
	}
	link.OnStreamClosed = func(session string) {
		w.loop.After(w.cfg.Latency, func() {
			if link.Connected() {
				link.OpenStream(session)
			}
		})
	}
	link.OnGone = gone
	server := func() *agentProc {
		if p := hs.node; p != nil && p.alive {
			return p
		}
		return nil
	}
	link.OnAgentConnect = func(conn string) {
		hs.node = w.route(cn, conn)
		p := hs.node
		if p == nil {
			w.loop.After(0, func() { link.AgentGone("refused") }) // nobody listens: the connection dies at once
			return
		}
		w.httpConns[conn] = cn
		w.applyAgent(p, p.m.Connect(conn))
	}
	link.ToAgent = func(conn string, frame []byte, d *acp.Digest) {
		if p := server(); p != nil {
			w.applyAgent(p, p.receive(conn, frame, d))
		}
	}
	link.OnAgentDisconnect = func(conn, _ string) {
		if p := server(); p != nil {
			w.applyAgent(p, p.m.Disconnect(conn))
		}
	}
	return hs
}

// httpConnect is a Client's OutConnect over HTTP: a connection exists once
// its initialize arrives, so the Client writes to the one that will be.
func (w *world) httpConnect(cn *clientNode) {
	hs := w.httpOf(cn)
	hs.conn = hs.link.NextConn()
	hs.initPost = -1
	w.applyClient(cn, cn.c.Connected(hs.conn))
}

// httpSend POSTs a Client frame.
func (w *world) httpSend(cn *clientNode, o client.Output) {
	hs := w.httpOf(cn)
	if o.Conn != hs.conn {
		return // written to a connection that is gone
	}
	r := netfault.HTTPRouteOf(o.Frame, o.Digest)
	if m := r.Method; !r.Batch && (m == acp.MethodSessionResume || m == acp.MethodSessionLoad) {
		// Decoded whole, not read off the route: params that do not decode
		// open no stream.
		var p acp.ResumeSessionParams
		if l := acp.ParseLine(o.Frame); acp.DecodeParams(l.Entries[0].Msg.Params, &p) == nil {
			hs.link.OpenStream(p.SessionID) // its replay comes on the session's stream
		}
	}
	n := hs.link.PostDigest(o.Frame, o.Sub, o.Digest)
	if !r.Batch && r.Method == acp.MethodInitialize {
		hs.initPost = n
	}
}

// createdSession is the sessionId a session/new or session/fork response
// names, "" for any other frame; d is the frame's digest, nil for none.
func createdSession(frame []byte, d *acp.Digest) string {
	if d.Describes(unsafe.String(unsafe.SliceData(frame), len(frame))) {
		// A digest holds every member of its frame: a result naming a
		// session has one, and only a response's result does.
		if d.Kind() == acp.KindResponse && !d.HasErr() {
			return d.Session()
		}
		return ""
	}
	if env, ok := acp.ScanEnvelope(unsafe.String(unsafe.SliceData(frame), len(frame))); ok && env.Result == "" {
		// No result (most of the Agent's frames are updates): nothing to
		// decode, as the decode below would find.
		return ""
	}
	l := acp.ParseLine(frame)
	if l.Batch || l.Entries[0].Err != nil || l.Entries[0].Msg.Kind() != acp.KindResponse || l.Entries[0].Msg.Error != nil {
		return ""
	}
	var r acp.NewSessionResult
	if json.Unmarshal(l.Entries[0].Msg.Result, &r) != nil {
		return ""
	}
	return r.SessionID
}
