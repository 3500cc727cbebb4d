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
	// read names the streams that have had a reader (or overflowed waiting
	// for their first): a frame for one while it is not open is lost, as on
	// a broken stream. A stream never opened keeps its frames for its first
	// GET instead, as the SDK's AcpServer does: the SDK's Client POSTs
	// session/new without waiting for its connection stream's GET, so its
	// answer can be ready first.
	read   map[string]bool
	initID acp.ID // the initialize whose response is the 200's body
	init   chan []byte
	gone   bool
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
	if p.gone {
		return // the connection ended: its streams are gone, nothing to hold a frame for
	}
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
	box := p.streams[key]
	if box == nil && !p.read[key] && len(p.streams) < maxWaitingStreams {
		box = newOutbox() // held for the stream's first GET
		p.streams[key] = box
	}
	if box != nil && !box.put(frame) {
		delete(p.streams, key) // it broke (or nobody came to read it): the Client reopens it
		p.read[key] = true
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
	old := p.streams[session]
	if old != nil && !p.read[session] {
		p.read[session] = true
		return old // its first reader takes what waited for it
	}
	if old != nil {
		old.close()
	}
	box := newOutbox()
	p.streams[session] = box
	p.read[session] = true
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
