package bench

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// BenchmarkCheckCore measures how fast the two properties the mission names
// could be judged if the checker were rebuilt on integer handles (issue 33's
// "compact records"): at most once and never silently lost, and nothing
// else — no keys, cancels, sessions, set-up, leaks, rework, versions or
// replies, no explanations, no report. Every id an event names is a small
// integer made outside the timed loop, as a simulator interning them per run
// would hand them over, and every record is a fixed-size struct without
// pointers in a slice. It is a measurement of a design, not a checker:
// properties.Check is what acpsim runs. Its rate against
// BenchmarkCheckFloor's "handles" and BenchmarkCheckMillion's is how much of
// the 1,000,000-a-second budget the core of a rebuilt checker would take
// before any other rule is judged (README "Speed").
func BenchmarkCheckCore(b *testing.B) {
	// BenchmarkPorcupine's histories, each with its planted duplicate.
	for _, n := range []int{100, 1000} {
		cfg := Defaults(n)
		cfg.Duplicates = 1
		evs := coreEvents(Generate(cfg).Events)
		b.Run(fmt.Sprintf("subs=%d", n), func(b *testing.B) {
			cpu0 := CPUTime()
			for b.Loop() {
				if f := judgeCore(evs); f != (coreFindings{duplicate: 1}) {
					b.Fatalf("want the planted duplicate alone, found %v", f)
				}
			}
			b.ReportMetric((CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/check")
		})
	}
	b.Run("million", func(b *testing.B) {
		h := millionHistory()
		evs := coreEvents(h.Events)
		runtime.GC()
		b.ReportAllocs()
		cpu0 := CPUTime()
		for b.Loop() {
			if f := judgeCore(evs); f != (coreFindings{}) {
				b.Fatalf("the history is not healthy: %v", f)
			}
		}
		reportFloor(b, cpu0, len(h.Texts))
	})
}

// TestCheckCoreJudges holds the core to what properties.Check says of the
// same histories: nothing on a healthy one, each planted duplicate found.
func TestCheckCoreJudges(t *testing.T) {
	for _, planted := range []int{0, 1, 3} {
		cfg := Defaults(2000)
		cfg.Duplicates = planted
		h := Generate(cfg)
		got := judgeCore(coreEvents(h.Events))
		want := coreFindings{duplicate: planted}
		if got != want {
			t.Errorf("%d planted duplicates: the core found %+v, want %+v", planted, got, want)
		}
		if n := len(duplicates(properties.Check(h.Header, h.Events))); n != planted {
			t.Errorf("%d planted duplicates: properties.Check found %d", planted, n)
		}
	}
}

// coreKind is what an event is to the core.
type coreKind uint8

const (
	coreSkip          coreKind = iota
	corePrompt                 // a Client sent a session/prompt
	corePromptArrived          // it reached the Agent
	coreAnswer                 // the Agent answered a prompt (ok: with success)
	coreAnswerArrived          // the answer reached the Client
	coreTranscript             // the observer read a user message of a final transcript
	coreOutcome                // the Client told the user
)

// coreOutcome8 is a Result in a byte.
type coreOutcome8 uint8

// coreEvent is an event as handles: 16 bytes, no pointers.
type coreEvent struct {
	kind    coreKind
	ok      bool
	outcome coreOutcome8
	sub     int32 // the submission (a transcript message's, by its text)
	req     int32 // a prompt's request, or the one an answer answers
	msg     int32 // the messageId an answer, outcome or transcript message names (-1: none)
}

type coreHistory struct {
	ev               []coreEvent
	subs, reqs, msgs int
}

// coreEvents interns every id the events name, outside the timed loop.
func coreEvents(evs []traces.Event) *coreHistory {
	subs, texts, msgs := map[string]int32{}, map[string]int32{}, map[string]int32{}
	type linkID struct {
		link string
		id   acp.ID
	}
	reqs := map[linkID]int32{}
	observer := map[string]bool{}
	sent := map[*byte]coreEvent{} // a frame's send, for its arrival
	h := &coreHistory{ev: make([]coreEvent, len(evs))}
	msgOf := func(id string) int32 {
		if id == "" {
			return -1
		}
		return intern(msgs, id)
	}
	for i := range evs {
		e, c := &evs[i], &h.ev[i]
		*c = coreEvent{sub: -1, req: -1, msg: -1}
		switch e.Kind {
		case traces.KindSubmit:
			texts[e.Text] = intern(subs, e.Sub)
		case traces.KindConnect:
			observer[e.Link] = e.From == traces.Observer
		case traces.KindOutcome:
			c.kind, c.sub, c.msg = coreOutcome, intern(subs, e.Sub), msgOf(e.MessageID)
			switch e.Outcome {
			case "failed":
				c.outcome = coreOutcome8(Failed)
			case "unknown":
				c.outcome = coreOutcome8(Unknown)
			}
		case traces.KindDeliver:
			if s, ok := sent[unsafe.StringData(e.Frame)]; ok {
				c.req, c.kind = s.req, corePromptArrived
				if s.kind == coreAnswer {
					c.kind = coreAnswerArrived
				}
			}
		case traces.KindSend:
			d := e.Digest
			if !d.Describes(e.Frame) {
				continue
			}
			k := linkID{e.Link, d.ID}
			switch {
			case d.Kind() == acp.KindRequest && d.Method == acp.MethodSessionPrompt:
				r := int32(len(reqs))
				reqs[k] = r
				c.kind, c.sub, c.req = corePrompt, intern(subs, e.Sub), r
			case d.Kind() == acp.KindResponse:
				if r, ok := reqs[k]; ok {
					c.kind, c.req, c.ok = coreAnswer, r, !d.HasErr()
					if c.ok {
						c.msg = msgOf(d.MessageID())
					}
				}
			case d.Method == acp.MethodSessionUpdate && d.Update() == acp.UpdateUserMessage && observer[e.Link]:
				if s, ok := texts[d.Text()]; ok {
					c.kind, c.sub, c.msg = coreTranscript, s, msgOf(d.MessageID())
				}
			}
			if c.kind == corePrompt || c.kind == coreAnswer {
				sent[unsafe.StringData(e.Frame)] = *c
			}
		}
	}
	h.subs, h.reqs, h.msgs = len(subs), len(reqs), len(msgs)
	return h
}

// coreFindings counts what the core found, by kind.
type coreFindings struct {
	duplicate, lost, phantom, unresolved, wrongID, shared int
}

type coreSub struct {
	attempts, arrived, copies int32
	outMsg                    int32
	told, answered            bool
	outcome                   Result
}

// judgeCore judges at most once and never silently lost, as properties
// does, on handles: a message's owner is the submission whose request a
// success answer first named it to; a transcript message is its text's.
func judgeCore(h *coreHistory) coreFindings {
	subs := make([]coreSub, h.subs)
	reqSub := make([]int32, h.reqs)
	owner := make([]int32, h.msgs)
	for i := range owner {
		owner[i] = -1
	}
	var f coreFindings
	for i := range h.ev {
		e := &h.ev[i]
		switch e.kind {
		case corePrompt:
			reqSub[e.req] = e.sub
			subs[e.sub].attempts++
		case corePromptArrived:
			subs[reqSub[e.req]].arrived++
		case coreAnswer:
			if e.ok && e.msg >= 0 {
				s := reqSub[e.req]
				switch o := owner[e.msg]; {
				case o < 0:
					owner[e.msg] = s
				case o != s:
					f.shared++ // one message named to two submissions
				}
			}
		case coreAnswerArrived:
			subs[reqSub[e.req]].answered = true
		case coreTranscript:
			subs[e.sub].copies++
			if e.msg >= 0 && owner[e.msg] >= 0 && owner[e.msg] != e.sub {
				f.wrongID++
			}
		case coreOutcome:
			s := &subs[e.sub]
			s.told, s.outcome, s.outMsg = true, Result(e.outcome), e.msg
		}
	}
	for i := range subs {
		s := &subs[i]
		switch {
		case s.copies > 1:
			f.duplicate++
		case !s.told && s.copies > 0:
			f.unresolved++
		case s.told && s.outcome == Inserted && s.copies == 0, !s.told && s.arrived > 0 && s.copies == 0:
			f.lost++
		case s.told && s.outcome == Failed && s.copies > 0:
			f.phantom++
		case s.told && s.outcome == Inserted && (s.outMsg < 0 || owner[s.outMsg] != int32(i)):
			f.wrongID++
		}
	}
	return f
}

func (f coreFindings) String() string {
	return fmt.Sprintf("duplicate %d, lost %d, phantom %d, unresolved %d, wrong-id %d, shared %d", f.duplicate, f.lost, f.phantom, f.unresolved, f.wrongID, f.shared)
}
