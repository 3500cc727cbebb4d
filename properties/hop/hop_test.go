package hop_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/properties/hop"
	"github.com/acpsim/acpsim/traces"
)

// path builds the two hops of one proxy process: the Clients' link to it
// (outer, as acpsim check records it) and its link to the Agent (inner, as
// the hop's tap records it).
type path struct {
	outer, inner []traces.Event
}

const (
	outerLink = "c1:a1#1"
	innerLink = "proxy:a1#1"
)

func newPath() *path {
	p := &path{}
	p.outer = append(p.outer, traces.Event{Seq: 1, Kind: traces.KindConnect, Link: outerLink, From: "c1", To: "a1#1"})
	p.inner = append(p.inner, traces.Event{Seq: 1, Kind: traces.KindConnect, Link: innerLink, From: "proxy", To: "a1#1"})
	return p
}

func (p *path) add(hopInner bool, dir, frame string) int64 {
	evs := &p.outer
	link, client := outerLink, "c1"
	if hopInner {
		evs, link, client = &p.inner, innerLink, "proxy"
	}
	from, to := client, "a1#1"
	if dir == traces.AgentToClient {
		from, to = to, from
	}
	for _, kind := range []string{traces.KindSend, traces.KindDeliver} {
		*evs = append(*evs, traces.Event{Seq: int64(len(*evs) + 1), Kind: kind, Link: link, From: from, To: to, Dir: dir, Frame: frame})
	}
	return int64(len(*evs)) // the deliver
}

// toAgent is a Client frame the proxy forwarded as inner ("": not at all).
func (p *path) toAgent(outer, inner string) {
	p.add(false, traces.ClientToAgent, outer)
	if inner != "" {
		p.add(true, traces.ClientToAgent, inner)
	}
}

// toClient is an Agent frame the proxy passed on as outer.
func (p *path) toClient(inner, outer string) {
	p.add(true, traces.AgentToClient, inner)
	if outer != "" {
		p.add(false, traces.AgentToClient, outer)
	}
}

func prompt(id, text, key string) string {
	k := ""
	if key != "" {
		k = fmt.Sprintf(`,"idempotencyKey":%q`, key)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":%q}]%s}}`, id, text, k)
}

func cancel(id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":%s}}`, id)
}

func answer(id, messageID string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"messageId":%q}}`, id, messageID)
}

func withdrawn(id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32800,"message":"request cancelled"}}`, id)
}

func kinds(p *hop.Pairing) []string {
	var out []string
	for _, f := range p.Findings {
		out = append(out, f.Kind)
	}
	return out
}

func TestAnHonestProxyPairsEveryFrameAndIsFoundClean(t *testing.T) {
	p := newPath()
	p.toAgent(prompt(`0`, "a", "k-a"), prompt(`1`, "a", "k-a"))
	p.toAgent(prompt(`1`, "b", "k-b"), prompt(`2`, "b", "k-b"))
	p.toAgent(cancel(`1`), cancel(`2`))
	p.toClient(answer(`1`, "m-a"), answer(`0`, "m-a"))
	p.toClient(withdrawn(`2`), withdrawn(`1`))
	got := hop.Pair(p.outer, p.inner)
	if len(got.Findings) != 0 || got.Frames != 5 || got.Paired != 5 {
		t.Fatalf("findings %q, %d of %d inner frames paired; want none, 5 of 5", kinds(got), got.Paired, got.Frames)
	}
	if in := got.Inner[p.outer[len(p.outer)-1].Seq]; in == nil || !strings.Contains(in.Frame, `"id":2`) {
		t.Fatalf("the Client's -32800 for request 1 must pair with the Agent's for request 2, got %v", in)
	}
}

