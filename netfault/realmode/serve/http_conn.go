// One Streamable HTTP connection of Remote: the Client requests awaiting a
// response, its open SSE streams, and which stream each Agent frame goes on.

package serve

import (
	"sync"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
)

// httpPeer is one Streamable HTTP connection.
type httpPeer struct {
	s  *server
	id string

	mu      sync.Mutex
	reqs    map[acp.ID]route   // Client requests awaiting a response
	streams map[string]*outbox // open SSE streams; "" is the connection stream
	initID  acp.ID             // the initialize whose response is the 200's body
	init    chan []byte
	gone    bool
}

// route is where the response to a Client request goes.
type route struct{ session, method string }

func (p *httpPeer) expect(id acp.ID, session, method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs[id] = route{session, method}
}

// deliver puts an Agent frame on its stream, as netfault.HTTPLink.FromAgent
// chooses it.
func (p *httpPeer) deliver(frame []byte) {
	batch, msg, key := netfault.Peek(frame)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !batch && msg.Kind() == acp.KindResponse {
		if p.initID != "" && msg.ID == p.initID {
			p.initID = ""
			p.init <- frame
			return
		}
		r, ok := p.reqs[msg.ID]
		delete(p.reqs, msg.ID)
		key = ""
		if ok && !netfault.ConnectionStreamMethods[r.method] {
			key = r.session
		}
	}
	if box := p.streams[key]; box != nil {
		if !box.put(frame) {
			delete(p.streams, key) // it broke: the Client reopens it
		}
	}
}

// openStream registers a new SSE stream, ending the one it replaces; nil
// when the connection has ended meanwhile.
func (p *httpPeer) openStream(session string) *outbox {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		return nil
	}
	if old := p.streams[session]; old != nil {
		old.close()
	}
	box := newOutbox()
	p.streams[session] = box
	return box
}

func (p *httpPeer) closeStream(session string, box *outbox) {
	p.mu.Lock()
	defer p.mu.Unlock()
	box.close()
	if p.streams[session] == box {
		delete(p.streams, session)
	}
}

// end ends the connection: its streams close (events queued on them are
// lost) and the Agent hears it disconnect.
func (p *httpPeer) end() {
	if !p.s.remove(p.id, p) {
		return
	}
	p.mu.Lock()
	p.gone = true
	for _, box := range p.streams {
		box.discard()
	}
	p.streams = nil
	p.mu.Unlock()
	p.s.h.feed(input{kind: inDisconnect, conn: p.id})
}
