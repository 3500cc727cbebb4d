// Package hop pairs the frames of the two hops of a path through a proxy:
// what the Clients and the proxy exchanged (acpsim check's trace, the outer
// hop) and what the proxy and the Agent behind it exchanged (the trace of
// an acpsim tap acpsim check --via puts between them, the inner hop). With
// the pairs, a report shows a frame on both hops, and what the proxy did to
// it is judged from the frames themselves: a cancel forwarded under the
// wrong id, a key dropped or changed, an answer passed to another request,
// a prompt the proxy made up. Those are the cause; the end-to-end anomaly
// (a duplicate, a prompt inserted after its cancel) is the symptom.
//
// Frames are paired per Agent process: the outer links that end at process
// a1#N and the inner links whose Agent is a1#N (the tap is numbered after
// the proxy process it stands behind). Requests and notifications are
// paired by method and params, in order, the first unpaired inner frame
// with equal params first, then one equal but for what a proxy legitimately
// rewrites (a cancel's requestId, which names a hop's own id) or breaks
// (idempotencyKey). Answers are paired through the ids so learned: the
// Agent's answer to the proxy's request N is the Client's answer to the
// request the proxy forwarded as N.
package hop

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// Pairing is what Pair found.
type Pairing struct {
	// Inner is, for an outer frame's events (its send and its deliver),
	// the inner event it was forwarded as or forwarded from.
	Inner map[int64]*traces.Event
	// Findings are what the proxy did wrong, in the order of the outer
	// trace.
	Findings []Finding
	// Frames is how many inner frames there were, Paired how many of them
	// were paired with an outer frame.
	Frames, Paired int
}

// Finding is one thing the proxy did that the two hops show.
type Finding struct {
	// Kind is one of the Kinds.
	Kind string
	// Outer and Inner are the seqs of the events it cites on each hop.
	Outer, Inner []int64
	// Text says it in full, with the spec's sentence.
	Text string
}

// Kinds of findings, as data: the name and the rule a proxy broke.
var Kinds = []struct{ Name, Rule string }{
	{UnmappedCancel, `the schema's CancelRequestNotification.requestId: "a request that the sender of this notification issued. Receivers match it only against requests they received from that sender." A proxy that renumbers requests must map the id a cancel names.`},
	{KeyChanged, `the RFD: "Proxies and conductors forward idempotencyKey unchanged." A key dropped or changed on the way makes every retry a new submission.`},
	{MisroutedAnswer, `JSON-RPC 2.0, the response's id: "It MUST be the same as the value of the id member in the Request Object." A proxy passes each answer back under the id of the request it forwarded.`},
	{OwnPrompt, `the RFD: "Proxies and conductors forward idempotencyKey unchanged"; a retry is the Client's ("the Client can send the same prompt with the same key again"). A session/prompt the proxy makes up under a fresh key is a second submission the Agent cannot recognise.`},
}

// Finding kinds.
const (
	UnmappedCancel  = "unmapped-cancel"
	KeyChanged      = "key-changed"
	MisroutedAnswer = "misrouted-answer"
	OwnPrompt       = "own-prompt"
)

// Rule is the rule a finding kind names.
func Rule(kind string) string {
	for _, k := range Kinds {
		if k.Name == kind {
			return k.Rule
		}
	}
	return ""
}

// frame is one message on one hop.
type frame struct {
	e      *traces.Event
	also   *traces.Event // the other event of the same frame (send / deliver)
	msg    acp.Message
	params map[string]json.RawMessage
	paired *frame
}

// side is one Agent process's frames on one hop, by direction.
type side struct {
	c2a, a2c []*frame
}

// Pair pairs outer (acpsim check's trace under --via) with inner (its hop
// trace).
func Pair(outer, inner []traces.Event) *Pairing {
	p := &Pairing{Inner: map[int64]*traces.Event{}}
	outs, ins := split(outer, false), split(inner, true)
	for _, proc := range order(inner) {
		o, i := outs[proc], ins[proc]
		if o == nil || i == nil {
			continue
		}
		p.Frames += len(i.c2a) + len(i.a2c)
		pp := &procPair{p: p, proc: proc, out: o, in: i, fwd: byID{}, back: byID{}}
		pp.pairMessages(o.c2a, i.c2a, true)
		pp.pairMessages(i.a2c, o.a2c, false)
		pp.pairAnswers(i.a2c, o.a2c, pp.fwd, true)
		pp.pairAnswers(o.c2a, i.c2a, pp.back, false)
		pp.judge()
	}
	sortFindings(p.Findings, outer)
	return p
}

