package world

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
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
		if _, err := r.Judge(cfg); err != nil {
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

// digestReader is the reference Agent handed each frame's digest, counting
// the frames it read a message from.
type digestReader struct {
	agent.Machine
	frames, read *int
}

func (d digestReader) Receive(conn string, frame []byte) []agent.Output {
	*d.frames++
	return d.Machine.Receive(conn, frame)
}

func (d digestReader) ReceiveDigest(conn string, frame []byte, dg *acp.Digest) []agent.Output {
	*d.frames++
	if _, ok := dg.Message(frame); ok {
		*d.read++
	}
	return d.Machine.(agent.DigestReceiver).ReceiveDigest(conn, frame, dg)
}

// bytesOnly is the reference Agent handed the bytes alone: embedding the
// Machine interface hides its ReceiveDigest.
type bytesOnly struct{ agent.Machine }

// An Agent that reads messages from its frames' digests runs as one that
// reads the bytes, trace byte for byte, on every link; and most of its
// frames reach it with a digest it reads (the rest: initialize, the
// observer's probes and lists).
func TestAgentsReadingDigestsRunAsAgentsReadingBytes(t *testing.T) {
	reference, err := agent.Lookup("reference")
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{LinkStdio, LinkHTTP, LinkWS} {
		for seed := uint64(1); seed <= 3; seed++ {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Link = seed, link
			cfg.EnableLinkFaults()
			frames, read := 0, 0
			cfg.Factory = func(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
				return digestReader{reference(k, open, env), &frames, &read}
			}
			withDigests := traceBytes(t, cfg)
			cfg.Factory = func(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
				return bytesOnly{reference(k, open, env)}
			}
			if fromBytes := traceBytes(t, cfg); !bytes.Equal(fromBytes, withDigests) {
				t.Fatalf("%s seed %d: the run whose Agent read digests differs from the one whose Agent read bytes", link, seed)
			}
			if read*2 < frames {
				t.Fatalf("%s seed %d: the Agent read %d of its %d frames from their digests, want most", link, seed, read, frames)
			}
		}
	}
}

// TestClientsReadingDigestsRunAsClientsReadingBytes is the Clients' and the
// observer's side of the hand-off: each reads a frame laid out as the
// encoders write it from its sender's digest (acp.Digest.Message), and the
// run must be the one where they parse every frame's bytes, on every link.
func TestClientsReadingDigestsRunAsClientsReadingBytes(t *testing.T) {
	for _, link := range []string{LinkStdio, LinkHTTP, LinkWS} {
		for _, policy := range []string{"keyed", "lookup"} {
			for seed := uint64(1); seed <= 3; seed++ {
				cfg := DefaultConfig()
				cfg.Seed, cfg.Link, cfg.Policy = seed, link, policy
				cfg.EnableLinkFaults()
				var handed handedFrames
				cfg.clientFrames = &handed
				withDigests := traceBytes(t, cfg)
				if handed.digested*2 < handed.all {
					t.Fatalf("%s %s seed %d: %d of the %d frames handed to Clients carried a digest, want most", link, policy, seed, handed.digested, handed.all)
				}
				cfg.clientsReadBytes, cfg.clientFrames = true, nil
				if fromBytes := traceBytes(t, cfg); !bytes.Equal(fromBytes, withDigests) {
					t.Fatalf("%s %s seed %d: the run whose Clients read digests differs from the one whose Clients read bytes", link, policy, seed)
				}
			}
		}
	}
}
