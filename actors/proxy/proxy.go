// Package proxy models ACP proxies between a Client and an Agent (the
// proxy-chains RFD's conductor and proxies): each hop rewrites JSON-RPC ids,
// since ids are scoped to one connection, and must forward idempotencyKey
// unchanged, so the key, not the id, links attempts end to end. Known-bad
// proxies break exactly that.
//
// A proxy here wraps the Agent it fronts as an agent.Machine, so a chain of
// N proxies is N wrappers and the simulator drives it like any Agent.
package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
)

// Modes of a proxy, as data: what it does wrong, if anything.
var Modes = []struct {
	Name, Doc string
}{
	{Honest, "rewrites ids per hop, forwards idempotencyKey unchanged"},
	{StripKey, "drops idempotencyKey from the prompts it forwards"},
	{FreshKeyRetry, "retries a prompt that got no answer in time on its own, with a fresh key"},
	{WrongResponse, "maps each answer to the oldest request still waiting on the connection, not to the id it answers"},
	{UnmappedCancel, "renumbers requests from its own counter (1, 2, 3 …) but forwards $/cancel_request unmapped: it lands on another request"},
}

// Proxy modes.
const (
	Honest         = "honest"
	StripKey       = "strip-key"
	FreshKeyRetry  = "fresh-key-retry"
	WrongResponse  = "wrong-response"
	UnmappedCancel = "unmapped-cancel"
)

// Check reports an unknown mode.
func Check(mode string) error {
	names := make([]string, 0, len(Modes))
	for _, m := range Modes {
		if m.Name == mode {
			return nil
		}
		names = append(names, m.Name)
	}
	return fmt.Errorf("proxy mode %q: expected one of %s", mode, strings.Join(names, ", "))
}

// DefaultRetryAfter is how long a FreshKeyRetry proxy waits for a prompt's
// answer in the simulator (Proxy.RetryAfter); simulator traces depend on it.
const DefaultRetryAfter = 150 * time.Millisecond

// timerBase keeps a proxy's own timer ids apart from the Agent's.
const timerBase = 1 << 40

// Wrap puts n proxies of the given mode in front of the Agents f builds.
func Wrap(f agent.Factory, n int, mode string) agent.Factory {
	for hop := range n {
		inner := f
		f = func(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
			return New(inner(k, open, env), mode, env, hop)
		}
	}
	return f
}

// New is one proxy of the given mode (Check it first) in front of inner, the
// hop-th from the Agent (0: next to it; the hop keeps each proxy's ids apart
// in a chain). env.NewID makes a FreshKeyRetry proxy's keys. The simulator
// wraps a model Agent; acpsim proxy wraps a Machine that writes every frame
// to a real Agent's stdin and feeds the Agent's lines to FromAgent.
func New(inner agent.Machine, mode string, env agent.Env, hop int) *Proxy {
	return &Proxy{inner: inner, mode: mode, env: env, hop: hop, RetryAfter: DefaultRetryAfter,
		fwd: map[acp.ID]pending{}, timers: map[int]acp.ID{}}
}

// Proxy is one hop.
type Proxy struct {
	// RetryAfter is how long a FreshKeyRetry proxy waits for a prompt's
	// answer before it sends the prompt again with a fresh key.
	RetryAfter time.Duration

	inner  agent.Machine
	mode   string
	env    agent.Env
	hop    int
	next   int64
	nextOn map[string]int64   // UnmappedCancel: per connection
	fwd    map[acp.ID]pending // id on the next hop → where it came from
	order  []acp.ID           // next-hop ids of requests still waiting, oldest first
	timers map[int]acp.ID
	ntimer int
	// answered maps the next-hop ids answered lately to the previous hop's
	// ids, oldest first in answeredOrder.
	answered      map[acp.ID]acp.ID
	answeredOrder []acp.ID
}

type pending struct {
	conn   string
	id     acp.ID // the id the previous hop used
	frame  *acp.Message
	method string
}

