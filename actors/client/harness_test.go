package client_test

// The test harness of the model Client: it drives a Client by hand and
// decodes what it sends.

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
)

const (
	timeout = 250 * time.Millisecond
	backoff = 20 * time.Millisecond
)

// sent is one OutSend output, decoded.
type sent struct {
	conn string
	sub  string
	msg  acp.Message
}

func decode(t *testing.T, frame []byte) acp.Message {
	t.Helper()
	line := acp.ParseLine(frame)
	if line.Batch || len(line.Entries) != 1 || line.Entries[0].Err != nil {
		t.Fatalf("frame %s is not one valid JSON-RPC message: %+v", frame, line)
	}
	return line.Entries[0].Msg
}

// split sorts outputs by kind and checks that every OutSend is a request.
type outs struct {
	all      []client.Output
	sends    []sent
	timers   []client.Output
	outcomes []client.Output
	connects int
	notes    []acp.Message // notifications ($/cancel_request, session/cancel)
}

func split(t *testing.T, os []client.Output) outs {
	t.Helper()
	o := outs{all: os}
	for _, out := range os {
		switch out.Kind {
		case client.OutSend:
			m := decode(t, out.Frame)
			if m.Kind() == acp.KindNotification {
				o.notes = append(o.notes, m)
				continue
			}
			if m.Kind() != acp.KindRequest {
				t.Fatalf("the Client sent a non-request: %s", out.Frame)
			}
			o.sends = append(o.sends, sent{conn: out.Conn, sub: out.Sub, msg: m})
		case client.OutTimer:
			o.timers = append(o.timers, out)
		case client.OutOutcome:
			o.outcomes = append(o.outcomes, out)
		case client.OutConnect:
			o.connects++
		default:
			t.Fatalf("unknown output kind %d: %+v", out.Kind, out)
		}
	}
	return o
}

func (o outs) methods() []string {
	var ms []string
	for _, s := range o.sends {
		ms = append(ms, s.msg.Method)
	}
	return ms
}

func params[T any](t *testing.T, s sent) T {
	t.Helper()
	var p T
	if err := acp.DecodeParams(s.msg.Params, &p); err != nil {
		t.Fatalf("params of %s: %v", s.msg.Method, err)
	}
	return p
}

// promptOf decodes a session/prompt request: session, text, key (present).
func promptOf(t *testing.T, s sent) (session, text, key string, keyed bool) {
	t.Helper()
	if s.msg.Method != acp.MethodSessionPrompt {
		t.Fatalf("expected session/prompt, got %s", s.msg.Method)
	}
	p := params[acp.PromptParams](t, s)
	k, present, kerr := p.Key()
	if kerr != nil {
		t.Fatalf("prompt with an invalid key: %v", kerr)
	}
	return p.SessionID, acp.PromptText(p.Prompt), k, present
}

// harness drives one Client by hand.
type harness struct {
	t      *testing.T
	c      *client.Client
	pol    client.Policy
	conn   string
	timers map[int]client.Output
	keys   int
	// intN answers Env.IntN; the default never reuses another session's key.
	intN func(n int) int
	// draws answer Env.Draw by the decision's name without its subject
	// ("key-form" for "sub-1/key-form"); a decision not there takes its
	// ordinary option, n-1.
	draws map[string]int
}

func (h *harness) draw(name string, n int) int {
	if v, ok := h.draws[name[strings.LastIndexByte(name, '/')+1:]]; ok {
		return v
	}
	if i := strings.IndexByte(name, '/'); i >= 0 {
		if v, ok := h.draws[strings.SplitN(name[i+1:], "/", 2)[0]]; ok {
			return v
		}
	}
	return n - 1
}

func newHarness(t *testing.T, pol client.Policy, sessions int) *harness {
	h := &harness{t: t, pol: pol, timers: map[int]client.Output{}, intN: func(n int) int { return n - 1 }}
	h.c = client.New(client.Config{
		Name: "client-1", Policy: pol, Sessions: sessions, Cwd: "/work",
		Timeout: timeout, Backoff: backoff,
	}, client.Env{
		NewID: func() string { h.keys++; return fmt.Sprintf("key-%d", h.keys) },
		IntN:  func(n int) int { return h.intN(n) },
		Draw:  h.draw,
	})
	return h
}

func (h *harness) take(os []client.Output) outs {
	h.t.Helper()
	o := split(h.t, os)
	for _, tm := range o.timers {
		if _, dup := h.timers[tm.ID]; dup {
			h.t.Fatalf("timer id %d reused", tm.ID)
		}
		h.timers[tm.ID] = tm
	}
	for _, s := range o.sends {
		if s.conn != h.conn {
			h.t.Fatalf("%s sent on %q, the connection is %q", s.msg.Method, s.conn, h.conn)
		}
	}
	return o
}

func (h *harness) connected(conn string) outs {
	h.conn = conn
	return h.take(h.c.Connected(conn))
}

func (h *harness) receive(frame []byte) outs { return h.take(h.c.Receive(h.conn, frame)) }

func (h *harness) submit(sub, text string, sess int) outs {
	return h.take(h.c.Submit(sub, text, sess))
}

// fire fires pending timer id and fails if it is not pending.
func (h *harness) fire(id int) outs {
	h.t.Helper()
	if _, ok := h.timers[id]; !ok {
		h.t.Fatalf("timer %d is not pending", id)
	}
	delete(h.timers, id)
	return h.take(h.c.Timer(id))
}

func (h *harness) timerAfter(o outs, d time.Duration) int {
	h.t.Helper()
	for _, tm := range o.timers {
		if tm.After == d {
			return tm.ID
		}
	}
	h.t.Fatalf("no timer of %v among %+v", d, o.timers)
	return 0
}

// handshake connects on conn and answers initialize; it returns the session
// requests that follow.
func (h *harness) handshake(conn string) outs {
	h.t.Helper()
	o := h.connected(conn)
	if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodInitialize}) {
		h.t.Fatalf("after Connected the Client sent %v, want [initialize]", got)
	}
	return h.receive(acp.Result(o.sends[0].msg.ID, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion, Info: acp.Implementation{Name: "agent", Version: "1"}}))
}

// ready runs Start and a first handshake and creates the sessions S0, S1, …
// answering session/new in order; it returns the outputs of the last answer.
func (h *harness) ready() outs {
	h.t.Helper()
	if o := split(h.t, h.c.Start()); o.connects != 1 || len(o.all) != 1 {
		h.t.Fatalf("Start = %+v, want one OutConnect", o.all)
	}
	o := h.handshake("conn-1")
	var last outs
	for i, s := range o.sends {
		last = h.receive(acp.Result(s.msg.ID, acp.NewSessionResult{SessionID: fmt.Sprintf("S%d", i)}))
	}
	return last
}

func onlyPrompt(t *testing.T, o outs) sent {
	t.Helper()
	if len(o.sends) != 1 || o.sends[0].msg.Method != acp.MethodSessionPrompt {
		t.Fatalf("want one session/prompt, got %v", o.methods())
	}
	return o.sends[0]
}

func policy(t *testing.T, name string) client.Policy {
	t.Helper()
	p, err := client.LookupPolicy(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func forEachPolicy(t *testing.T, f func(t *testing.T, pol client.Policy)) {
	for _, pol := range client.Policies {
		t.Run(pol.Name, func(t *testing.T) { f(t, pol) })
	}
}
