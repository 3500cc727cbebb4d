package serve

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/acpsim/acpsim/netfault"
)

// upgrader accepts WebSockets from any origin: the Clients are programs,
// and no cookie-based authority is at stake here.
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// wsPeer is one WebSocket connection: reliable and ordered like a pipe, so
// one outbox carries everything the Agent writes to it.
type wsPeer struct {
	s   *server
	id  string
	box *outbox
}

func (p *wsPeer) deliver(frame []byte) { p.box.put(frame) } // a full outbox closes: the writer ends the WebSocket

// serveWS is GET /acp with Upgrade: websocket. The upgrade creates the
// connection (101 with Acp-Connection-Id); text frames carry JSON-RPC,
// binary frames are ignored, and when the WebSocket ends the Agent hears
// the connection disconnect. The handler's goroutine reads; one more
// writes.
func (s *server) serveWS(w http.ResponseWriter, r *http.Request) {
	p := &wsPeer{s: s, id: uuid.NewString(), box: newOutbox()}
	c, err := upgrader.Upgrade(w, r, http.Header{netfault.HeaderConnection: {p.id}})
	if err != nil {
		return // the upgrader has answered 400
	}
	c.SetReadLimit(maxBody)
	s.add(p.id, p)
	wrote := make(chan struct{})
	if s.h.feed(input{kind: inConnect, conn: p.id}) {
		go func() { defer close(wrote); p.write(c) }()
		for {
			typ, data, err := c.ReadMessage()
			if err != nil {
				break
			}
			if typ == websocket.TextMessage && !s.h.feed(input{kind: inFrame, conn: p.id, frame: data}) {
				break
			}
		}
	} else {
		close(wrote)
	}
	s.remove(p.id, p)
	p.box.close()
	<-wrote
	_ = c.Close()
	s.h.feed(input{kind: inDisconnect, conn: p.id})
}

// write sends what the Agent writes until the outbox closes (the reader
// ended, the server stops, or the Client does not keep up), then closes
// the WebSocket, which ends the reader too.
func (p *wsPeer) write(c *websocket.Conn) {
	stopping := p.s.ctx.Done()
	for {
		frames, open := p.box.take()
		for _, f := range frames {
			_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
			if err := c.WriteMessage(websocket.TextMessage, f); err != nil {
				_ = c.Close()
				return
			}
		}
		if !open {
			code := websocket.CloseNormalClosure
			if stopping == nil {
				code = websocket.CloseGoingAway
			}
			_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(time.Second))
			_ = c.Close()
			return
		}
		select {
		case <-p.box.wake:
		case <-stopping:
			p.box.close() // write what is queued, then end
			stopping = nil
		}
	}
}
