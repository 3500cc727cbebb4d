package hop

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// judge names what the proxy did wrong with one Agent process's frames,
// from the pairs: each finding needs both hops, so a frame that was never
// forwarded (the proxy was killed first) is no finding.
func (pp *procPair) judge() {
	outerPrompts, innerPrompts := 0, 0
	keys := map[string]bool{} // the Client's keys on this process, as JSON
	for _, o := range pp.out.c2a {
		if o.msg.Method == acp.MethodSessionPrompt && o.msg.ID != "" {
			outerPrompts++
			keys[canon(o.params["idempotencyKey"])] = true
		}
	}
	for _, i := range pp.in.c2a {
		if i.msg.Method == acp.MethodSessionPrompt && i.msg.ID != "" {
			innerPrompts++
		}
	}
	for _, o := range pp.out.c2a {
		switch i := o.paired; {
		case i == nil:
		case o.msg.Method == acp.MethodCancelRequest:
			pp.cancel(o, i)
		case o.msg.Method == acp.MethodSessionPrompt:
			pp.key(o, i)
		}
	}
	for _, i := range pp.in.a2c {
		if i.msg.Kind() == acp.KindResponse && i.paired != nil {
			pp.answer(i, i.paired)
		}
	}
	if innerPrompts <= outerPrompts {
		return // a proxy that rewrites more than ids pairs fewer: no more prompts, none its own
	}
	for _, i := range pp.in.c2a {
		if i.msg.Method != acp.MethodSessionPrompt || i.msg.ID == "" || i.paired != nil {
			continue
		}
		key := i.params["idempotencyKey"]
		if keys[canon(key)] {
			continue // the Client's key: a retry the key makes safe
		}
		pp.add(Finding{Kind: OwnPrompt, Inner: []int64{i.e.Seq},
			Text: fmt.Sprintf("the proxy sent a session/prompt (its request %s, %s) on %s that no Client prompt on its link had: %d prompts reached the proxy, it sent %d; %s",
				i.msg.ID, keyPhrase(key), pp.proc, outerPrompts, innerPrompts, short(i.e.Frame))})
	}
}

// cancel: the Client's $/cancel_request o, forwarded as i, must name the
// proxy's id for the request the Client named.
func (pp *procPair) cancel(o, i *frame) {
	named := acp.ID(canon(o.params["requestId"]))
	sent := acp.ID(canon(i.params["requestId"]))
	var req *frame // the Client's request o names, the latest before o
	for _, r := range pp.out.c2a {
		if r.e.Seq > o.e.Seq {
			break
		}
		if r.msg.Kind() == acp.KindRequest && canon(json.RawMessage(r.msg.ID)) == string(named) {
			req = r
		}
	}
	if req == nil {
		return
	}
	var hit *frame // the Client's request the forwarded cancel names on the inner hop
	for _, r := range pp.in.c2a {
		if r.e.Seq < i.e.Seq && r.msg.Kind() == acp.KindRequest && r.paired != nil && canon(json.RawMessage(r.msg.ID)) == string(sent) {
			hit = r.paired
		}
	}
	fwd := req.paired
	if fwd != nil && pp.answeredBefore(fwd, i) && !pp.innerRequestNamed(sent, i) { // no request named: no hit either
		// The Agent had answered the request before the proxy forwarded the
		// cancel: a proxy that forgot its mapping with the answer forwards an
		// id that names nothing, and a cancel of a finished request is a no-op
		// whatever it names. The Client's cancel crossed the answer in flight.
		return
	}
	switch {
	case fwd != nil && fwd.e.Seq < i.e.Seq && canon(json.RawMessage(fwd.msg.ID)) != string(sent):
	case fwd == nil && hit != nil && hit != req:
	default:
		return
	}
	text := fmt.Sprintf("the Client cancelled its request %s (%s) with $/cancel_request; the proxy forwarded that cancel to %s naming request %s", named, req.msg.Method, pp.proc, sent)
	if fwd != nil {
		text += fmt.Sprintf(", while it had forwarded request %s as %s", named, fwd.msg.ID)
	}
	inner := []int64{i.e.Seq}
	outer := []int64{req.e.Seq, o.e.Seq}
	switch {
	case hit != nil && hit != req:
		text += fmt.Sprintf(": %s is its id for the Client's request %s (%s), so the cancel lands on that one", sent, hit.msg.ID, hit.msg.Method)
		outer = append(outer, hit.e.Seq)
		inner = append(inner, hit.paired.e.Seq)
	default:
		text += fmt.Sprintf(": it sent no request %s on that hop", sent)
	}
	if fwd != nil {
		inner = append(inner, fwd.e.Seq)
	}
	pp.add(Finding{Kind: UnmappedCancel, Outer: outer, Inner: inner, Text: text})
}

