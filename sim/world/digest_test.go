package world

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// Every digest the actors make reads as its frame's bytes read, field by
// field, on every frame of the live runs (every link, policy and mutant),
// and the digests cover most of a run's frames: the checker's typed path
// spares the scan of nearly every frame and changes no reading.
func TestDigestsReadAsTheBytes(t *testing.T) {
	var r Runner
	sends, digested, created, messages := 0, 0, 0, 0
	for _, cfg := range liveRuns() {
		name := fmt.Sprintf("%s/%s/%s/%d", cfg.Link, cfg.Policy, cfg.Agent, cfg.Seed)
		r.judged = func(e traces.Event) {
			if e.Kind != traces.KindSend {
				return
			}
			sends++
			if e.Digest.Describes(e.Frame) {
				digested++
			}
			if d := properties.DigestDiff(&e); d != "" {
				t.Fatalf("%s: event %d %s: the digest reads otherwise than the bytes: %s", name, e.Seq, e.Frame, d)
			}
			// The HTTP link routes by the digest as by the bytes.
			if e.Digest.Describes(e.Frame) {
				frame := unsafe.Slice(unsafe.StringData(e.Frame), len(e.Frame)) // the very bytes: a copy is not described
				if got, want := netfault.HTTPRouteOf(frame, e.Digest), netfault.HTTPRouteOf([]byte(e.Frame), nil); got != want {
					t.Fatalf("%s: event %d %s: routed %+v by its digest, %+v by its bytes", name, e.Seq, e.Frame, got, want)
				}
				// A request reads from its digest as ParseLine reads it.
				if m, ok := e.Digest.Message(frame); ok {
					l := acp.ParseLine(frame)
					if l.Batch || !reflect.DeepEqual(l.Entries[0], acp.Parsed{Msg: m}) {
						t.Fatalf("%s: event %d %s: the digest's message %+v, ParseLine's %+v", name, e.Seq, e.Frame, m, l.Entries[0])
					}
					messages++
				}
				// And the world finds the same session created.
				if got, want := createdSession(frame, e.Digest), createdSession([]byte(e.Frame), nil); got != want {
					t.Fatalf("%s: event %d %s: created session %q by its digest, %q by its bytes", name, e.Seq, e.Frame, got, want)
				}
				if e.Digest.Session() != "" && createdSession(frame, e.Digest) != "" {
					created++
				}
			}
		}
		if _, err := r.JudgeOnly(cfg); err != nil {
			t.Fatal(err)
		}
	}
	if sends == 0 || digested*10 < sends*7 {
		t.Fatalf("%d of %d frames sent carried a digest, want at least 70%%", digested, sends)
	}
	if created == 0 || messages == 0 {
		t.Fatalf("%d digested frames created a session, %d read as a message: a comparison judged nothing", created, messages)
	}
	t.Logf("%d of %d frames sent carried a digest; %d created a session, %d read as a message", digested, sends, created, messages)
}
