package bench

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// BenchmarkCheckCoreNames makes the core's compact form inside the clock
// the way the simulator can since its ids are minted into a register
// (sim.Names), and judges it: no id is hashed. A message's handle comes
// from its id's address (Names.Handle), a submission's from its name's
// number, a link's from its name's address, a request's from its numeric
// id in its link's table; only a transcript message's text is looked up by
// its value (the Agent writes its texts again). Beside BenchmarkCheckCore's "million+form" (the same
// form by string lookups) it says what making the form costs once the
// actors hand over minted strings (docs/design.md, "The checker on
// handles").
func BenchmarkCheckCoreNames(b *testing.B) {
	h := millionHistory()
	sends := sendsOf(h.Events)
	runtime.GC()
	b.ReportAllocs()
	cpu0 := CPUTime()
	for b.Loop() {
		if f := judgeCore(coreEventsByHandle(h, sends)); f != (coreFindings{}) {
			b.Fatalf("the history is not healthy: %v", f)
		}
	}
	reportFloor(b, cpu0, len(h.Texts))
}

// The form made from the register judges as the form made by string
// lookups, on a healthy history and on one with planted duplicates.
func TestCoreFormByHandleIsTheFormByString(t *testing.T) {
	for _, planted := range []int{0, 3} {
		cfg := Defaults(2000)
		cfg.Duplicates = planted
		h := Generate(cfg)
		byHandle, byString := judgeCore(coreEventsByHandle(h, sendsOf(h.Events))), judgeCore(coreEvents(h.Events))
		if byHandle != byString || (byHandle.duplicate == planted) != true {
			t.Errorf("%d planted: from the register %v, by string lookups %v", planted, byHandle, byString)
		}
	}
}

// coreEventsByHandle is coreEvents without a lookup by string: what the
// simulator's actors hand over (minted ids, numbered submissions and
// requests, one string per link) gives every handle but a transcript
// text's. sends[i] is the index of the send event i delivers (-1 for
// none), as the simulator's link hands it over: it delivers what it sent.
func coreEventsByHandle(hist *History, sends []int32) *coreHistory {
	evs, names := hist.Events, hist.Names
	// Each link's requests by numeric id (the request's handle + 1), in
	// windows of one shared slice: a run makes a link at every reconnect.
	type linkTable struct {
		observer        bool
		off, size, room int
	}
	reqAt := make([]int32, 0, 1<<16)
	var links []linkTable
	linkOf := map[*byte]int32{} // by the link name's address: a handful
	lastLink, lastName := int32(-1), (*byte)(nil)
	// A transcript's texts are cut from the update's JSON content (the
	// Agent writes them again), not the Client's strings: they are looked
	// up by value, once a message read.
	textSub := make(map[string]int32, len(hist.Texts))
	h := &coreHistory{ev: make([]coreEvent, len(evs)), subs: len(hist.Texts), msgs: names.Len() + 1}
	link := func(e *traces.Event) *linkTable {
		p := unsafe.StringData(e.Link)
		if p != lastName {
			l, ok := linkOf[p]
			if !ok {
				l = int32(len(links))
				links = append(links, linkTable{})
				linkOf[p] = l
			}
			lastLink, lastName = l, p
		}
		return &links[lastLink]
	}
	msgOf := func(id string) int32 {
		if id == "" {
			return -1
		}
		return names.Handle(id)
	}
	for i := range evs {
		e, c := &evs[i], &h.ev[i]
		*c = coreEvent{sub: -1, req: -1, msg: -1}
		switch e.Kind {
		case traces.KindSubmit:
			textSub[e.Text] = subNumber(e.Sub)
		case traces.KindConnect:
			link(e).observer = e.From == traces.Observer
		case traces.KindOutcome:
			c.kind, c.sub, c.msg, c.outcome = coreOutcome, subNumber(e.Sub), msgOf(e.MessageID), coreOutcomeOf(e.Outcome)
		case traces.KindDeliver:
			if j := sends[i]; j >= 0 {
				switch s := &h.ev[j]; s.kind {
				case corePrompt:
					c.req, c.kind = s.req, corePromptArrived
				case coreAnswer:
					c.req, c.kind = s.req, coreAnswerArrived
				}
			}
		case traces.KindSend:
			d := e.Digest
			if !d.Describes(e.Frame) {
				continue
			}
			l := link(e)
			n, numeric := d.ID.SmallNum()
			switch {
			case d.Kind() == acp.KindRequest && d.Method == acp.MethodSessionPrompt && numeric:
				r := int32(h.reqs)
				h.reqs++
				if n >= l.room {
					room := max(16, 2*l.room, n+1)
					off := len(reqAt)
					reqAt = append(reqAt, make([]int32, room)...)
					copy(reqAt[off:], reqAt[l.off:l.off+l.size])
					l.off, l.room = off, room
				}
				l.size = max(l.size, n+1)
				reqAt[l.off+n] = r + 1
				c.kind, c.sub, c.req = corePrompt, subNumber(e.Sub), r
			case d.Kind() == acp.KindResponse && numeric && n < l.size && reqAt[l.off+n] > 0:
				c.kind, c.req, c.ok = coreAnswer, reqAt[l.off+n]-1, !d.HasErr()
				if c.ok {
					c.msg = msgOf(d.MessageID())
				}
			case d.Method == acp.MethodSessionUpdate && d.Update() == acp.UpdateUserMessage && l.observer:
				if s, ok := textSub[d.Text()]; ok {
					c.kind, c.sub, c.msg = coreTranscript, s, msgOf(d.MessageID())
				}
			}
		}
	}
	return h
}

// subNumber is the handle of submission "sN": N-1, as Generate numbers
// them (subName).
func subNumber(name string) int32 {
	n := int32(0)
	for i := 1; i < len(name); i++ {
		n = n*10 + int32(name[i]-'0')
	}
	return n - 1
}

// sendsOf pairs each delivery with its send as coreEvents does, by the
// frame's address (the latest send of those bytes): what the simulator's
// link knows of each frame it delivers, made outside the clock.
func sendsOf(evs []traces.Event) []int32 {
	last := map[*byte]int32{}
	sends := make([]int32, len(evs))
	for i := range evs {
		sends[i] = -1
		switch e := &evs[i]; e.Kind {
		case traces.KindSend:
			last[unsafe.StringData(e.Frame)] = int32(i)
		case traces.KindDeliver:
			if j, ok := last[unsafe.StringData(e.Frame)]; ok {
				sends[i] = j
			}
		}
	}
	return sends
}
