package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// BenchmarkCheckFloor is the least a checker of BenchmarkCheckMillion's
// typed events could do, in two designs. "strings" keys what it keeps by
// the strings the events carry, as properties does: every event looked at
// once, and each id it names (submission, link, request, message, key)
// looked up or added in a map by its string, nothing judged. "handles" is
// the same pass given each id as a small integer, as a simulator that
// interned them per run could hand them over: the same touches, in arrays.
// Each is the floor of its design, as the read floor is of acpsim judge's:
// a checker that hashes strings cannot beat "strings", however lean its
// records (README "Speed" says where the targets sit between them).
func BenchmarkCheckFloor(b *testing.B) {
	h := millionHistory()
	runtime.GC()
	b.Run("strings", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := CPUTime()
		for b.Loop() {
			f := newFloor(len(h.Texts))
			for i := range h.Events {
				f.visit(&h.Events[i])
			}
			if f.subs != len(h.Texts) {
				b.Fatalf("the floor counted %d submissions, the history has %d", f.subs, len(h.Texts))
			}
		}
		reportFloor(b, cpu0, len(h.Texts))
	})
	b.Run("handles", func(b *testing.B) {
		hs := handlesOf(h.Events)
		runtime.GC()
		b.ReportAllocs()
		cpu0 := CPUTime()
		for b.Loop() {
			f := newHandleFloor(hs)
			for i := range h.Events {
				f.visit(&h.Events[i], &hs.ev[i])
			}
			if f.subs != len(h.Texts) {
				b.Fatalf("the floor counted %d submissions, the history has %d", f.subs, len(h.Texts))
			}
		}
		reportFloor(b, cpu0, len(h.Texts))
	})
}

func reportFloor(b *testing.B, cpu0 time.Duration, subs int) {
	cpu := (CPUTime() - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(cpu, "cpu-s/check")
	b.ReportMetric(float64(subs)/cpu, "submissions/cpu-s")
}

type reqKey struct {
	link int32
	id   acp.ID
}

type floor struct {
	sub   map[string]int32
	link  map[string]int32
	req   map[reqKey]int32
	msg   map[string]int32
	key   map[string]int32
	subs  int
	reads int
}

func newFloor(n int) *floor {
	return &floor{
		sub: make(map[string]int32, n), link: map[string]int32{}, req: make(map[reqKey]int32, 2*n),
		msg: make(map[string]int32, n), key: make(map[string]int32, n),
	}
}

func intern(m map[string]int32, s string) int32 {
	if i, ok := m[s]; ok {
		return i
	}
	i := int32(len(m))
	m[s] = i
	return i
}

func (f *floor) visit(e *traces.Event) {
	switch e.Kind {
	case traces.KindSubmit:
		intern(f.sub, e.Sub)
		f.subs = len(f.sub)
	case traces.KindOutcome:
		intern(f.sub, e.Sub)
		intern(f.msg, e.MessageID)
	case traces.KindSend, traces.KindDeliver, traces.KindDrop:
		l := intern(f.link, e.Link)
		d := e.Digest
		if e.Kind != traces.KindSend || !d.Describes(e.Frame) {
			return
		}
		switch d.Kind() {
		case acp.KindRequest:
			f.req[reqKey{l, d.ID}] = int32(len(f.req))
			if d.Method == acp.MethodSessionPrompt {
				intern(f.sub, e.Sub)
				if k := d.KeyRaw(); k != "" {
					intern(f.key, k)
				}
			}
		case acp.KindResponse:
			f.reads += int(f.req[reqKey{l, d.ID}])
			if m := d.MessageID(); m != "" {
				intern(f.msg, m)
			}
		case acp.KindNotification:
			if m := d.MessageID(); m != "" {
				intern(f.msg, m)
			}
		}
	}
}

// eventHandles are the ids an event names, as small integers (-1: none).
type eventHandles struct{ sub, link, req, msg, key int32 }

type handles struct {
	ev                            []eventHandles
	subs, links, reqs, msgs, keys int
}

// handlesOf interns every id the events name, outside the timed loop: what
// a simulator would do as it makes them.
func handlesOf(evs []traces.Event) *handles {
	f := newFloor(0)
	hs := &handles{ev: make([]eventHandles, len(evs))}
	for i := range evs {
		e, h := &evs[i], &hs.ev[i]
		*h = eventHandles{-1, -1, -1, -1, -1}
		if e.Sub != "" {
			h.sub = intern(f.sub, e.Sub)
		}
		if e.Link != "" {
			h.link = intern(f.link, e.Link)
		}
		if e.MessageID != "" {
			h.msg = intern(f.msg, e.MessageID)
		}
		d := e.Digest
		if e.Kind != traces.KindSend || !d.Describes(e.Frame) {
			continue
		}
		k := reqKey{h.link, d.ID}
		switch d.Kind() {
		case acp.KindRequest:
			f.req[k] = int32(len(f.req))
			h.req = f.req[k]
			if raw := d.KeyRaw(); raw != "" {
				h.key = intern(f.key, raw)
			}
		case acp.KindResponse:
			if r, ok := f.req[k]; ok {
				h.req = r
			}
		}
		if m := d.MessageID(); m != "" {
			h.msg = intern(f.msg, m)
		}
	}
	hs.subs, hs.links, hs.reqs, hs.msgs, hs.keys = len(f.sub), len(f.link), len(f.req), len(f.msg), len(f.key)
	return hs
}

type handleFloor struct {
	sub            []bool
	link, req, key []int32
	msg            []int32
	subs, answered int
}

func newHandleFloor(hs *handles) *handleFloor {
	return &handleFloor{
		sub: make([]bool, hs.subs), link: make([]int32, hs.links), req: make([]int32, hs.reqs),
		msg: make([]int32, hs.msgs), key: make([]int32, hs.keys),
	}
}

// visit touches what floor.visit looks up, by handle.
func (f *handleFloor) visit(e *traces.Event, h *eventHandles) {
	if h.sub >= 0 && !f.sub[h.sub] {
		f.sub[h.sub] = true
		f.subs++
	}
	if h.link >= 0 {
		f.link[h.link]++
	}
	if e.Kind != traces.KindSend || !e.Digest.Describes(e.Frame) {
		return
	}
	switch e.Digest.Kind() {
	case acp.KindRequest:
		f.req[h.req] = h.sub
	case acp.KindResponse:
		if h.req >= 0 {
			f.answered += int(f.req[h.req])
		}
	}
	if h.msg >= 0 {
		f.msg[h.msg] = h.sub
	}
	if h.key >= 0 {
		f.key[h.key]++
	}
}
