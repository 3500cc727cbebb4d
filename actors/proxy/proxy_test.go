package proxy

import (
	"strconv"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/agent"
)

// silent is an inner Machine that answers nothing: the test plays the Agent
// through FromAgent.
type silent struct{}

func (silent) Connect(string) []agent.Output         { return nil }
func (silent) Disconnect(string) []agent.Output      { return nil }
func (silent) Timer(int) []agent.Output              { return nil }
func (silent) Receive(string, []byte) []agent.Output { return nil }

const prompt = `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1","prompt":[],"idempotencyKey":"k1"}}`

// sent is what the proxy sends the Client for the Agent's frames.
func sent(p *Proxy, frames ...string) []string {
	var out []string
	for _, f := range frames {
		for _, o := range p.FromAgent("c", []byte(f)) {
			if o.Kind == agent.OutSend {
				out = append(out, string(o.Frame))
			}
		}
	}
	return out
}

// A well-formed answer, a repeated one and a malformed one all go back under
// the Client's id; one to a request of the proxy's never sent is dropped.
func TestBackMapsEveryAnswerToTheClientsID(t *testing.T) {
	p := New(silent{}, Honest, agent.Env{}, 0)
	p.Receive("c", []byte(prompt))
	p.Receive("c", []byte(strings.Replace(prompt, `"id":7`, `"id":8`, 1)))
	got := sent(p,
		`{"jsonrpc":"2.0","id":"p0-1","result":{"n":1}}`,
		`{"jsonrpc":"2.0","id":"p0-1","result":{"n":2}}`,
		`{"jsonrpc":"2.0","id":"p0-2","result":{},"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":"p0-9","result":{}}`,
		`{"jsonrpc":"2.0","id":"other","result":{}}`,
	)
	want := []string{
		`{"jsonrpc":"2.0","id":7,"result":{"n":1}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"n":2}}`,
		`{"error":{"code":1,"message":"m"},"id":8,"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":"other","result":{}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the Client got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A fresh-key-retry proxy's own retry and the original are one request of
// the Client's: the second of their answers is still dropped, while the
// Agent answering one of them again is passed on.
func TestFreshKeyRetryDropsTheOtherAttemptsAnswer(t *testing.T) {
	p := New(silent{}, FreshKeyRetry, agent.Env{NewID: func() string { return "fresh" }}, 0)
	outs := p.Receive("c", []byte(prompt))
	if len(outs) != 1 || outs[0].Kind != agent.OutTimer {
		t.Fatalf("outputs %v, want the retry timer", outs)
	}
	p.Timer(outs[0].ID) // sends the retry as p0-2
	got := sent(p,
		`{"jsonrpc":"2.0","id":"p0-2","result":{"n":1}}`,
		`{"jsonrpc":"2.0","id":"p0-1","result":{"n":2}}`,
		`{"jsonrpc":"2.0","id":"p0-2","result":{"n":3}}`,
	)
	want := []string{`{"jsonrpc":"2.0","id":7,"result":{"n":1}}`, `{"jsonrpc":"2.0","id":7,"result":{"n":3}}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the Client got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The memory of answered ids is bounded.
func TestAnsweredIsBounded(t *testing.T) {
	p := New(silent{}, Honest, agent.Env{}, 0)
	for range answeredKeep + 10 {
		p.Receive("c", []byte(prompt))
		sent(p, `{"jsonrpc":"2.0","id":"p0-`+strconv.FormatInt(p.next, 10)+`","result":{}}`)
	}
	if len(p.answered) != answeredKeep || len(p.answeredOrder) != answeredKeep {
		t.Fatalf("%d ids remembered (%d in order), want %d", len(p.answered), len(p.answeredOrder), answeredKeep)
	}
}