// answeredBefore says whether the Agent's answer to the proxy's request
// fwd reached the proxy after fwd and before it forwarded the frame at.
func (pp *procPair) answeredBefore(fwd, at *frame) bool {
	for _, a := range pp.in.a2c {
		// After fwd: an id the proxy reuses once its request is answered
		// has an earlier answer that is not this request's.
		if a.e.Seq > fwd.e.Seq && a.e.Seq < at.e.Seq && a.msg.Kind() == acp.KindResponse && a.msg.ID == fwd.msg.ID {
			return true
		}
	}
	return false
}

// innerRequestNamed says whether the proxy had sent a request with id
// before the frame at, paired or not (its own requests count).
func (pp *procPair) innerRequestNamed(id acp.ID, at *frame) bool {
	for _, r := range pp.in.c2a {
		if r.e.Seq < at.e.Seq && r.msg.Kind() == acp.KindRequest && canon(json.RawMessage(r.msg.ID)) == string(id) {
			return true
		}
	}
	return false
}

// key: a prompt o forwarded as i keeps its idempotencyKey as the Client
// sent it (absent stays absent).
func (pp *procPair) key(o, i *frame) {
	ok, ik := o.params["idempotencyKey"], i.params["idempotencyKey"]
	if canon(ok) == canon(ik) {
		return
	}
	pp.add(Finding{Kind: KeyChanged, Outer: []int64{o.e.Seq}, Inner: []int64{i.e.Seq},
		Text: fmt.Sprintf("the Client's session/prompt (its request %s) had %s; the proxy forwarded it to %s (as request %s) with %s",
			o.msg.ID, keyPhrase(ok), pp.proc, i.msg.ID, keyPhrase(ik))})
}

// answer: the Agent's answer i to the proxy's request must reach the
// Client as the answer to the request the proxy forwarded (o is where it
// did arrive).
func (pp *procPair) answer(i, o *frame) {
	req := pp.fwd.before(i.msg.ID, i.e.Seq)
	if req == nil || canon(json.RawMessage(o.msg.ID)) == canon(json.RawMessage(req.msg.ID)) {
		return
	}
	pp.add(Finding{Kind: MisroutedAnswer, Outer: []int64{req.e.Seq, o.e.Seq}, Inner: []int64{i.e.Seq},
		Text: fmt.Sprintf("%s answered the proxy's request %s (the Client's request %s, %s, forwarded) with %s; the proxy passed that answer to the Client as the answer to its request %s",
			pp.proc, i.msg.ID, req.msg.ID, req.msg.Method, short(answerText(i)), o.msg.ID)})
}

func (pp *procPair) add(f Finding) {
	pp.p.Findings = append(pp.p.Findings, f)
}

// sortFindings orders findings by the first outer event they cite (inner
// only: after every outer one), keeping the order of equal ones.
func sortFindings(fs []Finding, outer []traces.Event) {
	first := func(f Finding) int64 {
		if len(f.Outer) == 0 {
			return int64(len(outer)) + 1<<40
		}
		return slices.Min(f.Outer)
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return int(first(a) - first(b))
	})
}

// canon is one spelling of a JSON value ("" for none).
func canon(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func keyPhrase(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "no idempotencyKey"
	}
	if len(raw) > 60 {
		return fmt.Sprintf("idempotencyKey %s… (%d bytes)", raw[:48], len(raw))
	}
	return "idempotencyKey " + string(raw)
}

func answerText(f *frame) string {
	if f.msg.Error != nil {
		return fmt.Sprintf("error %d %q", f.msg.Error.Code, f.msg.Error.Message)
	}
	return "result " + string(f.msg.Result)
}