// split reads one hop's frames per Agent process. On the outer hop a c2a
// frame counts where the proxy read it (deliver) and an a2c frame where it
// wrote it (send); the inner hop's tap records both at once, and its
// deliver counts.
func split(events []traces.Event, inner bool) map[string]*side {
	sides := map[string]*side{}
	waiting := map[string][]*traces.Event{} // sends not yet delivered, by link and dir
	counted := map[string][]*frame{}        // outer a2c frames, counted at their send, not yet delivered
	for k := range events {
		e := &events[k]
		if e.Frame == "" || (e.Kind != traces.KindSend && e.Kind != traces.KindDeliver) {
			continue
		}
		proc := e.To
		if e.Dir == traces.AgentToClient {
			proc = e.From
		}
		at := e.Link + e.Dir
		countAtSend := !inner && e.Dir == traces.AgentToClient
		if e.Kind == traces.KindDeliver && countAtSend {
			if i := firstWith(counted[at], e.Frame); i >= 0 {
				counted[at][i].also = e
				counted[at] = append(counted[at][:i:i], counted[at][i+1:]...)
			}
			continue
		}
		f := &frame{e: e}
		if e.Kind == traces.KindSend && !countAtSend {
			waiting[at] = append(waiting[at], e)
			continue // its deliver is what counts
		}
		if e.Kind == traces.KindSend {
			counted[at] = append(counted[at], f)
		} else {
			q := waiting[at]
			for i, s := range q {
				if s.Frame == e.Frame {
					f.also = s
					waiting[at] = append(q[:i:i], q[i+1:]...)
					break
				}
			}
		}
		l := acp.ParseLine([]byte(e.Frame))
		if l.Batch || len(l.Entries) != 1 || l.Entries[0].Err != nil {
			continue
		}
		f.msg = l.Entries[0].Msg
		if len(f.msg.Params) > 0 && json.Unmarshal(f.msg.Params, &f.params) != nil {
			f.params = nil
		}
		s := sides[proc]
		if s == nil {
			s = &side{}
			sides[proc] = s
		}
		if e.Dir == traces.ClientToAgent {
			s.c2a = append(s.c2a, f)
		} else {
			s.a2c = append(s.a2c, f)
		}
	}
	return sides
}

func firstWith(fs []*frame, bytes string) int {
	for i, f := range fs {
		if f.e.Frame == bytes {
			return i
		}
	}
	return -1
}

// order is the Agent processes of the inner hop as they started.
func order(inner []traces.Event) []string {
	var procs []string
	for _, e := range inner {
		if e.Kind == traces.KindConnect && !slices.Contains(procs, e.To) {
			procs = append(procs, e.To)
		}
	}
	return procs
}

// procPair pairs one Agent process's frames. fwd maps the proxy's request
// ids on the inner hop to the Client's request it forwarded; back maps the
// Client's ids of the Agent's requests, which the proxy forwarded outward,
// to the inner request.
type procPair struct {
	p         *Pairing
	proc      string
	out, in   *side
	fwd, back byID
}

// byID is the requests sent with each id on one hop, in order, each with
// the frame it was on the other hop. An id may be used again once its
// request is answered, so an answer belongs to the latest request with
// its id before it.
type byID map[acp.ID][]idUse

type idUse struct {
	seq   int64  // the request's event on the hop the ids are from
	other *frame // the request on the other hop
}

func (m byID) add(id acp.ID, seq int64, other *frame) {
	m[id] = append(m[id], idUse{seq, other})
}

// before is the other hop's frame of the latest request with id sent
// before seq, nil for none.
func (m byID) before(id acp.ID, seq int64) *frame {
	uses := m[id]
	for k := len(uses) - 1; k >= 0; k-- {
		if uses[k].seq < seq {
			return uses[k].other
		}
	}
	return nil
}