func (p *Proxy) newID(conn string) acp.ID {
	p.next++
	if p.mode == UnmappedCancel {
		// A conductor numbers each connection's requests 1, 2, 3 ….
		if p.nextOn == nil {
			p.nextOn = map[string]int64{}
		}
		p.nextOn[conn]++
		return acp.NumID(p.nextOn[conn])
	}
	return acp.StrID(fmt.Sprintf("p%d-%d", p.hop, p.next))
}

// Connect implements agent.Machine.
func (p *Proxy) Connect(conn string) []agent.Output { return p.back(p.inner.Connect(conn)) }

// Disconnect implements agent.Machine.
func (p *Proxy) Disconnect(conn string) []agent.Output { return p.back(p.inner.Disconnect(conn)) }

// Receive implements agent.Machine: requests get a next-hop id, cancels name
// it, prompts keep their key (unless the proxy is bad).
func (p *Proxy) Receive(conn string, frame []byte) []agent.Output {
	l := acp.ParseLine(frame)
	if l.Batch || l.Entries[0].Err != nil {
		return p.back(p.inner.Receive(conn, frame))
	}
	m := l.Entries[0].Msg
	var own []agent.Output
	switch m.Kind() {
	case acp.KindRequest:
		id := p.newID(conn)
		p.fwd[id] = pending{conn: conn, id: m.ID, frame: &m, method: m.Method}
		p.order = append(p.order, id)
		m.ID = id
		if m.Method == acp.MethodSessionPrompt {
			var pp acp.PromptParams
			if acp.DecodeParams(m.Params, &pp) == nil {
				if p.mode == StripKey && pp.IdempotencyKey != nil {
					pp.IdempotencyKey = nil
					m.Params, _ = json.Marshal(pp)
				}
				if p.mode == FreshKeyRetry {
					p.ntimer++
					p.timers[timerBase+p.ntimer] = id
					own = append(own, agent.Output{Kind: agent.OutTimer, Step: "proxy-retry", After: p.RetryAfter, ID: timerBase + p.ntimer})
				}
			}
		}
	case acp.KindNotification:
		if m.Method == acp.MethodCancelRequest && p.mode != UnmappedCancel {
			var c acp.CancelRequestParams
			if acp.DecodeParams(m.Params, &c) == nil {
				for id, f := range p.fwd {
					if f.conn == conn && f.id == c.RequestID { // a lookup: the order of the map cannot show
						c.RequestID = id
						m.Params, _ = json.Marshal(c)
					}
				}
			}
		}
	}
	return append(own, p.back(p.inner.Receive(conn, acp.Encode(&m)))...)
}

// Timer implements agent.Machine.
func (p *Proxy) Timer(id int) []agent.Output {
	hopID, mine := p.timers[id]
	if !mine {
		return p.back(p.inner.Timer(id))
	}
	delete(p.timers, id)
	f, waiting := p.fwd[hopID]
	if !waiting {
		return nil
	}
	// No answer yet: send it again on its own, with a key of its own making.
	m := *f.frame
	var pp acp.PromptParams
	if acp.DecodeParams(m.Params, &pp) != nil {
		return nil
	}
	pp.IdempotencyKey = acp.KeyJSON(p.env.NewID())
	m.Params, _ = json.Marshal(pp)
	retry := p.newID(f.conn)
	m.ID = retry
	p.fwd[retry] = pending{conn: f.conn, id: f.id, frame: f.frame, method: f.method}
	p.order = append(p.order, retry)
	return p.back(p.inner.Receive(f.conn, acp.Encode(&m)))
}

// FromAgent is a frame the Agent wrote on conn when the inner Machine is a
// real Agent that answers outside its Receive: its outputs are what the
// proxy sends the Client (an answer mapped back to the Client's id, or
// nothing for an answer the proxy drops).
func (p *Proxy) FromAgent(conn string, frame []byte) []agent.Output {
	return p.back([]agent.Output{{Kind: agent.OutSend, Step: "proxy-back", Conn: conn, Frame: frame}})
}

