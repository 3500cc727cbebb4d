package netfault_test

// The HTTP link's faults, each on the rig of http_test.go: a POST or its
// 202 lost, a stream broken, a connection expired or deleted, the Agent
// gone, POSTs reordered, and the fault table that names them.

import (
	"reflect"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
)

func TestHTTPPostLost(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.faults["post-lost h/post/2"] = 1
	n := r.link.Post(hPrompt, "sub-1")
	r.run()
	if want := []string{"status 2 0@4ms"}; n != 2 || !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q (the Agent never reads it)", r.log, want)
	}
	if got := r.short()[5:]; !reflect.DeepEqual(got, []string{"send c2a prompt", "drop c2a prompt post-lost"}) {
		t.Errorf("events %q", got)
	}
	// The Client may resend it; this time it gets through.
	r.log = nil
	r.link.Post(hPrompt, "sub-1")
	r.run()
	if want := []string{"agent h#1 reads prompt@5ms", "status 3 202@6ms"}; !reflect.DeepEqual(r.log, want) {
		t.Errorf("resend: %q, want %q", r.log, want)
	}
}

func TestHTTPAcceptedLostDeliversTwiceOnResend(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.faults["accepted-lost h/post/2"] = 1
	r.link.Post(hPrompt, "sub-1")
	r.run()
	r.link.Post(hPrompt, "sub-1") // the Client cannot tell it was read
	r.run()
	want := []string{"agent h#1 reads prompt@3ms", "status 2 0@4ms", "agent h#1 reads prompt@5ms", "status 3 202@6ms"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
	wantEv := []string{"send c2a prompt", "deliver c2a prompt 202 lost", "send c2a prompt", "deliver c2a prompt 202"}
	if got := r.short()[5:]; !reflect.DeepEqual(got, wantEv) {
		t.Errorf("events %q, want %q", got, wantEv)
	}
}

func TestHTTPAcceptedLostOnInitialize(t *testing.T) {
	r := newHRig()
	r.faults["accepted-lost h/post/1"] = 1
	r.link.Post(hInit, "")
	r.loop.RunUntil(ms, nil)
	r.link.FromAgent(hInitResp, "")
	r.run()
	want := []string{"agent connect h#1@1ms", "agent h#1 reads init@1ms", "status 1 0@2ms"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
	// A second initialize makes a new connection; the old one is superseded.
	r.log = nil
	r.link.Post(hInit, "")
	r.run()
	want = []string{"agent disconnect h#1 superseded@3ms", "agent connect h#2@3ms", "agent h#2 reads init@3ms"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
}

func TestHTTPStreamBreakLosesEventsUntilReopen(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.OpenStream("s1")
	r.run()
	r.faults["delay h/sse/1"] = 2 // 30ms: still in flight at the break
	r.faults["stream-break h/sse/2"] = 1
	r.link.FromAgent(hUpd1, "s1")
	r.link.FromAgent(hUpd2, "s1")
	r.link.FromAgent(hUpd3, "s1")
	r.run()
	if want := []string{`closed "s1"@4ms`}; !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
	want := []string{
		"send a2c upd1", "send a2c upd2", "drop a2c upd2 stream-break", "drop a2c upd1 stream-break",
		"send a2c upd3", "drop a2c upd3 stream not open",
	}
	if got := r.short()[5:]; !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	// Reopened (the clock stands at 34ms, where the lost upd1 was due), the
	// stream carries what is written from then on: nothing lost is
	// redelivered.
	r.log = nil
	r.link.OpenStream("s1")
	r.run()
	r.link.FromAgent(hUpd2, "s1")
	r.run()
	if want := []string{"event upd2@36ms"}; !reflect.DeepEqual(r.log, want) {
		t.Errorf("after reopen %q, want %q", r.log, want)
	}
}

func TestHTTPConnExpired(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.OpenStream("s1")
	r.run()
	r.faults["conn-expired h/post/2"] = 1
	r.link.Post(hPrompt, "sub-1")
	r.run()
	if r.link.Connected() {
		t.Error("connected after expiry")
	}
	r.link.Post(hPrompt2, "sub-2")
	r.link.FromAgent(hUpd1, "s1")
	r.run()
	want := []string{
		"agent disconnect h#1 conn-expired@4ms",
		"status 2 404@5ms", `closed ""@5ms`, `closed "s1"@5ms`, "gone@5ms",
		"status 3 404@7ms",
	}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
	wantEv := []string{"send c2a prompt", "drop c2a prompt 404", "disconnect conn-expired", "send c2a prompt2", "drop c2a prompt2 404", "drop a2c upd1 connection closed"}
	if got := r.short()[5:]; !reflect.DeepEqual(got, wantEv) {
		t.Errorf("events %q, want %q", got, wantEv)
	}
	// The decisions of the expiring POST: conn-expired, then only delay.
	if got := r.asked[3:5]; !reflect.DeepEqual(got, []sim.Decision{{Kind: netfault.ConnExpired, Site: "h/post/2", N: 2}, {Kind: netfault.Delay, Site: "h/post/2", N: len(netfault.DelaySteps)}}) {
		t.Errorf("asked %+v", got)
	}
	// A new initialize gives a new connection, named after its POST (each
	// connection is a link of its own in the trace).
	r.log = nil
	next := r.link.NextConn()
	r.link.Post(hInit, "")
	r.run()
	if r.link.Conn() != next || next == "h#1" {
		t.Errorf("Conn() = %q after re-initialize, want %s", r.link.Conn(), next)
	}
}

// A POST in flight when the connection ends is refused with 404 when it
// arrives, though the trace drops it at the disconnect.
func TestHTTPExpiryRefusesPostsInFlight(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.faults["delay h/post/3"] = 3 // 300ms
	r.faults["conn-expired h/post/2"] = 1
	r.link.Post(hPrompt, "")
	r.link.Post(hPrompt2, "")
	r.run()
	want := []string{"agent disconnect h#1 conn-expired@3ms", "status 2 404@4ms", `closed ""@4ms`, "gone@4ms", "status 3 404@304ms"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
	wantEv := []string{"send c2a prompt", "send c2a prompt2", "drop c2a prompt 404", "drop c2a prompt2 404 conn-expired", "disconnect conn-expired"}
	if got := r.short()[5:]; !reflect.DeepEqual(got, wantEv) {
		t.Errorf("events %q, want %q", got, wantEv)
	}
}

func TestHTTPDelete(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.Delete()
	r.run()
	r.link.Post(hPrompt, "")
	r.link.OpenStream("s1")
	r.run()
	want := []string{"agent disconnect h#1 delete@3ms", `closed ""@4ms`, "gone@4ms", "status 2 404@6ms", `closed "s1"@6ms`}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
	if got := r.short()[5]; got != "disconnect delete" {
		t.Errorf("event %q, want disconnect delete", got)
	}
}

func TestHTTPAgentGone(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.OpenStream("s1")
	r.run()
	r.link.FromAgent(hUpd1, "s1")
	r.link.AgentGone("kill")
	r.run()
	want := []string{`closed ""@4ms`, `closed "s1"@4ms`, "gone@4ms"}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q (no Agent-side disconnect)", r.log, want)
	}
	if got := r.short()[5:]; !reflect.DeepEqual(got, []string{"send a2c upd1", "drop a2c upd1 kill", "disconnect kill"}) {
		t.Errorf("events %q", got)
	}
}

// Two POSTs on separate requests can overtake each other; events on one SSE
// stream keep their order behind a delayed one.
func TestHTTPPostsReorderEventsDoNot(t *testing.T) {
	r := newHRig()
	r.connect(t)
	r.link.OpenStream("s1")
	r.run()
	r.log = nil
	r.faults["delay h/post/2"] = 3 // 300ms
	r.faults["delay h/post/3"] = 1 // 2ms
	r.faults["delay h/sse/1"] = 3  // 300ms
	r.faults["delay h/sse/2"] = 1  // 2ms: still behind event 1
	r.link.Post(hPrompt, "")
	r.link.Post(hPrompt2, "")
	r.link.FromAgent(hUpd1, "s1")
	r.link.FromAgent(hUpd2, "s1")
	r.run()
	want := []string{
		"agent h#1 reads prompt2@6ms", "status 3 202@7ms",
		"agent h#1 reads prompt@304ms", "event upd1@304ms", "event upd2@304ms", "status 2 202@305ms",
	}
	if !reflect.DeepEqual(r.log, want) {
		t.Errorf("%q, want %q", r.log, want)
	}
}

func TestHTTPFaultKindsInTable(t *testing.T) {
	rows := map[string]netfault.Fault{}
	for _, f := range netfault.Faults {
		rows[f.Kind] = f
	}
	for _, k := range []string{netfault.PostLost, netfault.AcceptedLost, netfault.StreamBreak, netfault.ConnExpired, netfault.Delay} {
		f, ok := rows[k]
		if !ok {
			t.Errorf("%s missing from Faults", k)
			continue
		}
		if f.Options < 2 || strings.TrimSpace(f.Doc) == "" {
			t.Errorf("%s = %+v: want at least 2 options and a Doc", k, f)
		}
		if k != netfault.Delay && f.Rate != 0 {
			t.Errorf("%s default rate %v, want 0 so stdio seeds do not change", k, f.Rate)
		}
	}
}