// pairMessages pairs requests and notifications from one hop (src) with
// the frames they became on the other (dst); outward is false for the
// Agent's frames, which travel from the inner hop out.
func (pp *procPair) pairMessages(src, dst []*frame, inward bool) {
	for _, s := range src {
		if s.msg.Method == "" {
			continue
		}
		d := pp.match(s, dst, sameParams)
		if d == nil {
			d = pp.match(s, dst, sameButRewritable)
		}
		if d == nil {
			continue
		}
		s.paired, d.paired = d, s
		outer, inner := s, d
		if !inward {
			outer, inner = d, s
		}
		pp.link(outer, inner)
		if s.msg.ID == "" || d.msg.ID == "" {
			continue
		}
		if inward {
			pp.fwd.add(inner.msg.ID, inner.e.Seq, outer)
		} else {
			pp.back.add(outer.msg.ID, outer.e.Seq, inner)
		}
	}
}

func (pp *procPair) match(s *frame, dst []*frame, same func(a, b *frame) bool) *frame {
	for _, d := range dst {
		if d.paired == nil && d.msg.Method == s.msg.Method && (d.msg.ID == "") == (s.msg.ID == "") && same(s, d) {
			return d
		}
	}
	return nil
}

// link records that outer and inner are one frame on two hops.
func (pp *procPair) link(outer, inner *frame) {
	pp.p.Paired++
	pp.p.Inner[outer.e.Seq] = inner.e
	if outer.also != nil {
		pp.p.Inner[outer.also.Seq] = inner.e
	}
}

// pairAnswers pairs the answers on hop src to the requests named by ids
// (the request on src's hop → the request on the other hop) with the
// answer on dst to that other request; fromInner says src is the inner hop.
func (pp *procPair) pairAnswers(src, dst []*frame, ids byID, fromInner bool) {
	for _, s := range src {
		if s.msg.Kind() != acp.KindResponse {
			continue
		}
		req := ids.before(s.msg.ID, s.e.Seq)
		if req == nil {
			continue
		}
		var want, other *frame
		for _, d := range dst {
			if d.paired != nil || d.msg.Kind() != acp.KindResponse || !sameAnswer(s, d) {
				continue
			}
			if d.msg.ID == req.msg.ID {
				want = d
				break
			}
			if other == nil {
				other = d
			}
		}
		d := want
		if d == nil && other != nil && hasMessageID(s) {
			d = other // a messageId is the Agent's own: it went to another request
		}
		if d == nil {
			continue
		}
		s.paired, d.paired = d, s
		if fromInner {
			pp.link(d, s)
		} else {
			pp.link(s, d)
		}
	}
}

// sameParams: equal params, as JSON values.
func sameParams(a, b *frame) bool {
	return jsonEqual(a.msg.Params, b.msg.Params)
}

// sameButRewritable: equal params but for a cancel's requestId and a
// prompt's idempotencyKey.
func sameButRewritable(a, b *frame) bool {
	if a.params == nil || b.params == nil {
		return false
	}
	for k, v := range a.params {
		if skip(a.msg.Method, k) {
			continue
		}
		if w, ok := b.params[k]; !ok || !jsonEqual(v, w) {
			return false
		}
	}
	for k := range b.params {
		if _, ok := a.params[k]; !ok && !skip(a.msg.Method, k) {
			return false
		}
	}
	return true
}

func skip(method, field string) bool {
	return method == acp.MethodCancelRequest && field == "requestId" || method == acp.MethodSessionPrompt && field == "idempotencyKey"
}

func sameAnswer(a, b *frame) bool {
	if (a.msg.Error == nil) != (b.msg.Error == nil) {
		return false
	}
	if a.msg.Error != nil {
		return a.msg.Error.Code == b.msg.Error.Code && a.msg.Error.Message == b.msg.Error.Message && jsonEqual(a.msg.Error.Data, b.msg.Error.Data)
	}
	return jsonEqual(a.msg.Result, b.msg.Result)
}

// hasMessageID says whether an answer carries a messageId: an answer no
// other request can have had.
func hasMessageID(f *frame) bool {
	var r struct {
		MessageID string `json:"messageId"`
	}
	return f.msg.Error == nil && json.Unmarshal(f.msg.Result, &r) == nil && r.MessageID != ""
}

func jsonEqual(a, b json.RawMessage) bool {
	return bytes.Equal(a, b) || canon(a) == canon(b)
}

// short is a frame's bytes cut for a sentence.
func short(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return strings.TrimSpace(s)
}