// The conductor bug: ids renumbered, the cancel's requestId not. The
// Client cancels b (its 1); the proxy's cancel names 1, its id for a.
func TestACancelForwardedUnmappedIsNamedWithTheRequestItLandsOn(t *testing.T) {
	p := newPath()
	p.toAgent(prompt(`0`, "a", "k-a"), prompt(`1`, "a", "k-a"))
	p.toAgent(prompt(`1`, "b", "k-b"), prompt(`2`, "b", "k-b"))
	p.toAgent(cancel(`1`), cancel(`1`))
	p.toClient(withdrawn(`1`), withdrawn(`0`))
	got := hop.Pair(p.outer, p.inner)
	if len(got.Findings) != 1 || got.Findings[0].Kind != hop.UnmappedCancel {
		t.Fatalf("findings %q, want one unmapped-cancel", kinds(got))
	}
	text := got.Findings[0].Text
	for _, want := range []string{"cancelled its request 1", "naming request 1", "forwarded request 1 as 2", "the Client's request 0"} {
		if !strings.Contains(text, want) {
			t.Errorf("finding %q does not say %q", text, want)
		}
	}
}

// A cancel that crosses the answer: the Agent answered the proxy's 2 (the
// Client's 1) before the proxy forwarded the Client's cancel, by then
// unmapped. The request is over, so the cancel is a no-op whatever it
// names: no finding. The same cancel while the request is still pending
// is one.
func TestACancelThatCrossesTheAnswerIsNoFinding(t *testing.T) {
	for _, pending := range []bool{false, true} {
		p := newPath()
		p.toAgent(prompt(`1`, "a", "k-a"), prompt(`"p0-2"`, "a", "k-a"))
		p.add(false, traces.ClientToAgent, cancel(`1`))
		if !pending {
			p.toClient(answer(`"p0-2"`, "m-a"), answer(`1`, "m-a"))
		}
		p.add(true, traces.ClientToAgent, cancel(`1`))
		got := hop.Pair(p.outer, p.inner)
		want := ""
		if pending {
			want = hop.UnmappedCancel
		}
		if strings.Join(kinds(got), " ") != want {
			t.Errorf("request still pending %v: findings %q, want %q", pending, kinds(got), want)
		}
	}
}

// A proxy may reuse an id once its request is answered: the answer to the
// first request under that id does not excuse an unmapped cancel of the
// second, still pending.
func TestAnAnswerToAnEarlierRequestUnderTheSameIdExcusesNoCancel(t *testing.T) {
	p := newPath()
	p.toAgent(prompt(`1`, "a", "k-a"), prompt(`"p0-2"`, "a", "k-a"))
	p.toClient(answer(`"p0-2"`, "m-a"), answer(`1`, "m-a"))
	p.toAgent(prompt(`2`, "b", "k-b"), prompt(`"p0-2"`, "b", "k-b")) // the id again
	p.toAgent(cancel(`2`), cancel(`5`))                              // b pending, the cancel unmapped
	got := hop.Pair(p.outer, p.inner)
	if !slices.Contains(kinds(got), hop.UnmappedCancel) {
		t.Fatalf("findings %q, want an unmapped-cancel: a's answer is not b's", kinds(got))
	}
}

// A proxy that uses an id again once its request is answered routes each
// answer right: nothing to find.
func TestAProxyThatReusesAnAnsweredIdIsFoundClean(t *testing.T) {
	p := newPath()
	p.toAgent(prompt(`1`, "a", "k-a"), prompt(`"p0-2"`, "a", "k-a"))
	p.toClient(answer(`"p0-2"`, "m-a"), answer(`1`, "m-a"))
	p.toAgent(prompt(`2`, "b", "k-b"), prompt(`"p0-2"`, "b", "k-b"))
	p.toClient(answer(`"p0-2"`, "m-b"), answer(`2`, "m-b"))
	if got := hop.Pair(p.outer, p.inner); len(got.Findings) != 0 || got.Paired != 4 {
		t.Fatalf("findings %q, %d frames paired; want none, 4", kinds(got), got.Paired)
	}
}

// Ids that coincide on both hops hide an unmapped cancel: nothing to find.
func TestACancelWhoseIdsCoincideIsNoFinding(t *testing.T) {
	p := newPath()
	p.toAgent(prompt(`1`, "a", "k-a"), prompt(`1`, "a", "k-a"))
	p.toAgent(cancel(`1`), cancel(`1`))
	if got := hop.Pair(p.outer, p.inner); len(got.Findings) != 0 {
		t.Fatalf("findings %q, want none", kinds(got))
	}
}

