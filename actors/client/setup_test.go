package client_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/traces"
)

var storageDown = acp.Errorf(acp.CodeInternalError, "storage unavailable")

// onlyResume returns the one session/resume among o's sends.
func onlyResume(t *testing.T, o outs) sent {
	t.Helper()
	if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionResume}) {
		t.Fatalf("want one session/resume, got %v (%+v)", got, o.all)
	}
	return o.sends[0]
}

// onlyTimer returns the one timer among o's outputs, which must hold
// nothing else.
func onlyTimer(t *testing.T, o outs) client.Output {
	t.Helper()
	if len(o.all) != 1 || len(o.timers) != 1 {
		t.Fatalf("want only a timer, got %+v", o.all)
	}
	return o.timers[0]
}

// downAndBack loses the connection and makes a new one; it returns the
// outputs of the new connection's initialize answer.
func (h *harness) downAndBack(conn string) outs {
	h.t.Helper()
	o := h.take(h.c.Disconnected(h.conn))
	if r := onlyTimer(h.t, o); r.After != backoff {
		h.t.Fatalf("reconnect after a lost connection waits %v, want the plain %v", r.After, backoff)
	}
	h.fire(o.timers[0].ID)
	return h.handshake(conn)
}

// The waits after answered set-up errors double from Backoff up to the cap,
// a lost connection in between neither counts nor resets them, and the
// eighth error in a row ends the session: the pending submission is
// unknown, a later one fails at once, nothing is sent any more.
func TestClientBacksOffOnSetupErrorsThenGivesUp(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	var asked []int
	h.intN = func(n int) int { asked = append(asked, n); return n - 1 } // the longest jitter: the full wait
	h.ready()
	onlyPrompt(t, h.submit("sub-1", "hi", 0))
	resume := onlyResume(t, h.downAndBack("conn-2"))
	asked = nil

	var waits []time.Duration
	for n := 1; ; n++ {
		o := h.receive(acp.ErrorResponse(resume.msg.ID, storageDown))
		if n == client.DefaultSetupAttempts {
			want := []client.Output{{Kind: client.OutOutcome, Sub: "sub-1", Outcome: traces.OutcomeUnknown}}
			if !reflect.DeepEqual(o.all, want) {
				t.Fatalf("error %d: %+v, want only %+v", n, o.all, want)
			}
			break
		}
		tm := onlyTimer(t, o)
		waits = append(waits, tm.After)
		if n == 3 {
			// A lost connection: the plain reconnect, then the session
			// waits out its backoff on the new connection too.
			o = h.downAndBack("conn-3")
			tm = onlyTimer(t, o)
			if tm.After != waits[len(waits)-1] {
				t.Errorf("after reconnecting the session waits %v, want %v as before", tm.After, waits[len(waits)-1])
			}
		}
		resume = onlyResume(t, h.fire(tm.ID))
	}
	want := []time.Duration{20, 40, 80, 80, 160, 320, 640, 1000}
	for i := range want {
		want[i] *= time.Millisecond
	}
	// The wait of error 3 is drawn twice: before and after the reconnect.
	got := append([]time.Duration(nil), waits[:3]...)
	got = append(got, waits[2])
	got = append(got, waits[3:]...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("waits %v, want %v (doubling from %v, capped at %v)", got, want, backoff, client.DefaultBackoffCap)
	}
	if len(asked) != len(want) || asked[0] != int(10*time.Millisecond)+1 {
		t.Errorf("jitter draws %v, want one per wait from Env.IntN, the first over (0, 10ms]", asked)
	}
	if h.c.Pending() {
		t.Error("Pending() after the Client gave the session up")
	}
	o := h.submit("sub-2", "more", 0)
	if want := []client.Output{{Kind: client.OutOutcome, Sub: "sub-2", Outcome: traces.OutcomeFailed}}; !reflect.DeepEqual(o.all, want) {
		t.Errorf("submission to a session given up: %+v, want %+v (never sent)", o.all, want)
	}
	if o := h.downAndBack("conn-4"); len(o.all) != 0 {
		t.Errorf("a session given up is not tried again: %+v", o.all)
	}
}

// The jitter draws the wait from its upper half: the shortest draw waits
// half of it.
func TestClientSetupJitterLowDraw(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	h.ready()
	resume := onlyResume(t, h.downAndBack("conn-2"))
	h.intN = func(int) int { return 0 }
	for _, want := range []time.Duration{10, 20, 40} {
		tm := onlyTimer(t, h.receive(acp.ErrorResponse(resume.msg.ID, storageDown)))
		if tm.After != want*time.Millisecond {
			t.Errorf("wait %v, want %v", tm.After, want*time.Millisecond)
		}
		resume = onlyResume(t, h.fire(tm.ID))
	}
}

// A success in between starts the count over, and errors on session/new
// count as set-up errors too; -32002 on a resume is no error but the cue to
// create the session anew.
func TestClientSetupErrorsResetOnSuccess(t *testing.T) {
	h := newHarness(t, policy(t, "keyed"), 1)
	if o := split(t, h.c.Start()); o.connects != 1 {
		t.Fatalf("Start: %+v", o.all)
	}
	o := h.handshake("conn-1")
	for range client.DefaultSetupAttempts - 1 {
		newReq := o.sends[0]
		if newReq.msg.Method != acp.MethodSessionNew {
			t.Fatalf("want session/new, got %v", o.methods())
		}
		o = h.fire(onlyTimer(t, h.receive(acp.ErrorResponse(newReq.msg.ID, storageDown))).ID)
	}
	if o := h.receive(acp.Result(o.sends[0].msg.ID, acp.NewSessionResult{SessionID: "S0"})); len(o.all) != 0 {
		t.Fatalf("session/new answered at last: %+v", o.all)
	}
	resume := onlyResume(t, h.downAndBack("conn-2"))
	tm := onlyTimer(t, h.receive(acp.ErrorResponse(resume.msg.ID, storageDown)))
	if tm.After != backoff {
		t.Errorf("first error after a success waits %v, want %v", tm.After, backoff)
	}
	resume = onlyResume(t, h.fire(tm.ID))
	o = h.receive(acp.ErrorResponse(resume.msg.ID, acp.SessionNotFound("S0")))
	if got := o.methods(); !reflect.DeepEqual(got, []string{acp.MethodSessionNew}) {
		t.Errorf("-32002 on resume: %v, want session/new at once", got)
	}
}
