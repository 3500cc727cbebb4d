package netfault

import (
	"strconv"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// HTTP statuses the link reports through OnStatus. StatusNone is "no answer":
// the POST or its answer was lost and the Client cannot tell which.
const (
	StatusNone           = 0
	StatusOK             = 200
	StatusAccepted       = 202
	StatusBadRequest     = 400
	StatusNotFound       = 404
	StatusNotImplemented = 501
)

// ConnectionStreamMethods are the requests whose responses travel on the
// connection-scoped SSE stream even though their params name a session (the
// remote transport RFD's reconnect diagram sends the session/load response on
// the connection stream while the replay goes on the session stream). Every
// other request with a params.sessionId is answered on that session's stream.
var ConnectionStreamMethods = map[string]bool{
	acp.MethodSessionNew:    true,
	acp.MethodSessionResume: true,
	"session/load":          true,
	acp.MethodSessionFork:   true,
	acp.MethodSessionList:   true,
}

// HTTPLink is one Client's Streamable HTTP relationship with one Agent
// endpoint, at the message level (no sockets): POSTs to /acp, SSE streams from
// GET /acp and DELETE /acp. It hosts one connection (Acp-Connection-Id) at a
// time: an initialize POST creates one, expiry, DELETE or the Agent process
// going away ends it, and a later initialize creates the next one.
//
// Unlike a pipe, HTTP loses single messages: a POST can be lost before the
// Agent reads it (post-lost) or its 202 after (accepted-lost), an SSE stream
// can break and lose its events (stream-break), the connection id can expire
// (conn-expired). POSTs travel on separate requests and may overtake each
// other under delay; events on one SSE stream stay in order. An event written
// while its stream is not open is lost for good (no Last-Event-ID in scope).
//
// Every frame is recorded as send then deliver or drop: c2a for POST bodies
// (the deliver is the Agent reading it; Note is the status the Agent answered:
// "200", "202", or "202 lost"/"200 lost" under accepted-lost; a drop's Note is
// "post-lost", "400", "404", "501" or why the connection ended), a2c for SSE
// events and initialize's 200 body (Note "200"). connect is recorded when the
// Agent accepts an initialize (Note: the connection id), disconnect when the
// connection ends (Note: conn-expired, delete, superseded or the AgentGone
// reason).
//
// Like Pipe it runs on a sim.Loop, asks every fault through choose and starts
// no goroutine.
type HTTPLink struct {
	Name   string
	Client string // endpoint names, as traces show them
	Agent  string

	loop    *sim.Loop
	choose  func(sim.Decision) int
	rec     Recorder
	latency time.Duration

	conn     string // the live connection id; "" when there is none
	nconn    int    // connections created so far
	posts    int
	events   int
	reqs     map[acp.ID]httpReq
	streams  map[string]*sseStream
	order    []*sseStream // streams in the order they were opened
	inflight []*httpMsg   // in send order

	// Client side.
	// OnStatus is the HTTP status of POST number post (as Post returned):
	// 202, 200 for initialize (its body follows through OnEvent), 0 when no
	// answer came, 400/404/501 for a POST the endpoint refused.
	OnStatus func(post int, status int)
	// OnEvent is an SSE event, or the body of initialize's 200, arriving.
	OnEvent func(frame []byte)
	// OnStreamClosed is an SSE stream ending (it broke, its connection
	// ended, or the GET was refused): session "" is the connection stream.
	OnStreamClosed func(session string)
	// OnGone is the Client learning that its connection id is gone
	// (expired, deleted, or the Agent went away): every later request on
	// it gets 404 and the Client must initialize again.
	OnGone func()

	// Agent side.
	// OnAgentConnect is called with the new connection id just before the
	// Agent reads the initialize POST that creates it.
	OnAgentConnect func(conn string)
	// ToAgent is each POST body the Agent reads, with the Acp-Connection-Id
	// it came on.
	ToAgent func(conn string, frame []byte)
	// OnAgentDisconnect is the Agent side learning that a connection ended
	// (expired, deleted or superseded). Not called by AgentGone.
	OnAgentDisconnect func(conn, why string)
}

type httpReq struct {
	session  string
	method   string
	post     int  // the POST of an initialize awaiting its 200, else 0
	lost     bool // that 200 is lost (accepted-lost)
	answered bool
}

type sseStream struct {
	session string
	conn    string
	open    bool // open at the Agent's end
	opening bool // the GET is on its way
	last    time.Duration
}

type httpMsg struct {
	dir    int
	bytes  []byte
	text   string
	sub    string
	post   int
	conn   string // the connection id a POST carries or an event belongs to
	init   bool
	lost   bool // accepted-lost: the answer never reaches the Client
	expire bool // conn-expired: the connection expires as this POST arrives
	stream *sseStream
	gone   bool
	refuse bool // dropped while in flight: its POST is answered 404
}

// NewHTTPLink returns a link named name between client and agent with no
// connection yet; the Client's first POST must be initialize.
func NewHTTPLink(name, client, agent string, loop *sim.Loop, choose func(sim.Decision) int, rec Recorder, latency time.Duration) *HTTPLink {
	return &HTTPLink{Name: name, Client: client, Agent: agent, loop: loop, choose: choose, rec: rec, latency: latency,
		reqs: map[acp.ID]httpReq{}, streams: map[string]*sseStream{}}
}

// Conn is the live connection id, "" when there is none.
func (h *HTTPLink) Conn() string { return h.conn }

// Connected reports whether a connection is live.
func (h *HTTPLink) Connected() bool { return h.conn != "" }

// StreamOpen reports whether the stream of session ("" = the connection
// stream) is open at the Agent's end.
func (h *HTTPLink) StreamOpen(session string) bool {
	st := h.streams[session]
	return st != nil && st.open
}

func (h *HTTPLink) record(kind string, m *httpMsg, note string) {
	from, to := h.Client, h.Agent
	if m.dir == a2c {
		from, to = to, from
	}
	link := m.conn // each connection is a link of its own: JSON-RPC ids are scoped to it
	if link == "" {
		link = h.Name
	}
	h.rec.Record(traces.Event{Kind: kind, Link: link, From: from, To: to, Dir: dirNames[m.dir], Frame: m.text, Sub: m.sub, Note: note})
}

// NextConn is the id the connection an initialize POSTed now would create.
func (h *HTTPLink) NextConn() string { return h.Name + "#" + strconv.Itoa(h.posts+1) }

// Peek reads what Streamable HTTP routing needs from a frame: whether it is
// a batch, and its envelope and params.sessionId. The model link and the
// real server (realmode) route by it alike.
func Peek(frame []byte) (batch bool, msg acp.Message, session string) {
	l := acp.ParseLine(frame)
	if l.Batch {
		return true, msg, ""
	}
	if len(l.Entries) == 1 && l.Entries[0].Err == nil {
		msg = l.Entries[0].Msg
		if msg.Method != "" {
			var p struct {
				SessionID string `json:"sessionId"`
			}
			if acp.DecodeParams(msg.Params, &p) == nil {
				session = p.SessionID
			}
		}
	}
	return false, msg, session
}

func (h *HTTPLink) status(post, code int, at time.Duration) {
	h.loop.At(at, func() {
		if h.OnStatus != nil {
			h.OnStatus(post, code)
		}
	})
}

// Post sends a Client frame as POST /acp and returns the POST's number, which
// OnStatus reports its status under; sub names the submission of a prompt.
// initialize needs no connection; every other POST carries the live
// connection id (400 when there never was one, 404 when it is gone). A batch
// is answered 501.
func (h *HTTPLink) Post(frame []byte, sub string) int {
	h.posts++
	n := h.posts
	m := &httpMsg{dir: c2a, bytes: frame, text: string(frame), sub: sub, post: n, conn: h.conn}
	batch, msg, _ := Peek(frame)
	m.init = !batch && msg.Method == acp.MethodInitialize
	if m.init { // the connection it creates is named after this POST
		m.conn = h.Name + "#" + strconv.Itoa(n)
	}
	h.record(traces.KindSend, m, "")
	back := h.loop.Now() + 2*h.latency
	switch {
	case batch:
		h.record(traces.KindDrop, m, "501")
		h.status(n, StatusNotImplemented, back)
		return n
	case !m.init && h.conn == "" && h.nconn == 0:
		h.record(traces.KindDrop, m, "400")
		h.status(n, StatusBadRequest, back)
		return n
	case !m.init && h.conn == "":
		h.record(traces.KindDrop, m, "404")
		h.status(n, StatusNotFound, back)
		return n
	}
	site := h.Name + "/post/" + strconv.Itoa(n)
	if !m.init && h.choose(sim.Decision{Kind: ConnExpired, Site: site, N: 2}) != 0 {
		m.expire = true
	} else if h.choose(sim.Decision{Kind: PostLost, Site: site, N: 2}) != 0 {
		h.record(traces.KindDrop, m, "post-lost")
		h.status(n, StatusNone, back)
		return n
	} else {
		m.lost = h.choose(sim.Decision{Kind: AcceptedLost, Site: site, N: 2}) != 0
	}
	extra := DelaySteps[h.choose(sim.Decision{Kind: Delay, Site: site, N: len(DelaySteps)})]
	h.inflight = append(h.inflight, m)
	h.loop.At(h.loop.Now()+h.latency+extra, func() { h.arrivePost(m) }) // POSTs may overtake each other
	return n
}

func (h *HTTPLink) unflight(m *httpMsg) {
	for i, x := range h.inflight {
		if x == m {
			h.inflight = append(h.inflight[:i], h.inflight[i+1:]...)
			return
		}
	}
}

func (h *HTTPLink) arrivePost(m *httpMsg) {
	back := h.loop.Now() + h.latency
	if m.gone {
		if m.refuse {
			h.status(m.post, StatusNotFound, back)
		}
		return
	}
	m.gone = true
	h.unflight(m)
	if m.expire && h.conn != "" && h.conn == m.conn {
		// The id expired just before this POST: it is the first to get 404.
		h.record(traces.KindDrop, m, "404")
		h.status(m.post, StatusNotFound, back)
		h.endConn("conn-expired", true)
		return
	}
	_, msg, session := Peek(m.bytes)
	if m.init {
		if h.conn != "" {
			h.endConn("superseded", true)
		}
		h.nconn++
		h.conn = m.conn
		h.rec.Record(traces.Event{Kind: traces.KindConnect, Link: h.conn, From: h.Client, To: h.Agent, Note: h.conn})
		if msg.ID != "" {
			h.reqs[msg.ID] = httpReq{method: msg.Method, post: m.post, lost: m.lost}
		}
		note := "200"
		if m.lost {
			note = "200 lost"
		}
		h.record(traces.KindDeliver, m, note)
		if h.OnAgentConnect != nil {
			h.OnAgentConnect(h.conn)
		}
		if h.ToAgent != nil {
			h.ToAgent(h.conn, m.bytes)
		}
		return
	}
	if h.conn == "" || h.conn != m.conn {
		h.record(traces.KindDrop, m, "404")
		h.status(m.post, StatusNotFound, back)
		return
	}
	if msg.ID != "" && msg.Method != "" {
		h.reqs[msg.ID] = httpReq{session: session, method: msg.Method}
	}
	note, code := "202", StatusAccepted
	if m.lost {
		note, code = "202 lost", StatusNone
	}
	h.record(traces.KindDeliver, m, note)
	h.status(m.post, code, back)
	if h.ToAgent != nil {
		h.ToAgent(h.conn, m.bytes)
	}
}

// OpenStream is GET /acp with Accept: text/event-stream: session "" opens
// the connection-scoped stream, otherwise the stream of that session on the
// live connection. The stream is open at the Agent's end one latency later;
// events written before that are lost. Opening an open stream does nothing;
// with no live connection the GET is refused and OnStreamClosed follows.
func (h *HTTPLink) OpenStream(session string) {
	if h.conn == "" {
		h.loop.At(h.loop.Now()+2*h.latency, func() {
			if h.OnStreamClosed != nil {
				h.OnStreamClosed(session)
			}
		})
		return
	}
	st := h.streams[session]
	if st == nil {
		st = &sseStream{session: session, conn: h.conn}
		h.streams[session] = st
		h.order = append(h.order, st)
	}
	if st.open || st.opening {
		return
	}
	st.opening = true
	h.loop.At(h.loop.Now()+h.latency, func() {
		st.opening = false
		if h.streams[session] != st || h.conn != st.conn {
			h.loop.At(h.loop.Now()+h.latency, func() {
				if h.OnStreamClosed != nil {
					h.OnStreamClosed(session)
				}
			})
			return
		}
		st.open, st.last = true, h.loop.Now()
		h.rec.Record(traces.Event{Kind: traces.KindStream, Link: st.conn, From: h.Client, To: h.Agent, Note: "open " + streamName(session)})
	})
}

// Delete is DELETE /acp: the connection (and its streams) ends when the
// request reaches the Agent, and the Client hears OnGone a latency later.
func (h *HTTPLink) Delete() {
	conn := h.conn
	if conn == "" {
		return
	}
	h.loop.At(h.loop.Now()+h.latency, func() {
		if h.conn == conn {
			h.endConn("delete", true)
		}
	})
}

// AgentGone is the Agent process behind the endpoint dying: the connection's
// state dies with it (later requests get 404), its streams close and what is
// in flight is lost. OnAgentDisconnect is not called.
func (h *HTTPLink) AgentGone(why string) {
	if h.conn != "" {
		h.endConn(why, false)
	}
}

// FromAgent sends an Agent frame on the stream it belongs to. A response
// goes where the request it answers says: initialize's in the body of its
// 200, a session-scoped request's (params.sessionId, method not in
// ConnectionStreamMethods) on that session's stream, others on the
// connection stream. Any other frame goes on the stream of session, or of
// its params.sessionId when session is "", or else on the connection stream.
func (h *HTTPLink) FromAgent(frame []byte, session string) {
	m := &httpMsg{dir: a2c, bytes: frame, text: string(frame), conn: h.conn}
	if h.conn == "" {
		h.record(traces.KindDrop, m, "connection closed")
		return
	}
	_, msg, psession := Peek(frame)
	key := session
	if msg.Method == "" && msg.ID != "" { // a response
		r, ok := h.reqs[msg.ID]
		if ok && r.post > 0 && !r.answered {
			r.answered = true
			h.reqs[msg.ID] = r
			h.answerInit(m, r)
			return
		}
		key = ""
		if ok && !ConnectionStreamMethods[r.method] {
			key = r.session
		}
	} else if key == "" {
		key = psession
	}
	h.events++
	site := h.Name + "/sse/" + strconv.Itoa(h.events)
	h.record(traces.KindSend, m, "")
	st := h.streams[key]
	if st == nil || !st.open {
		h.record(traces.KindDrop, m, "stream not open")
		return
	}
	if h.choose(sim.Decision{Kind: StreamBreak, Site: site, N: 2}) != 0 {
		h.record(traces.KindDrop, m, "stream-break")
		h.closeStream(st, "stream-break")
		return
	}
	extra := DelaySteps[h.choose(sim.Decision{Kind: Delay, Site: site, N: len(DelaySteps)})]
	at := max(h.loop.Now()+h.latency+extra, st.last) // one stream never reorders
	st.last = at
	m.stream = st
	h.inflight = append(h.inflight, m)
	h.loop.At(at, func() { h.arriveEvent(m) })
}

// answerInit carries initialize's response back as the body of its 200.
func (h *HTTPLink) answerInit(m *httpMsg, r httpReq) {
	m.post = r.post
	h.record(traces.KindSend, m, "")
	back := h.loop.Now() + h.latency
	if r.lost {
		h.record(traces.KindDrop, m, "200 lost")
		h.status(r.post, StatusNone, back)
		return
	}
	h.inflight = append(h.inflight, m)
	h.loop.At(back, func() { h.arriveEvent(m) })
}

func (h *HTTPLink) arriveEvent(m *httpMsg) {
	if m.gone {
		return
	}
	m.gone = true
	h.unflight(m)
	if m.stream == nil { // initialize's 200 body
		h.record(traces.KindDeliver, m, "200")
		if h.OnStatus != nil {
			h.OnStatus(m.post, StatusOK)
		}
	} else {
		h.record(traces.KindDeliver, m, "")
	}
	if h.OnEvent != nil {
		h.OnEvent(m.bytes)
	}
}

// closeStream ends st at the Agent's end: its events in flight are lost and
// the Client hears OnStreamClosed a latency later.
func (h *HTTPLink) closeStream(st *sseStream, why string) {
	st.open = false
	h.rec.Record(traces.Event{Kind: traces.KindStream, Link: st.conn, From: h.Client, To: h.Agent, Note: "closed " + streamName(st.session) + ": " + why})
	kept := h.inflight[:0]
	for _, x := range h.inflight {
		if x.stream == st && !x.gone {
			x.gone = true
			h.record(traces.KindDrop, x, why)
			continue
		}
		kept = append(kept, x)
	}
	clear(h.inflight[len(kept):])
	h.inflight = kept
	session := st.session
	h.loop.At(h.loop.Now()+h.latency, func() {
		if h.OnStreamClosed != nil {
			h.OnStreamClosed(session)
		}
	})
}

// endConn ends the live connection: POSTs in flight on it are refused (404
// when they arrive), everything the Agent wrote that is in flight is lost,
// open streams close, and the Client hears OnGone a latency later (not when
// a new initialize superseded the connection).
func (h *HTTPLink) endConn(why string, tellAgent bool) {
	conn := h.conn
	kept := h.inflight[:0]
	for _, x := range h.inflight {
		if x.gone || x.conn != conn || (x.dir == c2a && x.init) {
			kept = append(kept, x)
			continue
		}
		x.gone = true
		if x.dir == c2a {
			x.refuse = true
			h.record(traces.KindDrop, x, "404 "+why)
			continue
		}
		h.record(traces.KindDrop, x, why)
		if x.stream == nil {
			h.status(x.post, StatusNone, h.loop.Now()+h.latency)
		}
	}
	clear(h.inflight[len(kept):])
	h.inflight = kept
	for _, st := range h.order {
		if st.open {
			h.closeStream(st, why)
		}
	}
	h.conn = ""
	h.streams = map[string]*sseStream{}
	h.order = nil
	h.reqs = map[acp.ID]httpReq{}
	h.rec.Record(traces.Event{Kind: traces.KindDisconnect, Link: conn, From: h.Client, To: h.Agent, Note: why})
	if tellAgent && h.OnAgentDisconnect != nil {
		h.OnAgentDisconnect(conn, why)
	}
	if why != "superseded" {
		h.loop.At(h.loop.Now()+h.latency, func() {
			if h.OnGone != nil {
				h.OnGone()
			}
		})
	}
}

func streamName(session string) string {
	if session == "" {
		return "connection"
	}
	return "session " + session
}