func TestAKeyDroppedOrChangedIsFound(t *testing.T) {
	p := newPath()
	p.toAgent(prompt(`1`, "a", "k-a"), prompt(`1`, "a", ""))
	p.toAgent(prompt(`2`, "b", "k-b"), prompt(`2`, "b", "k-B"))
	p.toAgent(prompt(`3`, "c", ""), prompt(`3`, "c", ""))
	got := hop.Pair(p.outer, p.inner)
	if strings.Join(kinds(got), " ") != "key-changed key-changed" {
		t.Fatalf("findings %q, want key-changed twice (a, b), not for c", kinds(got))
	}
	if !strings.Contains(got.Findings[0].Text, "with no idempotencyKey") || !strings.Contains(got.Findings[1].Text, `with idempotencyKey "k-B"`) {
		t.Fatalf("findings do not say what became of each key:\n%s\n%s", got.Findings[0].Text, got.Findings[1].Text)
	}
}

func TestAnAnswerPassedToAnotherRequestIsFound(t *testing.T) {
	p := newPath()
	p.toAgent(prompt(`"r1"`, "a", "k-a"), prompt(`1`, "a", "k-a"))
	p.toAgent(prompt(`"r2"`, "b", "k-b"), prompt(`2`, "b", "k-b"))
	p.toClient(answer(`2`, "m-b"), answer(`"r1"`, "m-b")) // b's answer, to a
	p.toClient(answer(`1`, "m-a"), answer(`"r2"`, "m-a"))
	got := hop.Pair(p.outer, p.inner)
	if strings.Join(kinds(got), " ") != "misrouted-answer misrouted-answer" {
		t.Fatalf("findings %q, want two misrouted answers", kinds(got))
	}
	if !strings.Contains(got.Findings[0].Text, `answer to its request "r1"`) && !strings.Contains(got.Findings[1].Text, `answer to its request "r1"`) {
		t.Fatalf("no finding says b's answer went to r1: %v", got.Findings)
	}
}

func TestAPromptOfTheProxysOwnIsFoundAndARetryUnderTheClientsKeyIsNot(t *testing.T) {
	p := newPath()
	p.toAgent(prompt(`1`, "a", "k-a"), prompt(`1`, "a", "k-a"))
	p.add(true, traces.ClientToAgent, prompt(`2`, "a", "k-a"))   // its retry, the Client's key: safe
	p.add(true, traces.ClientToAgent, prompt(`3`, "a", "fresh")) // its retry, a fresh key
	got := hop.Pair(p.outer, p.inner)
	if strings.Join(kinds(got), " ") != "own-prompt" || !strings.Contains(got.Findings[0].Text, `"fresh"`) {
		t.Fatalf("findings %q (%v), want one own-prompt, the fresh key's", kinds(got), got.Findings)
	}
}

// A proxy that rewrites more than ids (here, session ids) pairs no prompt;
// that is no finding: it sent no more prompts than it was sent.
func TestAProxyThatRewritesSessionsIsNotAccused(t *testing.T) {
	p := newPath()
	out := prompt(`1`, "a", "k-a")
	p.toAgent(out, strings.Replace(out, `"s1"`, `"inner-s1"`, 1))
	got := hop.Pair(p.outer, p.inner)
	if len(got.Findings) != 0 || got.Paired != 0 || got.Frames != 1 {
		t.Fatalf("findings %q, paired %d of %d; want none, 0 of 1", kinds(got), got.Paired, got.Frames)
	}
}

func TestEveryKindHasARule(t *testing.T) {
	for _, k := range hop.Kinds {
		if hop.Rule(k.Name) == "" || !strings.Contains(k.Rule, `"`) {
			t.Errorf("kind %s: its rule must quote the spec, got %q", k.Name, k.Rule)
		}
	}
}
