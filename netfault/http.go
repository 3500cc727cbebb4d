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

// The headers of the remote transport, as the real Agent (serve.Remote) and
// its dialers (dial.HTTP, dial.WS) write and read them: the connection an
// initialize created (set on its 200 and on a WebSocket's 101), and the
// session a request or an SSE stream is about.
const (
	HeaderConnection = "Acp-Connection-Id"
	HeaderSession    = "Acp-Session-Id"
)

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
	sites    [2]string    // the prefixes of a POST's and an event's decisions' sites

	// Client side.
	// OnStatus is the HTTP status of POST number post (as Post returned):
	// 202, 200 for initialize (its body follows through OnEvent), 0 when no
	// answer came, 400/404/501 for a POST the endpoint refused.
	OnStatus func(post int, status int)
	// OnEvent is an SSE event, or the body of initialize's 200, arriving,
	// with the digest the Agent made of it (nil for none; FromAgentDigest).
	OnEvent func(frame []byte, d *acp.Digest)
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
	// it came on and the digest its sender made of it (nil for none).
	ToAgent func(conn string, frame []byte, d *acp.Digest)
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
	lost   bool      // accepted-lost: the answer never reaches the Client
	expire bool      // conn-expired: the connection expires as this POST arrives
	route  HTTPRoute // read once, as it was sent (HTTPRouteOf)
	stream *sseStream
	gone   bool
	refuse bool // dropped while in flight: its POST is answered 404
	link   *HTTPLink
	digest *acp.Digest // as its sender made it; nil for none
}

// Fire is the message's arrival (sim.Handler): a POST at the endpoint, an
// event at the Client.
func (m *httpMsg) Fire() {
	if m.dir == c2a {
		m.link.arrivePost(m)
	} else {
		m.link.arriveEvent(m)
	}
}

// site is the prefix of the sites of a POST's decisions (c2a) or an
// event's (a2c): name/post/N, name/sse/N.
func (h *HTTPLink) site(dir int) string {
	if h.sites[dir] == "" {
		h.sites = [2]string{h.Name + "/post", h.Name + "/sse"}
	}
	return h.sites[dir]
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

// HTTPRoute is what Streamable HTTP routing reads of a frame (Peek): whether it
// is a batch, its id and method, and a request's or notification's
// params.sessionId.
type HTTPRoute struct {
	Batch   bool
	ID      acp.ID
	Method  string
	Session string
}

// HTTPRouteOf reads frame's HTTPRoute from d, the frame's digest, when d describes
// it (acp.Digest: made by the encoder that wrote it), and from the bytes
// (Peek) otherwise: the model link reads each frame once, from what its
// sender already knew, where it used to parse it at every hop.
func HTTPRouteOf(frame []byte, d *acp.Digest) HTTPRoute {
	if d.Describes(frameText(frame)) {
		r := HTTPRoute{ID: d.ID}
		if d.Kind() != acp.KindResponse {
			r.Method, r.Session = d.Method, d.Session()
		}
		return r
	}
	batch, msg, session := Peek(frame)
	return HTTPRoute{Batch: batch, ID: msg.ID, Method: msg.Method, Session: session}
}

// Peek reads what Streamable HTTP routing needs from a frame: whether it is
// a batch, and its envelope and params.sessionId. The model link and the
// real server (netfault/realmode/serve) route by it alike.
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

func (h *HTTPLink) unflight(m *httpMsg) {
	for i, x := range h.inflight {
		if x == m {
			h.inflight = append(h.inflight[:i], h.inflight[i+1:]...)
			return
		}
	}
}