// back rewrites the Agent's answers to the ids the previous hop used. Every
// answer to a request of the Client's goes back under the Client's id: a
// malformed one (result and error both, a wrong "jsonrpc") and a repeated
// one too, so that what the Agent did wrong reaches whoever judges it.
func (p *Proxy) back(outs []agent.Output) []agent.Output {
	mine := fmt.Sprintf(`"p%d-`, p.hop)
	kept := outs[:0]
	for _, o := range outs {
		if o.Kind != agent.OutSend {
			kept = append(kept, o)
			continue
		}
		a, isAnswer := readAnswer(o.Frame)
		if !isAnswer {
			kept = append(kept, o)
			continue
		}
		to, ok := p.route(a.id, o.Conn)
		if !ok {
			if !strings.HasPrefix(string(a.id), mine) {
				kept = append(kept, o) // not ours to rewrite
			}
			continue // an answer to a request of ours never sent, or to a retry of ours already answered: dropped
		}
		o.Frame = a.withID(to)
		kept = append(kept, o)
	}
	return kept
}

// answeredKeep bounds the next-hop ids a proxy remembers as answered, for a
// repeated answer: the oldest are forgotten first.
const answeredKeep = 4096

// route is the previous hop's id an answer to id goes back under, if any.
func (p *Proxy) route(id acp.ID, conn string) (acp.ID, bool) {
	key := id
	if p.mode == WrongResponse {
		if k, ok := p.oldestOn(conn); ok {
			key = k
		}
	}
	f, ok := p.fwd[key]
	if !ok {
		to, again := p.answered[id] // the Agent answers it again: so does the proxy
		return to, again
	}
	p.forget(key)
	if p.mode == FreshKeyRetry {
		// Its own retry's answer and the original's both come back: the
		// first one answers the Client, the other is dropped.
		for id, g := range p.fwd { // deletions only: the order cannot show
			if g.conn == f.conn && g.id == f.id {
				p.forget(id)
			}
		}
	}
	if p.answered == nil {
		p.answered = map[acp.ID]acp.ID{}
	}
	if len(p.answeredOrder) == answeredKeep {
		delete(p.answered, p.answeredOrder[0])
		p.answeredOrder = p.answeredOrder[1:]
	}
	p.answered[id] = f.id
	p.answeredOrder = append(p.answeredOrder, id)
	return f.id, true
}

// answer is a frame of the Agent's that answers a request: a response, or
// an object that names an id and no method but is not a valid response.
type answer struct {
	id     acp.ID
	raw    []byte
	msg    *acp.Message               // a valid response
	fields map[string]json.RawMessage // a malformed one's members
}

func readAnswer(frame []byte) (answer, bool) {
	l := acp.ParseLine(frame)
	if l.Batch {
		return answer{}, false
	}
	e := l.Entries[0]
	if e.Err == nil {
		if e.Msg.Kind() != acp.KindResponse {
			return answer{}, false
		}
		return answer{id: e.Msg.ID, raw: frame, msg: &e.Msg}, true
	}
	if e.ErrID == "" || e.ErrID == "null" {
		return answer{}, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(frame, &fields) != nil || fields["id"] == nil || fields["method"] != nil {
		return answer{}, false
	}
	return answer{id: e.ErrID, raw: frame, fields: fields}, true
}

// withID is the answer under id. A valid response is encoded as the codec
// does; a malformed one keeps its members as written (in key order), only
// its id replaced.
func (a answer) withID(id acp.ID) []byte {
	if a.msg != nil {
		m := *a.msg
		m.ID = id
		return acp.Encode(&m)
	}
	a.fields["id"] = json.RawMessage(id)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the id as the Client wrote it, byte for byte
	if enc.Encode(a.fields) != nil {
		return a.raw // unreachable: every member was read as valid JSON
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func (p *Proxy) oldestOn(conn string) (acp.ID, bool) {
	for _, id := range p.order {
		if p.fwd[id].conn == conn {
			return id, true
		}
	}
	return "", false
}

func (p *Proxy) forget(id acp.ID) {
	delete(p.fwd, id)
	for i, x := range p.order {
		if x == id {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
}
